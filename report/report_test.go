package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	_ "github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// render writes the report of dsn's result sets.
func render(t testing.TB, dsn string, o report.Options) string {
	t.Helper()
	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := report.Write(ctx, r, &b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func example(t testing.TB, name string) exampletest.Example {
	t.Helper()
	ex, err := exampletest.Load("..", name)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// sourceRoot writes stand-ins for the coverage example's source files
// named in withSources (as long as their last line) under a temporary
// folder, at the tail of their Windows paths.
func sourceRoot(t testing.TB, lc exampletest.Example, withSources map[string]bool) string {
	root := t.TempDir()
	for file, n := range lc.MaxLine() {
		if !withSources[file] {
			continue
		}
		rel := strings.ReplaceAll(strings.TrimPrefix(file, `C:\`), `\`, "/")
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := int64(1); i <= n; i++ {
			fmt.Fprintf(&b, "source line %d\n", i)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestReportHoldsTheExamplesFigures(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			ids, err := exampletest.Export(context.Background(), "..", dsn)
			if err != nil {
				t.Fatal(err)
			}
			lc := example(t, "light-coverage")
			cov := lc.FileCoverage()
			withSrc := `C:\src\sample\config.cpp`
			if len(ids) != len(exampletest.Names) || len(cov) < 2 || cov[withSrc][1] == 0 {
				t.Fatalf("examples exported as %v, coverage of %d files (%s: %v): too little to check the report by", ids, len(cov), withSrc, cov[withSrc])
			}
			page := render(t, dsn, report.Options{SourceRoot: sourceRoot(t, lc, map[string]bool{withSrc: true})})
			checkPage(t, page)
			// Index: one row per result set.
			for p, id := range ids {
				if !strings.Contains(page, fmt.Sprintf(`<tr data-inst="%d">`, id)) || !strings.Contains(page, `id="view-inst-`+fmt.Sprint(id)+`" data-profiler="`+p+`"`) {
					t.Errorf("no index row or view for %s (INST_ID %d)", p, id)
				}
			}
			// Every file's % covered.
			for file, c := range cov {
				row := rowOf(t, page, `data-name="`+html.EscapeString(file)+`"`)
				if want := ">" + readback.Percent(c[0], c[1]) + "<"; !strings.Contains(row, want) {
					t.Errorf("file %s: row %s lacks %s", file, row, want)
				}
			}
			// The file with sources is shown as source, its lines marked;
			// the others' lines are in the line table.
			if n := strings.Count(page, `<div class="hit">`); int64(n) != cov[withSrc][0] {
				t.Errorf("%d covered source lines, want %d", n, cov[withSrc][0])
			}
			if n := strings.Count(page, `<div class="miss">`); int64(n) != cov[withSrc][1]-cov[withSrc][0] {
				t.Errorf("%d uncovered source lines, want %d", n, cov[withSrc][1]-cov[withSrc][0])
			}
			var others int64
			for f, c := range cov {
				if f != withSrc {
					others += c[1]
				}
			}
			table := between(page, `id="t-`+fmt.Sprint(ids["light-coverage"])+`-lines"`, "</table>")
			if n := strings.Count(table, "<tr>") - 1; int64(n) != others {
				t.Errorf("line table has %d lines, want %d", n, others)
			}
			// Own time of every routine, in ticks.
			owns := example(t, "function-trace").OwnTimes()
			if len(owns) == 0 {
				t.Fatal("the function-trace example has no routine own times")
			}
			for name, own := range owns {
				if !strings.Contains(page, fmt.Sprintf(`data-routine="%s" data-own="%d"`, name, own)) {
					t.Errorf("routine %s: own time %d not in the page", name, own)
				}
			}
			if !strings.Contains(page, `<svg class="flame"`) || !strings.Contains(page, `<ul class="tree">`) {
				t.Error("no flame graph or call tree")
			}
			live := example(t, "resource").Sum("RESOURCE_PROFILER_CLASSES_DATA", "COL_LIVE_COUNT")
			if !strings.Contains(page, fmt.Sprintf(`<b class="live-count">%v</b>`, live)) {
				t.Errorf("live count %v not in the page", live)
			}
			objects := example(t, "reference-count").AliveObjects()
			if len(objects) == 0 {
				t.Fatal("the reference-count example has no objects alive")
			}
			for _, o := range objects {
				alive := between(page, `id="t-`+fmt.Sprint(ids["reference-count"])+`-alive"`, "</table>")
				if !strings.Contains(alive, `data-object="`+o+`"`) {
					t.Errorf("object %s not listed alive", o)
				}
			}
		})
	}
}

func TestReportCapsWhatItEmbeds(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	ids, err := exampletest.Export(context.Background(), "..", dsn, "light-coverage", "function-trace")
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, dsn, report.Options{Top: 1, MaxLines: 5, MaxNodes: 3, Inst: []int64{ids["light-coverage"], ids["function-trace"]}})
	checkPage(t, page)
	cov := example(t, "light-coverage").FileCoverage()
	var lines int64
	for _, c := range cov {
		lines += c[1]
	}
	for _, want := range []string{
		fmt.Sprintf("%d more not shown (of %d).", len(cov)-1, len(cov)),
		fmt.Sprintf("%d more lines are not shown (the report embeds at most 5)", lines-5),
		`The call tree holds the 3 heaviest nodes; "(other calls)" sums the rest.`,
		"(other calls)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	table := between(page, `id="t-`+fmt.Sprint(ids["light-coverage"])+`-files"`, "</table>")
	if n := strings.Count(table, "<tr data-name="); n != 1 {
		t.Errorf("%d file rows with Top 1", n)
	}
}

func TestReportErrors(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	if _, err := exampletest.Export(context.Background(), "..", dsn, "resource"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.DB().SQL().ExecContext(ctx, "DROP TABLE RESOURCE_PROFILER_OBJECTS"); err != nil {
		t.Fatal(err)
	}
	r, err := readback.Begin(ctx, db.DB())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		inst []int64
		want string
	}{
		{nil, "table RESOURCE_PROFILER_OBJECTS is missing"},
		{[]int64{5}, "no result set 5 in INSTANCES"},
	} {
		err := report.Write(ctx, r, &bytes.Buffer{}, report.Options{Inst: c.inst})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.inst, err, c.want)
		}
	}
}

// checkPage checks that a page loads nothing: no external resource, no
// URL but the SVG namespace.
func checkPage(t *testing.T, page string) {
	t.Helper()
	if m := regexp.MustCompile(`(?i)\s(src|href)="(https?:|//|file:)[^"]*"|url\(|@import`).FindString(page); m != "" {
		t.Errorf("the page refers to an external resource: %s", m)
	}
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	if m := regexp.MustCompile(`https?://\S+`).FindString(rest); m != "" {
		t.Errorf("the page holds a URL: %s", m)
	}
}

func rowOf(t *testing.T, page, attr string) string {
	t.Helper()
	i := strings.Index(page, "<tr "+attr)
	if i < 0 {
		t.Fatalf("no row %s", attr)
	}
	return between(page[i:], "", "</tr>")
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

// TestReportFoldsDeepCalls: a call chain deeper than the depth cap shows
// as a column MaxDepth calls high with one "(deeper calls)" box on top,
// and the page says how many calls that box folds; a chain within the cap
// shows whole, with no such note.
func TestReportFoldsDeepCalls(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	chain := func(n int) int64 {
		ft := functiontrace.NewBuilder()
		defer ft.Close()
		var rs []*functiontrace.Routine
		for i := range 3 {
			rs = append(rs, ft.AddRoutine(functiontrace.RoutineInfo{Name: fmt.Sprintf("Recurse%d", i), Module: "m.exe"}))
		}
		th := ft.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 7})
		for i := range n {
			if _, err := th.Enter(functiontrace.CallInfo{Routine: rs[i%3], Count: 1, Time: 2, TimeWithChildren: int64(2 * (n - i))}); err != nil {
				t.Fatal(err)
			}
		}
		db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		res, err := resultset.Export(ctx, db, ft.ResultSet(fmt.Sprintf("chain of %d", n)))
		if err != nil {
			t.Fatal(err)
		}
		return res.InstID
	}
	deep, shallow := chain(200), chain(20)
	for _, c := range []struct {
		inst     int64
		maxDepth int
		levels   int // boxes in the flame graph's column: root, thread, calls, folded
		note     string
	}{
		{deep, 0, 2 + readback.DefaultMaxDepth + 1, `72 calls deeper than 128 levels are folded: "(deeper calls)" sums them under the call at that depth.`},
		{deep, 10, 2 + 10 + 1, `190 calls deeper than 10 levels are folded`},
		{shallow, 0, 2 + 20, ""},
	} {
		page := render(t, dsn, report.Options{Inst: []int64{c.inst}, MaxDepth: c.maxDepth})
		checkPage(t, page)
		folded := strings.Contains(page, "calls deeper than")
		if c.note != "" && !strings.Contains(page, c.note) || c.note == "" && folded {
			t.Errorf("INST_ID %d, MaxDepth %d: want the note %q; the page says it: %v", c.inst, c.maxDepth, c.note, folded)
		}
		svg := between(page, `<svg class="flame"`, "</svg>")
		if n := strings.Count(svg, "<rect "); n != c.levels {
			t.Errorf("INST_ID %d, MaxDepth %d: %d boxes in the flame graph, want %d", c.inst, c.maxDepth, n, c.levels)
		}
		if want := c.note != ""; strings.Contains(svg, "(deeper calls)") != want {
			t.Errorf("INST_ID %d, MaxDepth %d: a (deeper calls) box: %v, want %v", c.inst, c.maxDepth, !want, want)
		}
		if n := strings.Count(page, "<details"); n >= c.levels {
			t.Errorf("INST_ID %d, MaxDepth %d: the call tree nests %d levels, want fewer than %d", c.inst, c.maxDepth, n, c.levels)
		}
	}
	// The differential flame graph draws B's tree with the same cap.
	page := render(t, dsn, report.Options{Inst: []int64{shallow, deep}, Compare: []int64{shallow, deep}, MaxDepth: 10})
	checkPage(t, page)
	if want := `190 of B's calls deeper than 10 levels are folded`; !strings.Contains(page, want) {
		t.Errorf("comparison page lacks %q", want)
	}
	if n := strings.Count(between(page, `<svg class="flame diff"`, "</svg>"), "<rect "); n != 2+10+1 {
		t.Errorf("%d boxes in the differential flame graph, want %d", n, 2+10+1)
	}
}
