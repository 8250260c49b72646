package compare_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// exportBigTraces exports two function traces of calls calls each (1,000
// routines, called in turn from main; B's own times twice A's) into a new
// SQLite database and returns its DSN.
func exportBigTraces(b *testing.B, calls int) string {
	b.Helper()
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(b.TempDir(), "traces.db")
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for set := int64(1); set <= 2; set++ {
		fb := functiontrace.NewBuilder()
		fb.SetCounter(&resultset.Counter{Name: "Time", Frequency: 1000000})
		rs := make([]*functiontrace.Routine, 1000)
		for i := range rs {
			rs[i] = fb.AddRoutine(functiontrace.RoutineInfo{Name: fmt.Sprintf("routine%04d", i), Class: "C", Module: "app.exe"})
		}
		th := fb.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 1})
		enter := func(r *functiontrace.Routine, own int64) {
			if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: 1, Time: own, TimeWithChildren: own}); err != nil {
				b.Fatal(err)
			}
		}
		exit := func() {
			if err := th.Exit(); err != nil {
				b.Fatal(err)
			}
		}
		enter(fb.AddRoutine(functiontrace.RoutineInfo{Name: "main", Module: "app.exe"}), 1)
		for i := 1; i < calls; i++ {
			enter(rs[i%1000], int64(i%1000+1)*set)
			exit()
		}
		exit()
		if _, err := fb.Export(ctx, e, fmt.Sprintf("trace %d", set)); err != nil {
			b.Fatal(err)
		}
		fb.Close()
	}
	return dsn
}

// BenchmarkCompareTrace compares two function traces of 100,000 and of
// 1,000,000 calls each on SQLite: the time grows with the rows, the
// memory allocated does not (docs/performance.md, "compare").
func BenchmarkCompareTrace(b *testing.B) {
	for _, calls := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(calls), func(b *testing.B) {
			dsn := exportBigTraces(b, calls)
			ctx := context.Background()
			r, err := readback.Open(ctx, dsn, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ReportAllocs()
			for b.Loop() {
				d, err := compare.Trace(ctx, r, 1, 2, compare.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if d.Calls.A != float64(calls) || d.Routines.Total != 1001 {
					b.Fatalf("calls %v, routines %d; want %d, 1001", d.Calls.A, d.Routines.Total, calls)
				}
			}
		})
	}
}
