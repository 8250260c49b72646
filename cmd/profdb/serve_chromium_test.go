package main

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/internal/servetest"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/serve"
)

// browserWalk is a walk through the pages of a server in one tab of
// headless Chromium: each page it reaches is checked (page) for what no
// page may do, and its links are fetched.
type browserWalk struct {
	t       *testing.T
	tab     context.Context
	log     *chromiumtest.Log
	base    string              // the server's URL
	dsn     string              // its database, for the commands
	fetched map[string]struct{} // links already fetched
}

// TestServeInChromium walks the pages of profdb serve in headless
// Chromium over a database of several runs (the trendtest history:
// coverage on two branches with its sources under --source-root, function
// traces, resource and reference count; and the hostile-names fixture):
// runs → run → source → compare → trend and back. On every page the
// figures shown are those show, compare, trend and list print with
// --json; every link resolves (200, or the 404 page where one is meant);
// back, forward and a pasted URL restore the same view; no console error,
// exception or CSP violation, no request but to the server; and names
// from the data render as text, no element or script injected.
func TestServeInChromium(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	dsn := dbtest.Fresh(t, "sqlite")
	h, err := trendtest.Export(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	var hostile []struct {
		InstID int64 `json:"inst_id"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "export", "--db", dsn, "--json", "--no-identity", "--branch", "hostile", hostileFixture)), &hostile); err != nil || len(hostile) != 4 {
		t.Fatalf("export %s: %v %v", hostileFixture, hostile, err)
	}
	root := t.TempDir()
	for name, lines := range map[string]int{"a.go": 25, "b.go": 5, "c.go": 2} {
		var b strings.Builder
		for i := 1; i <= lines; i++ {
			fmt.Fprintf(&b, "// %s line %d\n", name, i)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := servetest.Serve(t, dsn, serve.Options{SourceRoot: root})
	tab, log := chromiumtest.Tab(t, ctx, 3*time.Minute, func(u string) bool { return strings.HasPrefix(u, srv.URL+"/") })
	w := &browserWalk{t: t, tab: tab, log: log, base: srv.URL, dsn: dsn, fetched: map[string]struct{}{}}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	cov, prev := h.Coverage[3], h.Coverage[2]

	// The runs, newest first, as list prints them.
	w.navigate("/", 200)
	w.checkRuns()
	runsView := w.view()

	// A coverage run, from its row: the figures of show; its sources
	// linked, its baseline (the run of main before it) and its trend.
	w.click(`a.run[href="/runs/`+id(cov)+`"]`, "/runs/"+id(cov), 200)
	w.checkCoverageRun(cov)
	runView := w.view()

	// A source file, from the run's table: its lines marked as show
	// counts them, its text read under --source-root.
	w.click(`#t-`+id(cov)+`-files tr[data-name="a.go"] a.source-link`, "/runs/"+id(cov)+"/source/a.go", 200)
	w.checkSource(cov, "a.go")
	sourceView := w.view()

	// Back and forward restore the same views; so does the address
	// pasted into another tab.
	w.back("/runs/"+id(cov), runView)
	w.back("/", runsView)
	w.forward("/runs/"+id(cov), runView)
	w.forward("/runs/"+id(cov)+"/source/a.go", sourceView)
	w.pasted(ctx, srv.URL, "/runs/"+id(cov)+"/source/a.go", sourceView)
	w.back("/runs/"+id(cov), runView)

	// The comparison with the baseline: compare's figures.
	w.click(`a.baseline-link`, "/compare/"+id(prev)+"/"+id(cov), 200)
	w.checkCoverageCompare(prev, cov)
	compareView := w.view()
	w.pasted(ctx, srv.URL, "/compare/"+id(prev)+"/"+id(cov), compareView)

	// Back to the run from the comparison, then its trend: trend's runs,
	// each point opening its run, each mover its own trend.
	w.click(`a.run-b`, "/runs/"+id(cov), 200)
	w.click(`a.trend-link`, "/trend?branch=main&profiler=light-coverage", 200)
	w.checkTrend([]string{"trend", "--profiler", "light-coverage", "--branch", "main"})
	trendView := w.view()
	w.click(`a.point[data-inst="`+id(h.Coverage[1])+`"]`, "/runs/"+id(h.Coverage[1]), 200)
	w.back("/trend?branch=main&profiler=light-coverage", trendView)
	w.click(`a.mover[href*="file=a.go"]`, "/trend?branch=main&file=a.go&profiler=light-coverage", 200)
	w.checkTrend([]string{"trend", "--profiler", "light-coverage", "--branch", "main", "--file", "a.go"})
	w.back("/trend?branch=main&profiler=light-coverage", trendView)
	w.pasted(ctx, srv.URL, "/trend?branch=main&profiler=light-coverage", trendView)

	// The filters of the runs page: its form asks for what list gives.
	w.navigate("/", 200)
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS(`input[name="branch"]`), "feature/x")); err != nil {
		t.Fatal(err)
	}
	w.click(`form.filters button[type="submit"]`, "", 200)
	if q := w.location().Query(); q.Get("branch") != "feature/x" {
		t.Errorf("the filter form went to %s, want branch=feature/x", w.location())
	}
	w.checkRuns()

	// Traces: show's own times and a flame graph; two compared, with the
	// differential flame graph.
	w.navigate("/runs/"+id(h.Trace[2]), 200)
	w.checkTraceRun(h.Trace[2])
	w.navigate("/compare/"+id(h.Trace[0])+"/"+id(h.Trace[2]), 200)
	w.checkTraceCompare(h.Trace[0], h.Trace[2])
	w.navigate("/compare/branch:main/latest", 200)

	// The hostile names: every page of the fixture's runs shows them as
	// text. So do the pages of the history's hostile file, caption and
	// build URL.
	for _, r := range hostile {
		w.navigate("/runs/"+id(r.InstID), 200)
	}
	// The fixture's trace, after the history's, whose counter is
	// another: its routines' names reach the page exactly (but for the CR
	// that HTML's parser makes LF), and no link offers to compare it with
	// the history's last trace, which compare refuses.
	names := map[string]bool{}
	for s := range fixtureStrings(t) {
		names[strings.ReplaceAll(s, "\r", "\n")] = true
	}
	w.navigate("/runs/"+id(hostile[1].InstID), 200)
	routines := chromiumtest.Eval[[]string](t, tab, `Array.from(document.querySelectorAll("#t-`+id(hostile[1].InstID)+`-own tbody tr")).map(r => r.dataset.routine)`)
	for _, r := range routines {
		if !names[r] {
			t.Errorf("routine %q in the page is not the fixture's", r)
		}
	}
	if len(routines) == 0 || chromiumtest.Eval[int](t, tab, `document.querySelectorAll("a.baseline-link").length`) != 0 {
		t.Errorf("the fixture's trace: %d routines shown, a link to compare it with a trace of another counter: %v",
			len(routines), chromiumtest.Eval[int](t, tab, `document.querySelectorAll("a.baseline-link").length`) != 0)
	}
	w.navigate("/compare/"+id(hostile[0].InstID)+"/"+id(hostile[0].InstID), 200)
	w.navigate("/runs/"+id(h.Coverage[0]), 200)
	w.navigate("/runs/"+id(h.Coverage[0])+"/source/"+url.PathEscape(trendtest.HostileFile), 200)
	if got := chromiumtest.Eval[string](t, tab, `document.querySelector("span.file").textContent`); got != termtext.Name(trendtest.HostileFile) {
		t.Errorf("the hostile file shows as %q, want %q", got, termtext.Name(trendtest.HostileFile))
	}

	// What matches nothing is a 404 page that says what was looked for,
	// linked to the runs.
	w.navigate("/runs/branch:nosuch", 404)
	if msg := chromiumtest.Eval[string](t, tab, `document.querySelector("p.error").textContent`); !strings.Contains(msg, "branch:nosuch") {
		t.Errorf("the 404 page says %q: not what was looked for", msg)
	}
	w.click(`nav a[href="/"]`, "/", 200)
}

