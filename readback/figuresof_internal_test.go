package readback

import "testing"

// TestFigureCache checks what a FigureCache keeps: a copy of the figures
// of a result set the ledger lists, under its INST_ID and export time;
// nothing of one it does not list; at most its size.
func TestFigureCache(t *testing.T) {
	c := NewFigureCache(2)
	lines := &Ratio{Covered: 1, Total: 2}
	a := Instance{InstID: 1, exportedAt: "2026-11-29T10:00:00Z"}
	c.put(a, &Figures{Lines: lines}, false)
	got := c.get(a, false)
	if got == nil || got.Lines != lines {
		t.Fatalf("get after put: %+v", got)
	}
	got.Lines = nil // a copy: the cache's stays
	if c.get(a, false).Lines != lines {
		t.Fatal("the cache handed out its own figures, not a copy")
	}
	if c.get(Instance{InstID: 1, exportedAt: "2026-11-29T10:00:01Z"}, false) != nil {
		t.Error("figures kept under another export time were returned")
	}
	unlisted := Instance{InstID: 2}
	c.put(unlisted, &Figures{Lines: lines}, false)
	if c.get(unlisted, false) != nil {
		t.Error("figures of a result set the ledger does not list were kept")
	}
	c.put(Instance{InstID: 3, exportedAt: "x"}, &Figures{}, false)
	c.put(Instance{InstID: 4, exportedAt: "y"}, &Figures{}, false)
	// The headline's figures serve a headline, not FiguresOf; all the
	// figures serve both, and are not replaced by the headline's.
	h := Instance{InstID: 5, exportedAt: "z"}
	c = NewFigureCache(10)
	c.put(h, &Figures{Lines: lines}, true)
	if c.get(h, false) != nil || c.get(h, true) == nil {
		t.Error("figures kept for a headline: wrong use")
	}
	routines := &Ratio{Covered: 3, Total: 4}
	c.put(h, &Figures{Lines: lines, Routines: routines}, false)
	c.put(h, &Figures{Lines: lines}, true)
	if f := c.get(h, false); f == nil || f.Routines != routines {
		t.Errorf("all the figures, then the headline's: %+v", f)
	}
	c = NewFigureCache(2)
	c.put(Instance{InstID: 3, exportedAt: "x"}, &Figures{}, false)
	c.put(Instance{InstID: 4, exportedAt: "y"}, &Figures{}, false)
	c.put(Instance{InstID: 6, exportedAt: "y"}, &Figures{}, false)
	if len(c.m) > 2 {
		t.Errorf("the cache of size 2 holds %d", len(c.m))
	}
}
