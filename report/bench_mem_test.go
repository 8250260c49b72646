package report_test

// The memory benchmark of report and show: Function Traces of millions of
// calls in three shapes, written straight into the database (no builder,
// whose routes would grow with a deep tree), and the profdb binary run on
// them as a child process, its wall time and peak RSS measured. Opt-in:
//
//	go test -run '^$' -bench ReportMemory -benchtime 1x -timeout 0 ./report/ \
//	    -args -memcalls 1000000,10000000 [-shapes flat,chain,fanout] [-dbs sqlite,postgres] [-before OLD_PROFDB]
//
// (task bench:report). SQLite always; PostgreSQL when PROFDB_TEST_POSTGRES
// is set. Each set lives in a fresh namespace, dropped after it is
// measured, so that only one set takes disk space at a time.

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var (
	benchMemCalls    = flag.String("memcalls", "", "BenchmarkReportMemory: comma-separated trace sizes in calls (e.g. 1000000,10000000); unset skips it")
	benchMemShapes   = flag.String("shapes", "flat,chain,fanout", "BenchmarkReportMemory: call tree shapes")
	benchMemDBs      = flag.String("dbs", "sqlite,postgres", "BenchmarkReportMemory: databases (postgres needs PROFDB_TEST_POSTGRES)")
	benchMemBefore   = flag.String("before", "", "BenchmarkReportMemory: another profdb binary measured on the same sets, for a before/after comparison")
	benchMemBeforeAt = flag.Int("beforecalls", 0, "BenchmarkReportMemory: measure -before only on sets of at most this many calls (0: all)")
)

// memRoutines is the number of routines of the benchmark's traces.
const memRoutines = 1000

// memFanout and memFanDepth shape the fan-out trace: complete trees of
// fan-out 8, 7 calls deep (299,593 calls each), one after the other at the
// top of the thread.
const (
	memFanout   = 8
	memFanDepth = 6
)

// memTrace is the result set of a trace of n calls in one thread, of a
// shape:
//
//	flat    every call at the top of the thread, routine i%1000;
//	chain   each call made by the one before (one route n calls deep),
//	        recursion through the 1000 routines in turn;
//	fanout  complete trees of fan-out 8, each call's routine set by its
//	        route, so that every call is a route of its own (the most
//	        distinct routes a trace of n calls can have).
//
// Own time is 2 ticks a call; time with children is 2 ticks times the
// calls of the subtree (for the last fan-out tree, cut short at n calls,
// it is that of the complete tree).
func memTrace(shape string, n int64) (*resultset.ResultSet, error) {
	var calls iter.Seq[[]any]
	row := make([]any, 8)
	// COL__S, COL__S_WITH_CHILDREN, COL_PARENT_NO, COL_ROUTINE_NAME, ID, PARENT_ID, REC_ID, COL_CALL_NO
	emit := func(rec, parent, routine, total int64) {
		row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7] = int64(2), total, parent, routine, rec, int64(0), rec, rec
	}
	switch shape {
	case "flat":
		calls = func(yield func([]any) bool) {
			for i := range n {
				emit(i, -1, i%memRoutines, 2)
				if !yield(row) {
					return
				}
			}
		}
	case "chain":
		calls = func(yield func([]any) bool) {
			for i := range n {
				emit(i, i-1, i%memRoutines, 2*(n-i))
				if !yield(row) {
					return
				}
			}
		}
	case "fanout":
		// size[h] is the calls of a complete tree h levels below its root.
		var size [memFanDepth + 1]int64
		for h := range size {
			size[h] = 1
			if h > 0 {
				size[h] = 1 + memFanout*size[h-1]
			}
		}
		type open struct{ rec, routine, left int64 }
		calls = func(yield func([]any) bool) {
			var stack []open
			var top int64
			for i := int64(0); i < n; i++ {
				for len(stack) > 0 && stack[len(stack)-1].left == 0 {
					stack = stack[:len(stack)-1]
				}
				parent, routine := int64(-1), top%memRoutines
				if len(stack) == 0 {
					top++
				} else {
					p := &stack[len(stack)-1]
					k := memFanout - p.left
					p.left--
					parent, routine = p.rec, (p.routine*memFanout+k+1)%memRoutines
				}
				h := memFanDepth - len(stack)
				emit(i, parent, routine, 2*size[h])
				if h > 0 {
					stack = append(stack, open{i, routine, memFanout})
				}
				if !yield(row) {
					return
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown shape %q (flat, chain, fanout)", shape)
	}
	rows := func(seq iter.Seq[[]any]) func(func([]any, error) bool) {
		return func(yield func([]any, error) bool) {
			for r := range seq {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
	routines := func(meta bool) iter.Seq[[]any] {
		return func(yield func([]any) bool) {
			for i := range int64(memRoutines) {
				r := []any{i, int64(-1), i}
				if meta {
					r = append(r, fmt.Sprintf("Routine%03d", i), fmt.Sprintf("Class%02d", i%40), "Bench.exe")
				}
				if !yield(r) {
					return
				}
			}
		}
	}
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: functiontrace.Name, Caption: fmt.Sprintf("%s trace of %d calls", shape, n),
			Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: int64(2_400_000_000)}},
		Tables: []resultset.TableRows{
			{Name: functiontrace.MetaRoutines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_ROUTINE_NAME", "COL_CLASS_NAME", "COL_MODULE_NAME"},
				Rows: rows(routines(true))},
			{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "REC_ID"}, Rows: rows(routines(false))},
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"},
				Rows: rows(slices.Values([][]any{{int64(0), int64(-1), int64(0), int64(4711)}}))},
			{Name: functiontrace.CallTrace, Columns: []string{"COL__S", "COL__S_WITH_CHILDREN", "COL_PARENT_NO", "COL_ROUTINE_NAME",
				"ID", "PARENT_ID", "REC_ID", "COL_CALL_NO"}, Rows: rows(calls)},
		},
	}, nil
}