// navigate opens the page at path (an address pasted into the tab) and
// checks it answers status.
func (w *browserWalk) navigate(path string, status int) {
	w.t.Helper()
	resp, err := chromedp.Run(w.tab, chromedp.NavigateResponse(w.base+path))
	if err != nil {
		w.t.Fatalf("open %s: %v", path, err)
	}
	w.loaded(path, int(resp.Status), status)
}

// click clicks the element sel and checks that the page it opens is
// path ("": any) and answers status.
func (w *browserWalk) click(sel, path string, status int) {
	w.t.Helper()
	n := chromiumtest.Eval[int](w.t, w.tab, `document.querySelectorAll(`+strconv.Quote(sel)+`).length`)
	if n == 0 {
		w.t.Fatalf("on %s, nothing to click: no %s", w.location().RequestURI(), sel)
	}
	// A click as the user's: a click event the element's default action
	// follows (an SVG element has no click method).
	click := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`document.querySelector(`+strconv.Quote(sel)+`).dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}))`)(ctx, t)
		return err
	})
	resp, err := chromedp.RunResponse(w.tab, click)
	if err != nil {
		w.t.Fatalf("on %s, click %s: %v", w.location().RequestURI(), sel, err)
	}
	w.loaded(path, int(resp.Status), status)
}

