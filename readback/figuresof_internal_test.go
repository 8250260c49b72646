package readback

import "testing"

// TestFigureCache checks what a FigureCache keeps: a copy of the figures
// of a result set the ledger lists, under its INST_ID and export time;
// nothing of one it does not list; at most its size.
func TestFigureCache(t *testing.T) {
	c := NewFigureCache(2)
	lines := &Ratio{Covered: 1, Total: 2}
	a := Instance{InstID: 1, exportedAt: "2026-11-29T10:00:00Z"}
	c.put(a, &Figures{Lines: lines})
	got := c.get(a)
	if got == nil || got.Lines != lines {
		t.Fatalf("get after put: %+v", got)
	}
	got.Lines = nil // a copy: the cache's stays
	if c.get(a).Lines != lines {
		t.Fatal("the cache handed out its own figures, not a copy")
	}
	if c.get(Instance{InstID: 1, exportedAt: "2026-11-29T10:00:01Z"}) != nil {
		t.Error("figures kept under another export time were returned")
	}
	unlisted := Instance{InstID: 2}
	c.put(unlisted, &Figures{Lines: lines})
	if c.get(unlisted) != nil {
		t.Error("figures of a result set the ledger does not list were kept")
	}
	c.put(Instance{InstID: 3, exportedAt: "x"}, &Figures{})
	c.put(Instance{InstID: 4, exportedAt: "y"}, &Figures{})
	if len(c.m) > 2 {
		t.Errorf("the cache of size 2 holds %d", len(c.m))
	}
}
