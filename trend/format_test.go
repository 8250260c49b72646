package trend_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/goldentest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// A Go user rendering a Trend gets the text, JSON and CSV `profdb trend`
// prints (cmd/profdb's TestTrendIsTheLibrarys checks the command against
// the library): each profiler's trend, one file's and one routine's, at a
// wide and a narrow width. The export times, which the clock sets, are
// replaced by fixed ones.
func TestWriteTextJSONCSV(t *testing.T) {
	ctx := ctxT(t)
	dsn := dbtest.Fresh(t, "sqlite")
	if _, err := trendtest.Export(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	r := begin(t, ctx, dsn)
	for _, c := range []struct {
		name string
		o    trend.Options
	}{
		{"coverage", trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name, Branch: "main"}}},
		{"coverage-file", trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name, Branch: "main"}, File: trendtest.HostileFile}},
		{"coverage-routine-top1", trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name}, Routine: "odd", Top: 1}},
		{"trace-routine", trend.Options{Filter: store.Filter{Profiler: functiontrace.Name}, Routine: "app.work"}},
		{"resource", trend.Options{Filter: store.Filter{Profiler: resource.Name}}},
		{"reference-count", trend.Options{Filter: store.Filter{Profiler: referencecount.Name}}},
		{"one-run", trend.Options{Filter: store.Filter{Profiler: resource.Name, Last: 1}}},
	} {
		tr, err := trend.Compute(ctx, r, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range tr.Runs {
			tr.Runs[i].ExportedAt = fmt.Sprintf("2026-01-02T03:04:%02dZ", i)
		}
		for _, width := range []int{100, 40} {
			var b bytes.Buffer
			if err := tr.WriteText(&b, width); err != nil {
				t.Fatal(err)
			}
			if bytes.ContainsAny(b.Bytes(), "\x1b\r") {
				t.Errorf("%s: text holds a control character from the data:\n%q", c.name, b.String())
			}
			goldentest.Check(t, fmt.Sprintf("%s-w%d.txt", c.name, width), b.Bytes(), *update)
		}
		var b bytes.Buffer
		if err := tr.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(b.Bytes(), "\x1b") {
			t.Errorf("%s: JSON holds a terminal escape", c.name)
		}
		goldentest.Check(t, c.name+".json", b.Bytes(), *update)
		b.Reset()
		if err := tr.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		goldentest.Check(t, c.name+".csv", b.Bytes(), *update)
		rows, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
		if err != nil {
			t.Fatalf("%s: CSV does not read back: %v", c.name, err)
		}
		if len(rows) != len(tr.Runs)+1 || len(rows[0]) != 7+len(tr.Series) {
			t.Errorf("%s: CSV has %d rows of %d cells for %d runs and %d series", c.name, len(rows), len(rows[0]), len(tr.Runs), len(tr.Series))
		}
		for _, row := range rows[1:] {
			for _, cell := range row[1:7] {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) || strings.ContainsAny(cell, "\x1b\r\n") {
					t.Errorf("%s: CSV cell %q starts a formula", c.name, cell)
				}
			}
			if c.name == "coverage" && row[0] == fmt.Sprint(tr.Runs[0].InstID) && row[6] != `"=cmd|' /C calc'!A0\x1b[2J"` {
				t.Errorf("hostile caption in CSV: %q", row[6])
			}
		}
	}
}

func TestSparkline(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		in   []*float64
		want string
	}{
		{[]*float64{f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7)}, "▁▂▃▄▅▆▇█"},
		{[]*float64{f(10), nil, f(20)}, "▁ █"},
		{[]*float64{f(3), f(3)}, "▄▄"},
		{[]*float64{nil}, " "},
		{nil, ""},
	} {
		if got := trend.Sparkline(c.in); got != c.want {
			t.Errorf("Sparkline %v = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCSVText(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(A1)": "'@SUM(A1)",
		"\tx": `"\tx"`, "\rx": `"\rx"`, "a\x1b[2J": `"a\x1b[2J"`, "main": "main", "feature/x": "feature/x", "": ""} {
		if got := trend.CSVText(in); got != want {
			t.Errorf("CSVText(%q) = %q, want %q", in, got, want)
		}
	}
}
