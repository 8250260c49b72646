package report_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Large result sets for the benchmarks, made once per process: a Function
// Trace of 1,000,000 calls (CALL_TRACE rows) and a Light Coverage set of
// 100,000 lines, in one SQLite database.
var large struct {
	once sync.Once
	dsn  string
	err  error
}

func largeDB(b *testing.B) string {
	large.once.Do(func() {
		dir, err := os.MkdirTemp("", "profdb-report-bench-")
		if err != nil {
			large.err = err
			return
		}
		large.dsn = "sqlite:" + filepath.Join(dir, "large.db")
		large.err = makeLarge(context.Background(), large.dsn)
	})
	if large.err != nil {
		b.Fatal(large.err)
	}
	return large.dsn
}

func makeLarge(ctx context.Context, dsn string) error {
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	rnd := rand.New(rand.NewSource(1))

	ft := functiontrace.NewBuilder()
	defer ft.Close()
	ft.SetCounter(&resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: int64(2400000000)})
	var routines []*functiontrace.Routine
	for i := range 300 {
		routines = append(routines, ft.AddRoutine(functiontrace.RoutineInfo{Name: fmt.Sprintf("Routine%03d", i),
			Class: fmt.Sprintf("Class%02d", i%40), Module: "Large.exe", SourceFile: fmt.Sprintf("src/file%02d.cpp", i%40)}))
	}
	var threads []*functiontrace.Thread
	for i := range 4 {
		threads = append(threads, ft.AddThread(functiontrace.ThreadInfo{Win32ThreadID: int64(1000 + i)}))
	}
	for n := 0; n < 1_000_000; n++ {
		th := threads[n%len(threads)]
		// Walk: go deeper, or come back up, up to 12 levels.
		for th.Depth() > 0 && (th.Depth() >= 12 || rnd.Intn(3) == 0) {
			if err := th.Exit(); err != nil {
				return err
			}
		}
		own := int64(rnd.Intn(5000) + 10)
		if _, err := th.Enter(functiontrace.CallInfo{Routine: routines[rnd.Intn(len(routines))], Count: 1,
			Time: own, TimeWithChildren: own * int64(13-th.Depth())}); err != nil {
			return err
		}
	}
	if _, err := resultset.Export(ctx, db, ft.ResultSet("1M-call trace")); err != nil {
		return err
	}

	lc := lightcoverage.NewBuilder()
	for f := range 500 {
		for r := range 20 {
			rt := lc.AddRoutine(lightcoverage.RoutineInfo{Name: fmt.Sprintf("R%d_%d", f, r), Module: fmt.Sprintf("mod%d.dll", f%10),
				SourceFile: fmt.Sprintf("src/pkg%02d/file%03d.go", f%30, f), SourceLine: int64(r*12 + 1), Count: 1, LineLevel: true})
			for l := range 10 {
				count := int64(0)
				if rnd.Intn(4) > 0 {
					count = int64(rnd.Intn(100) + 1)
				}
				rt.AddLine(int64(r*12+2+l), count)
			}
		}
	}
	_, err = resultset.Export(ctx, db, lc.ResultSet("100k-line coverage"))
	return err
}

// largeSets are the result sets of largeDB.
var largeSets = []struct {
	name string
	inst int64
}{{"trace-1M-calls", 1}, {"coverage-100k-lines", 2}}

func writeLarge(b *testing.B, dsn string, inst int64, path string) int64 {
	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := report.Write(ctx, r, f, report.Options{Inst: []int64{inst}}); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	return st.Size()
}

// BenchmarkReport measures writing the report of a 1M-call Function Trace
// and of a 100k-line Light Coverage set (default caps), and reports the
// file's size.
func BenchmarkReport(b *testing.B) {
	dsn := largeDB(b)
	for _, c := range largeSets {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "r.html")
			var size int64
			for b.Loop() {
				size = writeLarge(b, dsn, c.inst, path)
			}
			b.ReportMetric(float64(size), "bytes/report")
		})
	}
}

// BenchmarkChromiumLoad measures the time headless Chromium takes to load
// those reports (navigation until the load event, scripts run).
func BenchmarkChromiumLoad(b *testing.B) {
	dsn := largeDB(b)
	ctx := chromiumtest.Browser(b)
	for _, c := range largeSets {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "r.html")
			writeLarge(b, dsn, c.inst, path)
			for b.Loop() {
				tctx, cancel := chromedp.NewContext(ctx)
				if err := chromedp.Do(tctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("body")); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
		})
	}
}