// loaded checks the page the tab shows: its address, status and what no
// page may do.
func (w *browserWalk) loaded(path string, got, status int) {
	w.t.Helper()
	if at := w.location().RequestURI(); path != "" && at != path {
		w.t.Errorf("the tab shows %s, want %s", at, path)
	}
	if got != status {
		w.t.Errorf("%s: status %d, want %d", w.location().RequestURI(), got, status)
	}
	w.page(status)
}

// location is the address the tab shows.
func (w *browserWalk) location() *url.URL {
	w.t.Helper()
	u, err := url.Parse(chromiumtest.Eval[string](w.t, w.tab, `location.href`))
	if err != nil {
		w.t.Fatal(err)
	}
	return u
}

// page checks what no page may do: an injected script ran, the title
// changed, an element other than the page's own script runs code or
// loads, an inline handler; a problem the tab recorded (but the 404 of
// the page itself when status is 404); a link that does not resolve
// (fetched: 200, or 404 where the link is to what is not there) or that
// leads elsewhere but to http or https.
func (w *browserWalk) page(status int) {
	t := w.t
	t.Helper()
	at := w.location().RequestURI()
	if p := chromiumtest.Eval[string](t, w.tab, `typeof window.pwned === "undefined" ? "" : String(window.pwned)`); p != "" {
		t.Errorf("%s: an injected script ran: window.pwned = %q", at, p)
	}
	if title := chromiumtest.Eval[string](t, w.tab, `document.title`); title != "profdb" {
		t.Errorf("%s: the title is %q", at, title)
	}
	if n := chromiumtest.Eval[int](t, w.tab, `document.scripts.length + document.images.length + document.querySelectorAll("iframe, object, embed, link, meta[http-equiv=refresh], base").length`); n != 1 {
		t.Errorf("%s: %d scripts, images, frames and the like, want the page's own script alone", at, n)
	}
	if hs := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("*")).flatMap(e =>
		Array.from(e.attributes).filter(a => a.name.startsWith("on")).map(a => e.tagName + " " + a.name))`); len(hs) > 0 {
		t.Errorf("%s: elements with event handlers: %v", at, hs)
	}
	text := chromiumtest.Eval[string](t, w.tab, `document.body.innerText`)
	for i, r := range text {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r == '\u202e' || r == utf8.RuneError {
			t.Errorf("%s: the page shows U+%04X at %d raw", at, r, i)
			break
		}
	}
	if cs := chromiumtest.Eval[int](t, w.tab, `document.querySelectorAll("section.view.active").length`); cs != 1 {
		t.Errorf("%s: %d views shown: the page's script did not run", at, cs)
	}
	for _, p := range w.log.Take() {
		if status == 404 && strings.Contains(p, "status of 404") {
			continue
		}
		t.Errorf("%s: %s", at, p)
	}
	links := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("a, form")).map(e =>
		e.getAttribute(e.tagName.toLowerCase() === "form" ? "action" : "href")).filter(h => h !== null && !h.startsWith("#")).map(h => new URL(h, location.href).href)`)
	if len(links) == 0 {
		t.Errorf("%s: no links", at)
	}
	for _, l := range links {
		if _, ok := w.fetched[l]; ok {
			continue
		}
		w.fetched[l] = struct{}{}
		u, err := url.Parse(l)
		if err != nil {
			t.Errorf("%s: link %q: %v", at, l, err)
			continue
		}
		if !strings.HasPrefix(l, w.base+"/") {
			if u.Scheme != "http" && u.Scheme != "https" {
				t.Errorf("%s links to %s: neither http nor https", at, l)
			}
			continue
		}
		if code, body := servetest.Get(t, l, nil); code != 200 {
			t.Errorf("%s links to %s: %d %.200s", at, u.RequestURI(), code, body)
		}
	}
}

