package report_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
)

// chromium returns the path of a Chromium binary. Without one the test
// skips, or fails under CI, which installs Debian's chromium (.ci/run).
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if dbtest.InCI() {
		t.Fatal("no chromium on PATH: CI must install it (apt-get install chromium; see .ci/run)")
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run the browser tests")
	return ""
}

// browser starts a headless Chromium with a fresh profile, as the issue
// prescribes, and returns a context for chromedp.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// openTab opens a new tab of the browser ctx for the page at path, with
// 60 s for all it does there, listening for what the page must not do
// (pageLog) with the network, log and runtime events on. The tab closes
// when the test ends.
func openTab(t *testing.T, ctx context.Context, path string) (context.Context, *pageLog) {
	t.Helper()
	tctx, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	tctx, cancel = context.WithTimeout(tctx, 60*time.Second)
	t.Cleanup(cancel)
	pl := &pageLog{file: path}
	if err := chromedp.Do(tctx); err != nil { // open the tab
		t.Fatal(err)
	}
	if err := pl.listen(tctx); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return tctx, pl
}

// pageLog collects what a page must not do: console errors, uncaught
// exceptions, browser log errors (a CSP violation, a failed load) and
// requests for anything but the report file itself.
type pageLog struct {
	mu       sync.Mutex
	file     string
	problems []string
}

func (l *pageLog) add(format string, args ...any) {
	l.mu.Lock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *pageLog) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				l.add("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			l.add("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				l.add("log %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file://"+l.file) {
				l.add("network request: %s", u)
			}
		}
	})
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
	ctx := browser(t)
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
				eval[string](t, tctx, `location.hash = "#`+view+`"`)
				waitView(t, tctx, view)
				shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				checkNotBlank(t, view, shot)
				if shots != "" {
					if err := os.WriteFile(filepath.Join(shots, f.profiler+"-"+view+".png"), shot, 0o644); err != nil {
						t.Errorf("PROFDB_SCREENSHOTS: %v", err)
					}
				}
			}
			pl.mu.Lock()
			defer pl.mu.Unlock()
			for _, p := range pl.problems {
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
		rows := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-files tbody tr")).map(r => [r.cells[0].textContent, r.querySelector("td.pct").textContent])`)
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
		first := eval[string](t, ctx, `(() => { const th = document.querySelectorAll("#t-`+id+`-files th")[3]; th.click(); th.click();
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
		shown := eval[int](t, ctx, `(() => { const i = document.querySelector('input[data-table="t-`+id+`-files"]'); i.value = "strutil";
			i.dispatchEvent(new Event("input")); return Array.from(document.querySelectorAll("#t-`+id+`-files tbody tr")).filter(r => r.style.display !== "none").length })()`)
		if shown != 1 {
			t.Errorf("filter \"strutil\" leaves %d rows, want 1", shown)
		}
		hits := eval[int](t, ctx, `document.querySelectorAll(".src div.hit").length`)
		var covered int64
		for _, c := range want {
			covered += c[0]
		}
		if int64(hits) != covered {
			t.Errorf("%d covered lines marked in the sources, want %d", hits, covered)
		}
	case "function-trace":
		rows := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-own tbody tr")).map(r => [r.dataset.routine, r.dataset.own])`)
		want := example(t, "function-trace").OwnTimes()
		if len(rows) != len(want) {
			t.Fatalf("%d routine rows, want %d", len(rows), len(want))
		}
		for _, r := range rows {
			if r[1] != fmt.Sprint(want[r[0]]) {
				t.Errorf("routine %s: own time %s in the page, want %d", r[0], r[1], want[r[0]])
			}
		}
		rects := eval[int](t, ctx, `document.querySelectorAll("svg.flame rect").length`)
		if rects < len(want) {
			t.Errorf("flame graph has %d boxes, fewer than the %d routines", rects, len(want))
		}
	case "resource":
		live := eval[string](t, ctx, `document.querySelector("#view-inst-`+id+` .live-count").textContent`)
		if want := fmt.Sprint(example(t, "resource").Sum("RESOURCE_PROFILER_CLASSES_DATA", "COL_LIVE_COUNT")); live != want {
			t.Errorf("live objects %s in the page, want %s", live, want)
		}
	case "reference-count":
		alive := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#t-`+id+`-alive tbody tr")).map(r => r.dataset.object)`)
		sort.Strings(alive)
		if want := example(t, "reference-count").AliveObjects(); strings.Join(alive, ",") != strings.Join(want, ",") {
			t.Errorf("objects alive %v in the page, want %v", alive, want)
		}
	}
}

// checkNotBlank fails unless a screenshot has some variety: at least a few
// percent of its pixels differ from the most common colour, in several
// colours.
func checkNotBlank(t *testing.T, view string, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("view %s: screenshot: %v", view, err)
	}
	counts := map[[4]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}]++
		}
	}
	total, most := 0, 0
	for _, n := range counts {
		total += n
		most = max(most, n)
	}
	if other := float64(total-most) / float64(total); len(counts) < 8 || other < 0.03 {
		t.Errorf("view %s: the screenshot looks blank (%d colours, %.1f%% not background)", view, len(counts), other*100)
	}
}

// eval evaluates a JavaScript expression in the page and returns its value.
// waitView waits until the page shows view (its section view-VIEW is the
// active one): hashchange runs after the evaluation that sets the hash.
// It fails the test when the page shows another after 30 seconds.
func waitView(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	const active = `(document.querySelector("section.view.active") || {id: ""}).id`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](active+` === "view-`+view+`"`)); err != nil {
		t.Errorf("view %s: the visible section is %q (%v)", view, eval[string](t, ctx, active), err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}
