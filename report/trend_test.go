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

	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

type trendCase struct {
	name   string
	o      trend.Options
	runs   []int64
	series map[string]int // points per series
}

// trendPages writes the trend pages of trendtest's history: coverage on
// main with the hostile file followed, and the traces with a routine.
func trendPages(t *testing.T) (string, []trendCase) {
	dsn := dbtest.Fresh(t, "sqlite")
	h, err := trendtest.Export(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, []trendCase{
		{"coverage", trend.Options{Filter: store.Filter{Profiler: "light-coverage", Branch: "main"}, File: trendtest.HostileFile}, h.Coverage,
			map[string]int{"line_coverage": 4, "routine_coverage": 4, "item_line_coverage": 4}},
		{"coverage-routine", trend.Options{Filter: store.Filter{Profiler: "light-coverage"}, Routine: "odd"}, append(append([]int64{}, h.Coverage...), h.CoverageFeature...),
			map[string]int{"line_coverage": 6, "routine_coverage": 6, "item_line_coverage": 3}},
		{"trace", trend.Options{Filter: store.Filter{Profiler: "function-trace"}, Routine: "app.work"}, h.Trace,
			map[string]int{"total_time": 3, "calls": 3, "item_own_time": 3, "item_time_with_children": 3, "item_calls": 3}},
		{"one-run", trend.Options{Filter: store.Filter{Profiler: "resource", Last: 1}}, h.Resource[1:],
			map[string]int{"live_objects": 1, "live_size": 1}},
	}
}

var pointRE = regexp.MustCompile(`<a class="point" href="#run-(\d+)" data-inst="(\d+)">`)

// commitRE is a run's commit cell: its first 12 digits, the whole name in
// the title.
var commitRE = regexp.MustCompile(`<td title="([0-9a-f]{40})">([0-9a-f]+)</td>`)

// TestTrendPage: the trend page draws one point per run and series, each
// linking to its run's row; the CSP is the report's; the hostile file
// name and caption stay text; a build URL that is not http(s) is no link;
// a commit is shown by its first 12 digits, as on a result set's page.
func TestTrendPage(t *testing.T) {
	dsn, cases := trendPages(t)
	for _, c := range cases {
		o := c.o
		page := render(t, dsn, report.Options{Trend: &o})
		if n := len(pointRE.FindAllString(page, -1)); n != total(c.series) {
			t.Errorf("%s: %d points, want %d", c.name, n, total(c.series))
		}
		for _, id := range c.runs {
			if !strings.Contains(page, fmt.Sprintf(`<tr id="run-%d" data-inst="%d">`, id, id)) {
				t.Errorf("%s: no row for run %d", c.name, id)
			}
		}
		if !strings.Contains(page, `http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-`) {
			t.Errorf("%s: the page lacks the report's CSP", c.name)
		}
		for _, bad := range []string{"<script>alert", "javascript:", "\x1b", `href="http://evil`} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page holds %q", c.name, bad)
			}
		}
		if c.name == "coverage" {
			if !strings.Contains(page, `<a href="https://ci.example/build/2?a=1&amp;b=%3c2%3e" rel="noopener noreferrer">2</a>`) {
				t.Errorf("coverage: no link to the build of run 2")
			}
			cells := commitRE.FindAllStringSubmatch(page, -1)
			if len(cells) != len(c.runs) {
				t.Errorf("coverage: %d commit cells, want %d", len(cells), len(c.runs))
			}
			for _, m := range cells {
				if m[2] != m[1][:12] {
					t.Errorf("coverage: commit %s shown as %s, want its first 12 digits as a result set's page shows it", m[1], m[2])
				}
			}
			if strings.Count(page, `rel="noopener noreferrer"`) != len(c.runs)-1 {
				t.Errorf("coverage: %d build links, want %d (the first run's URL is not http)", strings.Count(page, `rel="noopener noreferrer"`), len(c.runs)-1)
			}
		}
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestTrendPageInChromium: the trend page renders with one point per run
// (per series), in run order, and no console, CSP or network error; a
// click on a point shows its run's row.
func TestTrendPageInChromium(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	dsn, cases := trendPages(t)
	dir := t.TempDir()
	shots := os.Getenv("PROFDB_SCREENSHOTS")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			path := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(path, []byte(render(t, dsn, report.Options{Trend: &o, Title: "trend " + c.name})), 0o644); err != nil {
				t.Fatal(err)
			}
			tctx, pl := openTab(t, ctx, path)
			if err := chromedp.Do(tctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			waitView(t, tctx, "index")
			for key, want := range c.series {
				insts := chromiumtest.Eval[[]string](t, tctx, `Array.from(document.querySelectorAll('svg.trend g.series[data-series="`+key+`"] a.point')).map(a => a.dataset.inst)`)
				if len(insts) != want {
					t.Errorf("series %s: %d points drawn, want %d", key, len(insts), want)
				}
				// Drawn and visible: each point has a size on the page.
				sized := chromiumtest.Eval[int](t, tctx, `Array.from(document.querySelectorAll('svg.trend g.series[data-series="`+key+`"] circle')).filter(c => { const r = c.getBoundingClientRect(); return r.width > 0 && r.height > 0 }).length`)
				if sized != want {
					t.Errorf("series %s: %d points visible, want %d", key, sized, want)
				}
			}
			order := chromiumtest.Eval[[]string](t, tctx, `Array.from(document.querySelectorAll('#t-trend-runs tbody tr')).map(r => r.dataset.inst)`)
			if len(order) != len(c.runs) {
				t.Fatalf("%d rows of runs, want %d", len(order), len(c.runs))
			}
			first := chromiumtest.Eval[string](t, tctx, `(() => { const a = document.querySelector('svg.trend a.point'); a.dispatchEvent(new MouseEvent("click", {bubbles: true})); return a.dataset.inst })()`)
			if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`location.hash === "#run-`+first+`"`)); err != nil {
				t.Errorf("a click on the point of run %s: location %q", first, chromiumtest.Eval[string](t, tctx, `location.hash`))
			}
			waitView(t, tctx, "index")
			shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			chromiumtest.NotBlank(t, c.name, shot)
			if shots != "" {
				if err := os.WriteFile(filepath.Join(shots, "trend-"+c.name+".png"), shot, 0o644); err != nil {
					t.Errorf("PROFDB_SCREENSHOTS: %v", err)
				}
			}
			for _, p := range pl.Take() {
				t.Error(p)
			}
		})
	}
}