// view is what the tab shows: its address and the text of its page.
func (w *browserWalk) view() string {
	w.t.Helper()
	return w.location().RequestURI() + "\n" + chromiumtest.Eval[string](w.t, w.tab, `document.querySelector("main").innerText`)
}

// back goes back in the tab's history, as the browser's button does, and
// checks it shows view again at path.
func (w *browserWalk) back(path, view string) {
	w.t.Helper()
	w.history("back", path, view)
}

func (w *browserWalk) forward(path, view string) {
	w.t.Helper()
	w.history("forward", path, view)
}

// history goes back or forward, and waits until the page at path is
// loaded (whether the browser loads it anew or keeps it in its cache).
func (w *browserWalk) history(way, path, view string) {
	w.t.Helper()
	chromiumtest.Eval[any](w.t, w.tab, `history.`+way+`()`)
	loaded := `location.href === ` + strconv.Quote(w.base+path) + ` && document.readyState === "complete" && document.querySelector("section.view.active") !== null`
	// Evaluated afresh each time: the navigation destroys the page's
	// context, where a poll would run.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ok, err := chromedp.Run(w.tab, chromedp.Evaluate[bool](loaded)); err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s to %s: the tab shows %s after 30 s", way, path, w.location())
		}
	}
	if got := w.view(); got != view {
		w.t.Errorf("%s to %s: the tab shows\n%.300s\nwant\n%.300s", way, path, got, view)
	}
	w.page(200)
}

// pasted opens path in a new tab of the browser ctx, as a link pasted
// into it, and checks it shows view.
func (w *browserWalk) pasted(ctx context.Context, base, path, view string) {
	w.t.Helper()
	tab, log := chromiumtest.Tab(w.t, ctx, 0, func(u string) bool { return strings.HasPrefix(u, base+"/") })
	other := &browserWalk{t: w.t, tab: tab, log: log, base: base, dsn: w.dsn, fetched: w.fetched}
	other.navigate(path, 200)
	if got := other.view(); got != view {
		w.t.Errorf("%s pasted into a new tab shows\n%.300s\nwant\n%.300s", path, got, view)
	}
}

// cli runs profdb with args and --json on the walk's database and decodes
// what it prints into v.
func (w *browserWalk) cli(v any, args ...string) {
	w.t.Helper()
	out := mustRun(w.t, append(args, "--json", "--db", w.dsn)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		w.t.Fatalf("profdb %s --json: %v", strings.Join(args, " "), err)
	}
}

// rows returns, for each row of the table the CSS selector sel names,
// what the JavaScript expression js makes of it (r is the row).
func rows(w *browserWalk, sel, js string) [][]string {
	w.t.Helper()
	return chromiumtest.Eval[[][]string](w.t, w.tab, `Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map(r => `+js+`)`)
}

// checkRuns checks the runs page against list --json with the page's
// filter: the same runs in the same order, each with its profiler,
// caption, branch and the headline show prints.
func (w *browserWalk) checkRuns() {
	t := w.t
	t.Helper()
	args := []string{"list"}
	q := w.location().Query()
	for _, k := range []string{"profiler", "branch", "commit", "since", "label"} {
		if v := q.Get(k); v != "" {
			args = append(args, "--"+k, v)
		}
	}
	var list []struct {
		InstID   int64  `json:"inst_id"`
		Profiler string `json:"profiler"`
		Caption  string `json:"caption"`
		Run      *struct {
			Branch string `json:"branch"`
		} `json:"run"`
	}
	w.cli(&list, args...)
	got := rows(w, "#t-runs tbody tr", `[r.dataset.inst, r.cells[2].textContent, r.cells[4].textContent, r.cells[7].textContent, r.cells[8].textContent]`)
	if len(got) != len(list) || len(list) == 0 {
		t.Fatalf("%s: %d runs shown, list prints %d", w.location().RequestURI(), len(got), len(list))
	}
	for i, r := range got {
		l := list[len(list)-1-i] // list: oldest first; the page: newest first
		branch := ""
		if l.Run != nil {
			branch = termtext.Field(l.Run.Branch)
		}
		want := []string{strconv.FormatInt(l.InstID, 10), l.Profiler, branch, termtext.Field(l.Caption), w.headline(l.InstID)}
		if strings.Join(r, "|") != strings.Join(want, "|") {
			t.Errorf("runs page, row %d: %q, want %q", i, r, want)
		}
	}
}