func TestMain(m *testing.M) {
	launchtest.Main()
	os.Exit(m.Run())
}

// BenchmarkReportMemory exports traces of -memcalls calls of each -shapes
// shape into each of -dbs and measures `profdb report` and `profdb show`
// on them: wall time and peak RSS, reported as metrics and printed as one
// line per run.
func BenchmarkReportMemory(b *testing.B) {
	if *benchMemCalls == "" {
		b.Skip("set -memcalls (e.g. -args -memcalls 1000000,10000000) to run it")
	}
	var sizes []int64
	for _, s := range strings.Split(*benchMemCalls, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 1 {
			b.Fatalf("-memcalls: %q is not a number of calls", s)
		}
		sizes = append(sizes, n)
	}
	bin, err := clitest.Build(b.Context(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	bins := []struct{ name, path string }{{"after", bin}}
	if *benchMemBefore != "" {
		bins = append(bins, struct{ name, path string }{"before", *benchMemBefore})
	}
	ctx := context.Background()
	for _, dbName := range strings.Split(*benchMemDBs, ",") {
		if dbName != "sqlite" && os.Getenv(dbtest.EnvVar(dbName)) == "" {
			fmt.Printf("%s: %s is not set, skipped\n", dbName, dbtest.EnvVar(dbName))
			continue
		}
		for _, shape := range strings.Split(*benchMemShapes, ",") {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("%s/%s/%d", dbName, shape, n), func(b *testing.B) {
					dsn := dbtest.Fresh(b, dbName)
					rs, err := memTrace(shape, n)
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
					if err != nil {
						b.Fatal(err)
					}
					res, err := resultset.Export(ctx, db, rs)
					db.Close()
					if err != nil {
						b.Fatal(err)
					}
					fmt.Printf("%-8s %-6s %9d calls: exported in %.1f s\n", dbName, shape, n, time.Since(start).Seconds())
					inst := strconv.FormatInt(res.InstID, 10)
					out := filepath.Join(b.TempDir(), "r.html")
					for b.Loop() {
						for _, bn := range bins {
							if bn.name == "before" && *benchMemBeforeAt > 0 && n > int64(*benchMemBeforeAt) {
								continue
							}
							for _, c := range []struct {
								name string
								args []string
							}{
								{"report", []string{bn.path, "report", "--db", dsn, "--inst", inst, "-o", out}},
								{"show", []string{bn.path, "show", "--db", dsn, inst}},
							} {
								r := launchtest.Measure(b, nil, c.args...)
								size := ""
								if c.name == "report" {
									if st, err := os.Stat(out); err == nil {
										size = fmt.Sprintf("  %.2f MB page", float64(st.Size())/1e6)
									}
								}
								fmt.Printf("%-8s %-6s %9d calls: %-6s %-6s %7.2f s  %7.1f MiB peak RSS  %.3f s per million calls%s\n",
									dbName, shape, n, bn.name, c.name, r.Elapsed.Seconds(), float64(r.MaxRSS)/(1<<20),
									r.Elapsed.Seconds()*1e6/float64(n), size)
								if bn.name == "after" {
									b.ReportMetric(float64(r.MaxRSS)/(1<<20), c.name+"-MiB")
									b.ReportMetric(r.Elapsed.Seconds(), c.name+"-s")
								}
							}
						}
					}
				})
			}
		}
	}
}
