package functiontrace_test

import (
	"testing"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
)

// TestRegistered: importing the package registers the profiler under Name,
// and every exported table-name constant names one of its tables; the
// constants cover all of them.
func TestRegistered(t *testing.T) {
	def, err := profilers.Lookup(functiontrace.Name)
	if err != nil {
		t.Fatal(err)
	}
	consts := []string{
		functiontrace.CallRoutes,
		functiontrace.CallStack,
		functiontrace.CallTrace,
		functiontrace.MetaLines,
		functiontrace.MetaRoutines,
		functiontrace.MetaParameters,
		functiontrace.ParametersOnEnter,
		functiontrace.ParametersOnExit,
		functiontrace.Routines,
		functiontrace.Threads,
	}
	seen := map[string]bool{}
	for _, c := range consts {
		tb, ok := def.Table(c)
		if !ok {
			t.Errorf("profiler %s: constant %s names no registered table", functiontrace.Name, c)
			continue
		}
		if tb.Name != c {
			t.Errorf("profiler %s: constant %s, table registered as %s", functiontrace.Name, c, tb.Name)
		}
		if seen[c] {
			t.Errorf("profiler %s: two constants name %s", functiontrace.Name, c)
		}
		seen[c] = true
	}
	for _, tb := range def.Tables {
		if !seen[tb.Name] {
			t.Errorf("profiler %s: table %s has no constant", functiontrace.Name, tb.Name)
		}
	}
}