// headline is the headline show prints for inst: the line after its head
// line and the lines of its run's identity.
func (w *browserWalk) headline(inst int64) string {
	w.t.Helper()
	var s struct {
		Instance struct {
			Run *resultset.Run `json:"run"`
		} `json:"instance"`
	}
	w.cli(&s, "show", strconv.FormatInt(inst, 10))
	lines := strings.Split(mustRun(w.t, "show", "--db", w.dsn, strconv.FormatInt(inst, 10)), "\n")
	n := 1 + len(readback.RunLines(s.Instance.Run))
	if len(lines) <= n {
		w.t.Fatalf("show %d: %q", inst, lines)
	}
	return lines[n]
}

// ratio is covered of total, as show --json gives them.
type ratio struct {
	Covered int64 `json:"covered"`
	Total   int64 `json:"total"`
}

func (r ratio) String() string {
	return fmt.Sprintf("%d of %d (%s)", r.Covered, r.Total, readback.Percent(r.Covered, r.Total))
}

// group is a module or source file of show --json.
type group struct {
	Name    string `json:"name"`
	Covered int64  `json:"covered"`
	Total   int64  `json:"total"`
}

// coverageShow is what show --json prints of a coverage run.
type coverageShow struct {
	Coverage struct {
		Lines    ratio `json:"lines"`
		Routines ratio `json:"routines"`
		Modules  struct {
			Items []group `json:"items"`
		} `json:"modules"`
		Files struct {
			Items []group `json:"items"`
		} `json:"source_files"`
	} `json:"light_coverage"`
}

// checkCoverageRun checks the page of coverage run inst against show
// --json: lines and routines covered, the modules and files.
func (w *browserWalk) checkCoverageRun(inst int64) {
	t := w.t
	t.Helper()
	id := strconv.FormatInt(inst, 10)
	var s coverageShow
	w.cli(&s, "show", id)
	c := s.Coverage
	for sel, want := range map[string]string{"b.lines-covered": c.Lines.String(), "b.routines-covered": c.Routines.String(), "div.headline": w.headline(inst)} {
		if got := chromiumtest.Eval[string](t, w.tab, `document.querySelector(`+strconv.Quote(sel)+`).textContent`); got != want {
			t.Errorf("run %d: %s shows %q, show --json %q", inst, sel, got, want)
		}
	}
	for table, want := range map[string][]group{"modules": c.Modules.Items, "files": c.Files.Items} {
		got := rows(w, "#t-"+id+"-"+table+" tbody tr", `[r.dataset.name, r.cells[1].textContent, r.cells[2].textContent, r.cells[3].textContent]`)
		if len(got) != len(want) || len(want) == 0 {
			t.Errorf("run %d: %d %s shown, show --json has %d", inst, len(got), table, len(want))
			continue
		}
		for i, g := range want {
			w := []string{termtext.Name(g.Name), fmt.Sprint(g.Covered), fmt.Sprint(g.Total), readback.Percent(g.Covered, g.Total)}
			if strings.Join(got[i], "|") != strings.Join(w, "|") {
				t.Errorf("run %d, %s row %d: %q, show --json %q", inst, table, i, got[i], w)
			}
		}
	}
}

// checkSource checks the page of a source file of coverage run inst: as
// many lines marked covered and not as show --json counts, the file's text
// shown.
func (w *browserWalk) checkSource(inst int64, file string) {
	t := w.t
	t.Helper()
	var s coverageShow
	w.cli(&s, "show", strconv.FormatInt(inst, 10))
	var want *group
	for i, g := range s.Coverage.Files.Items {
		if g.Name == file {
			want = &s.Coverage.Files.Items[i]
		}
	}
	if want == nil {
		t.Fatalf("show %d --json has no file %s", inst, file)
	}
	hits := chromiumtest.Eval[int](t, w.tab, `document.querySelectorAll(".src div.hit").length`)
	misses := chromiumtest.Eval[int](t, w.tab, `document.querySelectorAll(".src div.miss").length`)
	if int64(hits) != want.Covered || int64(hits+misses) != want.Total {
		t.Errorf("source %s of %d: %d lines covered of %d marked, show --json %d of %d", file, inst, hits, hits+misses, want.Covered, want.Total)
	}
	if line := chromiumtest.Eval[string](t, w.tab, `document.querySelector(".src div:nth-child(3)").textContent`); !strings.HasSuffix(line, "// "+file+" line 3") {
		t.Errorf("source %s of %d: line 3 shows %q, not the file's text", file, inst, line)
	}
}

