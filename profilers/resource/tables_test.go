package resource_test

import (
	"testing"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/resource"
)

// TestRegistered: importing the package registers the profiler under Name,
// and every exported table-name constant names one of its tables; the
// constants cover all of them.
func TestRegistered(t *testing.T) {
	def, err := profilers.Lookup(resource.Name)
	if err != nil {
		t.Fatal(err)
	}
	consts := []string{
		resource.CallStack,
		resource.ClassesData,
		resource.CreationCallStack,
		resource.Errors,
		resource.MetaClassesData,
		resource.MetaLines,
		resource.MetaRoutines,
		resource.Objects,
		resource.Threads,
	}
	seen := map[string]bool{}
	for _, c := range consts {
		tb, ok := def.Table(c)
		if !ok {
			t.Errorf("profiler %s: constant %s names no registered table", resource.Name, c)
			continue
		}
		if tb.Name != c {
			t.Errorf("profiler %s: constant %s, table registered as %s", resource.Name, c, tb.Name)
		}
		if seen[c] {
			t.Errorf("profiler %s: two constants name %s", resource.Name, c)
		}
		seen[c] = true
	}
	for _, tb := range def.Tables {
		if !seen[tb.Name] {
			t.Errorf("profiler %s: table %s has no constant", resource.Name, tb.Name)
		}
	}
}
