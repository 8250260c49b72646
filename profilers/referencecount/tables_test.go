package referencecount_test

import (
	"testing"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/referencecount"
)

// TestRegistered: importing the package registers the profiler under Name,
// and every exported table-name constant names one of its tables; the
// constants cover all of them.
func TestRegistered(t *testing.T) {
	def, err := profilers.Lookup(referencecount.Name)
	if err != nil {
		t.Fatal(err)
	}
	consts := []string{
		referencecount.AddrefReleaseCallStack,
		referencecount.ClassesData,
		referencecount.CreationCallStack,
		referencecount.MetaClassesData,
		referencecount.MetaLines,
		referencecount.MetaRoutines,
		referencecount.Objects,
		referencecount.RefcountTree,
		referencecount.References,
		referencecount.Threads,
	}
	seen := map[string]bool{}
	for _, c := range consts {
		tb, ok := def.Table(c)
		if !ok {
			t.Errorf("profiler %s: constant %s names no registered table", referencecount.Name, c)
			continue
		}
		if tb.Name != c {
			t.Errorf("profiler %s: constant %s, table registered as %s", referencecount.Name, c, tb.Name)
		}
		if seen[c] {
			t.Errorf("profiler %s: two constants name %s", referencecount.Name, c)
		}
		seen[c] = true
	}
	for _, tb := range def.Tables {
		if !seen[tb.Name] {
			t.Errorf("profiler %s: table %s has no constant", referencecount.Name, tb.Name)
		}
	}
}