// checkCoverageCompare checks the comparison of coverage runs a and b
// against compare --json: lines covered in each, the files' figures.
func (w *browserWalk) checkCoverageCompare(a, b int64) {
	t := w.t
	t.Helper()
	var c struct {
		Coverage struct {
			Lines struct {
				CoveredA int64 `json:"covered_a"`
				TotalA   int64 `json:"total_a"`
				CoveredB int64 `json:"covered_b"`
				TotalB   int64 `json:"total_b"`
			} `json:"lines"`
			Files struct {
				Items []struct {
					File     string `json:"source_file"`
					CoveredA int64  `json:"covered_a"`
					TotalA   int64  `json:"total_a"`
					CoveredB int64  `json:"covered_b"`
					TotalB   int64  `json:"total_b"`
				} `json:"items"`
			} `json:"source_files"`
		} `json:"light_coverage"`
	}
	w.cli(&c, "compare", strconv.FormatInt(a, 10), strconv.FormatInt(b, 10))
	l := c.Coverage.Lines
	want := ratio{l.CoveredA, l.TotalA}.String() + " → " + ratio{l.CoveredB, l.TotalB}.String()
	if got := chromiumtest.Eval[string](t, w.tab, `document.querySelector("b.cmp-lines").textContent`); got != want {
		t.Errorf("compare %d %d: lines %q, compare --json %q", a, b, got, want)
	}
	got := rows(w, "#t-cmp-files tbody tr", `[r.dataset.file, r.cells[1].textContent, r.cells[3].textContent]`)
	if len(got) != len(c.Coverage.Files.Items) || len(got) == 0 {
		t.Fatalf("compare %d %d: %d files shown, compare --json has %d", a, b, len(got), len(c.Coverage.Files.Items))
	}
	for i, f := range c.Coverage.Files.Items {
		w := []string{f.File, fmt.Sprintf("%d/%d", f.CoveredA, f.TotalA), fmt.Sprintf("%d/%d", f.CoveredB, f.TotalB)}
		if strings.Join(got[i], "|") != strings.Join(w, "|") {
			t.Errorf("compare %d %d, file row %d: %q, compare --json %q", a, b, i, got[i], w)
		}
	}
}

// checkTrend checks a trend page against trend --json with args: its runs
// in order, a point for each, and its movers.
func (w *browserWalk) checkTrend(args []string) {
	t := w.t
	t.Helper()
	var tr struct {
		Runs []struct {
			InstID int64 `json:"inst_id"`
		} `json:"runs"`
		Movers *struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"movers"`
	}
	w.cli(&tr, args...)
	var want []string
	for _, r := range tr.Runs {
		want = append(want, strconv.FormatInt(r.InstID, 10))
	}
	got := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("#t-trend-runs tbody tr")).map(r => r.dataset.inst)`)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(want) == 0 {
		t.Errorf("%s: runs %v, %s --json %v", w.location().RequestURI(), got, strings.Join(args, " "), want)
	}
	points := chromiumtest.Eval[[]string](t, w.tab, `Array.from(new Set(Array.from(document.querySelectorAll("a.point")).map(a => a.dataset.inst)))`)
	if strings.Join(points, ",") != strings.Join(want, ",") {
		t.Errorf("%s: points for runs %v, want one for each of %v", w.location().RequestURI(), points, want)
	}
	var movers []string
	if tr.Movers != nil {
		for _, m := range tr.Movers.Items {
			movers = append(movers, termtext.Name(m.Name))
		}
	}
	if got := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("#t-trend-movers tbody tr")).map(r => r.dataset.name)`); strings.Join(got, "|") != strings.Join(movers, "|") {
		t.Errorf("%s: movers %q, %s --json %q", w.location().RequestURI(), got, strings.Join(args, " "), movers)
	}
}

// checkTraceRun checks the page of function trace inst against show
// --json: each routine's own time, a flame graph box for each.
func (w *browserWalk) checkTraceRun(inst int64) {
	t := w.t
	t.Helper()
	id := strconv.FormatInt(inst, 10)
	var s struct {
		Trace struct {
			ByOwn struct {
				Items []struct {
					Name string `json:"name"`
					Own  int64  `json:"own_time"`
				} `json:"items"`
			} `json:"by_own_time"`
		} `json:"function_trace"`
	}
	w.cli(&s, "show", id)
	var want []string
	for _, r := range s.Trace.ByOwn.Items {
		want = append(want, r.Name+"="+strconv.FormatInt(r.Own, 10))
	}
	got := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("#t-`+id+`-own tbody tr")).map(r => r.dataset.routine + "=" + r.dataset.own)`)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(want) == 0 {
		t.Errorf("trace %d: own times %v, show --json %v", inst, got, want)
	}
	if h := chromiumtest.Eval[string](t, w.tab, `document.querySelector("div.headline").textContent`); h != w.headline(inst) {
		t.Errorf("trace %d: headline %q, show prints %q", inst, h, w.headline(inst))
	}
	if n := chromiumtest.Eval[int](t, w.tab, `document.querySelectorAll("svg.flame rect").length`); n < len(want) {
		t.Errorf("trace %d: %d flame graph boxes, fewer than the %d routines", inst, n, len(want))
	}
}

