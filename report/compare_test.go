package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

type call struct {
	routine    string
	own, total int64
	calls      []call
}

// exportPairs exports two function traces (1, 2) and three coverage sets
// (3, 4, 5) into a new SQLite database. From trace 1 to 2: main +110
// (time with children), work +130, io -30, extra new (+5). Coverage 3 and
// 4 cover 2 of 3 lines each, 5 all three.
func exportPairs(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, top := range []call{
		{"main", 10, 100, []call{{"work", 20, 20, nil}, {"work", 30, 30, nil}, {"io", 40, 40, nil}}},
		{"main", 15, 210, []call{{"work", 60, 60, nil}, {"io", 10, 10, nil}, {"work", 60, 60, nil}, {"extra", 5, 5, nil}, {"work", 60, 60, nil}}},
	} {
		b := functiontrace.NewBuilder()
		b.SetCounter(&resultset.Counter{Name: "Time", Frequency: 1000})
		th := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 9})
		routines := map[string]*functiontrace.Routine{}
		var run func(c call)
		run = func(c call) {
			r := routines[c.routine]
			if r == nil {
				r = b.AddRoutine(functiontrace.RoutineInfo{Name: c.routine})
				routines[c.routine] = r
			}
			if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: 1, Time: c.own, TimeWithChildren: c.total}); err != nil {
				t.Fatal(err)
			}
			for _, sub := range c.calls {
				run(sub)
			}
			if err := th.Exit(); err != nil {
				t.Fatal(err)
			}
		}
		run(top)
		if _, err := b.Export(ctx, e, "trace"); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	for _, counts := range [][]int64{{1, 1, 0}, {1, 0, 1}, {1, 1, 1}} {
		b := lightcoverage.NewBuilder()
		r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "f", SourceFile: "a.go"})
		for i, n := range counts {
			r.AddLine(int64(i+1), n)
		}
		if _, err := b.Export(ctx, e, "coverage"); err != nil {
			t.Fatal(err)
		}
	}
	return dsn
}

var (
	boxRE  = regexp.MustCompile(`<g data-delta="(-?\d+)"><title>([^:]*): [^<]*</title><rect [^>]* fill="([^"]*)"/>`)
	rowRE  = regexp.MustCompile(`<tr data-routine="([^"]*)" data-own-delta="(-?\d+)">`)
	lineRE = regexp.MustCompile(`<tr data-line="([^"]*)">`)
)

func TestCompareReport(t *testing.T) {
	dsn := exportPairs(t)
	page := render(t, dsn, report.Options{Inst: []int64{1, 2}, Compare: []int64{1, 2}})
	// The differential flame graph: B's routes (io's before extra: B's
	// order), coloured by their change against the largest (work, +130).
	var got []string
	for _, m := range boxRE.FindAllStringSubmatch(page, -1) {
		got = append(got, m[2]+" "+m[1]+" "+m[3])
	}
	want := []string{"all threads 110 rgb(255,86,86)", "thread 0 110 rgb(255,86,86)", "main 110 rgb(255,86,86)",
		"work 130 rgb(255,55,55)", "io -30 rgb(209,209,255)", "extra 5 rgb(255,247,247)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("flame graph boxes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	for _, m := range rowRE.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	if w := "work 130,io -30,main 5,extra 5"; strings.Join(got, ",") != w {
		t.Errorf("routines by change of own time: %s, want %s", strings.Join(got, ","), w)
	}

	page = render(t, dsn, report.Options{Compare: []int64{3, 4}})
	got = nil
	for _, m := range lineRE.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1])
	}
	if w := "a.go:2,a.go:3"; strings.Join(got, ",") != w { // the new miss, then the new hit
		t.Errorf("changed lines: %s, want %s", strings.Join(got, ","), w)
	}
	if !strings.Contains(page, `<b class="cmp-lines">2 of 3 (66.7%) &rarr; 2 of 3 (66.7%)</b>, change <b class="cmp-lines-change">0.0</b> points`) {
		t.Error("the coverage comparison does not give the lines covered in A and B")
	}
	// A change of coverage is in percentage points with one decimal, as
	// compare prints it (compare.Style.Format): the page printed every
	// digit of the float, +33.33333333333333.
	page = render(t, dsn, report.Options{Compare: []int64{3, 5}})
	for _, want := range []string{`<b class="cmp-lines">2 of 3 (66.7%) &rarr; 3 of 3 (100.0%)</b>, change <b class="cmp-lines-change">&#43;33.3</b> points`,
		`<td class="n cmp-change" data-v="33.33333333333333">&#43;33.3</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the coverage comparison 3 to 5 does not hold %s", want)
		}
	}
	ctx0 := context.Background()
	r0, err := readback.Open(ctx0, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.Compare(ctx0, r0, 3, 5, compare.Options{})
	r0.Close()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := res.WriteText(&text, 100); err != nil || !strings.Contains(text.String(), "Lines covered:    2 of 3 (66.7%) -> 3 of 3 (100.0%), change +33.3\n") {
		t.Errorf("compare 3 5 prints (%v):\n%s", err, text.String())
	}
	if strings.Contains(page, "<svg class=\"flame diff\"") {
		t.Error("a coverage comparison has a flame graph")
	}

	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var sink strings.Builder
	err = report.Write(ctx, r, &sink, report.Options{Compare: []int64{1, 3}})
	if err == nil || !strings.Contains(err.Error(), "cannot be compared: result set 1 is function-trace, result set 3 is light-coverage") {
		t.Errorf("a trace compared with a coverage set: %v", err)
	}
}

func TestCompareReportInChromium(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	dsn := exportPairs(t)
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := os.WriteFile(path, []byte(render(t, dsn, report.Options{Inst: []int64{1, 2}, Compare: []int64{1, 2}})), 0o644); err != nil {
		t.Fatal(err)
	}
	tctx, pl := openTab(t, ctx, path)
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+path+"#compare"), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	if active := chromiumtest.Eval[string](t, tctx, `document.querySelector("section.view.active").id`); active != "view-compare" {
		t.Errorf("#compare shows %q", active)
	}
	// The boxes are drawn, as wide as B's times with children.
	widths := chromiumtest.Eval[[]float64](t, tctx, `Array.from(document.querySelectorAll("#view-compare svg.flame rect")).map(r => r.getBBox().width)`)
	if len(widths) != 6 || fmt.Sprintf("%.1f", widths[3]) != fmt.Sprintf("%.1f", 1200.0*180/210) {
		t.Errorf("flame boxes %v; want 6, the fourth (work) %.1f wide", widths, 1200.0*180/210)
	}
	// Sorting by own time's change puts io (-30) first.
	first := chromiumtest.Eval[string](t, tctx, `(() => { const th = document.querySelectorAll("#t-cmp-routines th")[7]; th.click();
		return document.querySelector("#t-cmp-routines tbody tr").dataset.routine })()`)
	if first != "io" {
		t.Errorf("sorted by the change of own time, ascending, the first routine is %q, want io", first)
	}
	shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	chromiumtest.NotBlank(t, "compare", shot)
	for _, p := range pl.Take() {
		t.Error(p)
	}
}
