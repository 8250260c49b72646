package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/srcroottest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
)

// coverageOf exports a coverage result set whose routines lie in files
// (one routine each, two lines: one covered) into a fresh SQLite database
// and returns its DSN.
func coverageOf(t *testing.T, files []string) string {
	t.Helper()
	dsn := dbtest.Fresh(t, "sqlite")
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := lightcoverage.NewBuilder()
	for i, f := range files {
		rt := b.AddRoutine(lightcoverage.RoutineInfo{Name: fmt.Sprintf("F%d", i), Module: "m", SourceFile: f,
			SourceLine: 1, Count: 1, LineLevel: true})
		rt.AddLine(4, 1)
		rt.AddLine(5, 0)
	}
	if _, err := b.Export(ctx, db, "coverage"); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// TestReportReadsOnlyUnderTheSourceRoot runs srcroottest's attacks through
// the report: no secret reaches the page, a refused file is a warning on
// it (and to Warnf), and files under the root are shown as sources.
func TestReportReadsOnlyUnderTheSourceRoot(t *testing.T) {
	tr := srcroottest.New(t)
	legit := []string{tr.Legit, "/home/ci/build/" + tr.Legit, `C:\build\` + strings.ReplaceAll(tr.Legit, "/", `\`)}
	var names []string
	for _, a := range tr.Attacks {
		names = append(names, a.Name)
	}
	dsn := coverageOf(t, append(names, legit...))
	var warnings []string
	page := render(t, dsn, report.Options{SourceRoot: tr.Root,
		Warnf: func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }})
	checkPage(t, page)
	for _, a := range tr.Attacks {
		t.Run(a.What, func(t *testing.T) {
			if a.Secret != "" && strings.Contains(page, a.Secret) {
				t.Errorf("%s: the page holds %s", a.Name, a.Secret)
			}
			if strings.Contains(page, `<summary>`+html.EscapeString(a.Name)+` <span`) {
				t.Errorf("%s is shown as a source", a.Name)
			}
		})
	}
	if leaks := tr.Leaks(html.UnescapeString(page)); len(leaks) > 0 {
		t.Errorf("the page shows %q", leaks)
	}
	if leaks := tr.Leaks(strings.Join(warnings, "\n")); len(leaks) > 0 {
		t.Errorf("warnings show %q", leaks)
	}
	// Each legit name is shown as the source under the root.
	if n := strings.Count(page, html.EscapeString(`// LegitSourceLine is in the file.`)); n != len(legit) {
		t.Errorf("the legit source is shown %d times, want %d", n, len(legit))
	}
	// Those refused (not those not found) are warnings, on the page too.
	for _, want := range []string{
		"source ../../../outside/dotdot.txt refused: it lies outside the source root",
		"source link.go refused: its real path lies outside the source root",
		"source ext/linkdir.go refused: its real path lies outside the source root",
	} {
		if !contains(warnings, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
		if !strings.Contains(page, `<p class="note warning">Warning: `+html.EscapeString(want)+`</p>`) {
			t.Errorf("the page lacks the warning %q", want)
		}
	}
	for _, a := range tr.Attacks {
		if a.Name == "fifo.go" && !contains(warnings, "source fifo.go refused: not a regular file (a FIFO)") {
			t.Errorf("warnings %q lack the FIFO's", warnings)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A refused name's warning is escaped on the page like any name from data.
func TestReportEscapesWarnings(t *testing.T) {
	tr := srcroottest.New(t)
	name := "../../../<img src=x onerror=alert(1)>/\x1b[31m.go"
	page := render(t, coverageOf(t, []string{name}), report.Options{SourceRoot: tr.Root})
	want := `Warning: source ../../../&lt;img src=x onerror=alert(1)&gt;/\x1b[31m.go refused: it lies outside the source root`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	warning := between(page, `<p class="note warning">`, "</p>")
	if strings.Contains(warning, "<img") || strings.Contains(warning, "\x1b") {
		t.Errorf("the warning is not escaped: %q", warning)
	}
}

// Without a source root nothing is read: the line table is shown.
func TestReportWithoutSourceRootReadsNothing(t *testing.T) {
	tr := srcroottest.New(t)
	page := render(t, coverageOf(t, []string{tr.Root + "/" + tr.Legit}), report.Options{})
	if strings.Contains(page, "LegitSourceLine") || !strings.Contains(page, `-lines"`) {
		t.Error("a source is shown without a source root")
	}
}

// A source root that is not a folder is an error.
func TestReportSourceRootMustBeAFolder(t *testing.T) {
	tr := srcroottest.New(t)
	ctx := context.Background()
	r, err := readback.Open(ctx, coverageOf(t, []string{tr.Legit}), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, dir := range []string{tr.Root + "/go.mod", tr.Root + "/none"} {
		err := report.Write(ctx, r, &bytes.Buffer{}, report.Options{SourceRoot: dir})
		if err == nil || !strings.Contains(err.Error(), "report: source root") {
			t.Errorf("%s: %v", dir, err)
		}
	}
}