// checkTraceCompare checks the comparison of traces a and b against
// compare --json: each routine's change of own time, and the
// differential flame graph.
func (w *browserWalk) checkTraceCompare(a, b int64) {
	t := w.t
	t.Helper()
	var c struct {
		Trace struct {
			Routines struct {
				Items []struct {
					Namespace string `json:"namespace"`
					Class     string `json:"class"`
					Name      string `json:"name"`
					Own       struct {
						A float64 `json:"a"`
						B float64 `json:"b"`
					} `json:"own_time"`
				} `json:"items"`
			} `json:"routines"`
		} `json:"function_trace"`
	}
	w.cli(&c, "compare", strconv.FormatInt(a, 10), strconv.FormatInt(b, 10))
	var want []string
	for _, r := range c.Trace.Routines.Items {
		want = append(want, readback.FullName(r.Namespace, r.Class, r.Name)+fmt.Sprintf("=%.0f", r.Own.B-r.Own.A))
	}
	got := chromiumtest.Eval[[]string](t, w.tab, `Array.from(document.querySelectorAll("#t-cmp-routines tbody tr")).map(r => r.dataset.routine + "=" + r.dataset.ownDelta)`)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(want) == 0 {
		t.Errorf("compare %d %d: own time changes %v, compare --json %v", a, b, got, want)
	}
	if n := chromiumtest.Eval[int](t, w.tab, `document.querySelectorAll("#view-compare svg.flame rect").length`); n < len(want) {
		t.Errorf("compare %d %d: %d boxes in the differential flame graph, fewer than the %d routines", a, b, n, len(want))
	}
}

// TestServeRunsPageScreenshot opens the runs page of profdb serve over the
// shipped examples, each exported twice on main with a run identity, in
// headless Chromium: it shows every run, with no problem recorded. With
// PROFDB_SCREENSHOTS set to a folder, its screenshot is kept there as
// serve-runs.png (docs/serve.png, which README.md shows, is one).
func TestServeRunsPageScreenshot(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	dsn := dbtest.Fresh(t, "sqlite")
	n := 0
	for round := 0; round < 2; round++ {
		for _, name := range exampletest.Names {
			n++
			run := &resultset.Run{Commit: fmt.Sprintf("%x", sha1.Sum([]byte{byte(round)})), Branch: "main", CI: "github-actions",
				BuildID: strconv.Itoa(410 + round), BuildURL: fmt.Sprintf("https://ci.example/app/actions/runs/%d", 410+round),
				Labels: map[string]string{"suite": "nightly"}}
			if _, err := exampletest.ExportRun(context.Background(), "../..", dsn, name, run); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv := servetest.Serve(t, dsn, serve.Options{})
	tab, log := chromiumtest.Tab(t, ctx, 0, func(u string) bool { return strings.HasPrefix(u, srv.URL+"/") })
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 410)); err != nil {
		t.Fatal(err)
	}
	w := &browserWalk{t: t, tab: tab, log: log, base: srv.URL, dsn: dsn, fetched: map[string]struct{}{}}
	w.navigate("/", 200)
	if rows := chromiumtest.Eval[int](t, tab, `document.querySelectorAll("#t-runs tbody tr").length`); rows != n {
		t.Errorf("the runs page shows %d runs, want %d", rows, n)
	}
	shot, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	chromiumtest.NotBlank(t, "runs", shot)
	if dir := os.Getenv("PROFDB_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "serve-runs.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
