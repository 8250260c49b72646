package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
)

// openTab opens a new tab of the browser ctx for the report file at
// path, listening for what the page must not do (chromiumtest.Log): a
// request for anything but the file itself is one.
func openTab(t *testing.T, ctx context.Context, path string) (context.Context, *chromiumtest.Log) {
	t.Helper()
	return chromiumtest.Tab(t, ctx, 0, func(u string) bool { return strings.HasPrefix(u, "file://"+path) })
}

type reportFile struct {
	profiler string
	inst     int64
	path     string
}

// writeReports writes one report per example, each of one result set.
func writeReports(t *testing.T) ([]reportFile, map[string]int64) {
	dsn := dbtest.Fresh(t, "sqlite")
	ids, err := exampletest.Export(context.Background(), "..", dsn)
	if err != nil {
		t.Fatal(err)
	}
	lc := example(t, "light-coverage")
	all := map[string]bool{}
	for f := range lc.MaxLine() {
		all[f] = true
	}
	root := sourceRoot(t, lc, all)
	dir := t.TempDir()
	var out []reportFile
	for _, p := range exampletest.Names {
		page := render(t, dsn, report.Options{Inst: []int64{ids[p]}, SourceRoot: root, Title: "profdb report: " + p})
		path := filepath.Join(dir, p+".html")
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, reportFile{p, ids[p], path})
	}
	return out, ids
}

func TestReportsInChromium(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	files, _ := writeReports(t)
	shots := os.Getenv("PROFDB_SCREENSHOTS") // a folder to keep the screenshots in
	for _, f := range files {
		t.Run(f.profiler, func(t *testing.T) {
			tctx, pl := openTab(t, ctx, f.path)
			start := time.Now()
			if err := chromedp.Do(tctx, chromedp.Navigate("file://"+f.path), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: loaded in %v", f.profiler, time.Since(start))
			checkFigures(t, tctx, f)
			for _, view := range []string{"index", fmt.Sprintf("inst-%d", f.inst)} {
				chromiumtest.Eval[string](t, tctx, `location.hash = "#`+view+`"`)
				waitView(t, tctx, view)
				shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				chromiumtest.NotBlank(t, view, shot)
				if shots != "" {
					if err := os.WriteFile(filepath.Join(shots, f.profiler+"-"+view+".png"), shot, 0o644); err != nil {
						t.Errorf("PROFDB_SCREENSHOTS: %v", err)
					}
				}
			}
			for _, p := range pl.Take() {
				t.Error(p)
			}
		})
	}
}

// checkFigures reads the figures from the page's DOM and compares them
// with those computed from the example input.
func checkFigures(t *testing.T, ctx context.Context, f reportFile) {
	t.Helper()
	id := fmt.Sprint(f.inst)
	switch f.profiler {
	case "light-coverage":
		rows := chromiumtest.Eval[[][]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-files tbody tr")).map(r => [r.cells[0].textContent, r.querySelector("td.pct").textContent])`)
		want := example(t, "light-coverage").FileCoverage()
		if len(rows) != len(want) {
			t.Fatalf("%d file rows, want %d", len(rows), len(want))
		}
		for _, r := range rows {
			c := want[r[0]]
			if r[1] != readback.Percent(c[0], c[1]) {
				t.Errorf("file %s: %s covered in the page, want %s", r[0], r[1], readback.Percent(c[0], c[1]))
			}
		}
		// Sorting: clicking "%" twice orders the files best covered first.
		first := chromiumtest.Eval[string](t, ctx, `(() => { const th = document.querySelectorAll("#t-`+id+`-files th")[3]; th.click(); th.click();
			return document.querySelector("#t-`+id+`-files tbody tr td.pct").textContent })()`)
		best := ""
		var bestP float64 = -1
		for _, c := range want {
			if p := (readback.Ratio{Covered: c[0], Total: c[1]}).Percent(); p > bestP {
				bestP, best = p, readback.Percent(c[0], c[1])
			}
		}
		if first != best {
			t.Errorf("sorted by %% descending, the first file has %s, want %s", first, best)
		}
		// Filtering hides the rows that do not match.
		shown := chromiumtest.Eval[int](t, ctx, `(() => { const i = document.querySelector('input[data-table="t-`+id+`-files"]'); i.value = "strutil";
			i.dispatchEvent(new Event("input")); return Array.from(document.querySelectorAll("#t-`+id+`-files tbody tr")).filter(r => r.style.display !== "none").length })()`)
		if shown != 1 {
			t.Errorf("filter \"strutil\" leaves %d rows, want 1", shown)
		}
		hits := chromiumtest.Eval[int](t, ctx, `document.querySelectorAll(".src div.hit").length`)
		var covered int64
		for _, c := range want {
			covered += c[0]
		}
		if int64(hits) != covered {
			t.Errorf("%d covered lines marked in the sources, want %d", hits, covered)
		}
	case "function-trace":
		rows := chromiumtest.Eval[[][]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-own tbody tr")).map(r => [r.dataset.routine, r.dataset.own])`)
		want := example(t, "function-trace").OwnTimes()
		if len(rows) != len(want) {
			t.Fatalf("%d routine rows, want %d", len(rows), len(want))
		}
		for _, r := range rows {
			if r[1] != fmt.Sprint(want[r[0]]) {
				t.Errorf("routine %s: own time %s in the page, want %d", r[0], r[1], want[r[0]])
			}
		}
		rects := chromiumtest.Eval[int](t, ctx, `document.querySelectorAll("svg.flame rect").length`)
		if rects < len(want) {
			t.Errorf("flame graph has %d boxes, fewer than the %d routines", rects, len(want))
		}
	case "resource":
		live := chromiumtest.Eval[string](t, ctx, `document.querySelector("#view-inst-`+id+` .live-count").textContent`)
		if want := fmt.Sprint(example(t, "resource").Sum("RESOURCE_PROFILER_CLASSES_DATA", "COL_LIVE_COUNT")); live != want {
			t.Errorf("live objects %s in the page, want %s", live, want)
		}
	case "reference-count":
		alive := chromiumtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-alive tbody tr")).map(r => r.dataset.object)`)
		sort.Strings(alive)
		if want := example(t, "reference-count").AliveObjects(); strings.Join(alive, ",") != strings.Join(want, ",") {
			t.Errorf("objects alive %v in the page, want %v", alive, want)
		}
	}
}

// waitView waits until the page shows view (its section view-VIEW is the
// active one): hashchange runs after the evaluation that sets the hash.
// It fails the test when the page shows another after 30 seconds.
func waitView(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	const active = `(document.querySelector("section.view.active") || {id: ""}).id`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](active+` === "view-`+view+`"`)); err != nil {
		t.Errorf("view %s: the visible section is %q (%v)", view, chromiumtest.Eval[string](t, ctx, active), err)
	}
}
