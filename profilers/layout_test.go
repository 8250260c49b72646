package profilers_test

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/profilers"
)

// TestLayoutParents holds the registered plugins to the parent-child graph
// of docs/layout.md: every child table it lists has that parent, and every
// other table is top-level. It needs no spec directory.
func TestLayoutParents(t *testing.T) {
	l := readLayout(t)
	seen := map[string]bool{}
	for display, children := range l.parents {
		d, err := profilers.Lookup(profilerName(display))
		if err != nil {
			t.Errorf("docs/layout.md: the parent table names profiler %q: %v", display, err)
			continue
		}
		seen[d.Name] = true
		prefix := tablePrefix(display)
		for child, parent := range children {
			for _, n := range []string{child, parent} {
				if _, ok := d.Table(prefix + n); !ok {
					t.Errorf("docs/layout.md: %s: table %s%s is not registered", display, prefix, n)
				}
			}
		}
		for _, tb := range d.Tables {
			want := ""
			if p, ok := children[strings.TrimPrefix(tb.Name, prefix)]; ok {
				want = prefix + p
			}
			if tb.Parent != want {
				t.Errorf("profiler %s: table %s: parent %q, want %q (docs/layout.md, The parent-child graph)", d.Name, tb.Name, tb.Parent, want)
			}
		}
	}
	// The four AQTime profilers (this test binary registers a fifth, the
	// package example's, which docs/layout.md does not describe).
	for _, d := range specDocuments {
		if !seen[profilerName(d[1])] {
			t.Errorf("docs/layout.md: the parent table has no row for %s", d[1])
		}
	}
	for _, tb := range profilers.Shared() {
		if tb.Parent != "" {
			t.Errorf("shared table %s has parent %s; it is top-level", tb.Name, tb.Parent)
		}
	}
}
