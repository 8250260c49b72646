package readback_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	_ "github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/profilers"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

var dialectNames = dbtest.Dialects()

// exportExamples exports every example into dsn and returns the INST_ID of
// each profiler's result set.
func exportExamples(t *testing.T, dsn string) map[string]int64 {
	t.Helper()
	ids, err := exampletest.Export(context.Background(), "..", dsn)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func loadExample(t testing.TB, name string) exampletest.Example {
	t.Helper()
	ex, err := exampletest.Load("..", name)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func TestSummaryMatchesExamples(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			ids := exportExamples(t, dsn)
			checkSummaries(t, dsn, ids)
		})
	}
}

func checkSummaries(t *testing.T, dsn string, ids map[string]int64) {
	t.Helper()
	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sum := func(p string) *readback.Summary {
		s, err := r.Summarize(ctx, ids[p], readback.Options{Top: 100})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.Instance.Profiler != p {
			t.Fatalf("INST_ID %d: profiler %q, want %q", ids[p], s.Instance.Profiler, p)
		}
		return s
	}

	lc := loadExample(t, "light-coverage")
	want := lc.FileCoverage()
	c := sum("light-coverage").Coverage
	var wantCov, wantTotal int64
	for _, v := range want {
		wantCov += v[0]
		wantTotal += v[1]
	}
	if c.Lines.Covered != wantCov || c.Lines.Total != wantTotal {
		t.Errorf("lines covered %+v, want %d of %d", c.Lines, wantCov, wantTotal)
	}
	if int(c.Files.Total) != len(want) || len(c.Files.Items) != len(want) {
		t.Fatalf("files %+v, want %d", c.Files, len(want))
	}
	for i, f := range c.Files.Items {
		if w := want[f.Name]; f.Covered != w[0] || f.Total != w[1] {
			t.Errorf("file %s: %d of %d, want %d of %d", f.Name, f.Covered, f.Total, w[0], w[1])
		}
		if i > 0 && f.Percent < c.Files.Items[i-1].Percent {
			t.Errorf("files not worst first: %+v", c.Files.Items)
		}
	}
	if int(c.Routines.Total) != len(lc["LIGHT_COVERAGE_PROFILER_ROUTINES_DATA"]) {
		t.Errorf("routines %+v", c.Routines)
	}

	ft := loadExample(t, "function-trace")
	own := ft.OwnTimes()
	if len(own) == 0 {
		t.Fatal("the function-trace example has no routine own times to compare with")
	}
	tr := sum("function-trace").Trace
	if int(tr.ByOwn.Total) != len(own) {
		t.Fatalf("routines %d, want %d", tr.ByOwn.Total, len(own))
	}
	for i, x := range tr.ByOwn.Items {
		if own[x.Name] != x.Own {
			t.Errorf("%s own time %d, want %d", x.Name, x.Own, own[x.Name])
		}
		if i > 0 && x.Own > tr.ByOwn.Items[i-1].Own {
			t.Errorf("not by own time: %+v", tr.ByOwn.Items)
		}
	}
	if tr.Calls != int64(len(ft["FUNCTION_TRACE_PROFILER_CALL_TRACE"])) || tr.Frequency != 2400000000 {
		t.Errorf("calls %d, frequency %v", tr.Calls, tr.Frequency)
	}

	rs := loadExample(t, "resource")
	live := rs.Sum("RESOURCE_PROFILER_CLASSES_DATA", "COL_LIVE_COUNT")
	res := sum("resource").Resource
	if res.LiveCount.Float() != live || int(res.Classes.Total) != len(rs["RESOURCE_PROFILER_CLASSES_DATA"]) {
		t.Errorf("resource: live %s classes %d, want %v and %d", res.LiveCount, res.Classes.Total, live, len(rs["RESOURCE_PROFILER_CLASSES_DATA"]))
	}
	if int(res.Errors.Total) != len(rs["RESOURCE_PROFILER_ERRORS"]) {
		t.Errorf("errors %d", res.Errors.Total)
	}

	rc := loadExample(t, "reference-count")
	alive := rc.AliveObjects()
	ref := sum("reference-count").ReferenceCount
	var got []string
	for _, o := range ref.Alive.Items {
		got = append(got, fmt.Sprint(o.Number))
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(alive, ",") || int(ref.Objects.Total) != len(rc["REFERENCE_COUNT_PROFILER_OBJECTS"]) {
		t.Errorf("alive objects %v, want %v", got, alive)
	}
}

// TestDBAMadeTables reads result sets exported into tables a DBA made:
// lower-case quoted names and narrower column types.
func TestDBAMadeTables(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			makeDBATables(t, dsn)
			ids := exportExamples(t, dsn)
			checkSummaries(t, dsn, ids)
		})
	}
}

func makeDBATables(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.DB().Dialect()
	narrow := map[ddl.Type]string{ddl.String: "VARCHAR(255)", ddl.Integer: "INT", ddl.Decimal: "DECIMAL(20,4)", ddl.Float: "FLOAT"}
	switch d.Name() {
	case "sqlserver":
		narrow[ddl.String] = "NVARCHAR(255)"
	case "sqlite":
		narrow[ddl.Float] = "REAL"
	default:
		narrow[ddl.Float] = "DOUBLE PRECISION"
	}
	tables := profilers.Shared()
	for _, p := range profilers.All() {
		tables = append(tables, p.Tables...)
	}
	for _, tb := range tables {
		var cols []string
		for _, c := range tb.Columns {
			typ := narrow[c.Type]
			if strings.HasPrefix(c.Name, "COL_ADDRESS") {
				typ = "DECIMAL(28,0)" // addresses are 64-bit unsigned
			}
			cols = append(cols, d.Quote(strings.ToLower(c.Name))+" "+typ)
		}
		s := fmt.Sprintf("CREATE TABLE %s (%s)", dialects.Qualify(d, "", strings.ToLower(tb.Name)), strings.Join(cols, ", "))
		if _, err := db.DB().SQL().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestMissingTableAndUnknownProfiler(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	ids := exportExamples(t, dsn)
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"DROP TABLE LIGHT_COVERAGE_PROFILER_LINES",
		fmt.Sprintf("UPDATE RELATIONS SET COL_CHILD_TABLE = 'MEMORY_PROFILER_' || COL_CHILD_TABLE WHERE INST_ID = %d", ids["resource"]),
	} {
		if _, err := db.DB().SQL().ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readback.Begin(ctx, db.DB())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		inst int64
		want string
	}{
		{ids["light-coverage"], "table LIGHT_COVERAGE_PROFILER_LINES is missing"},
		{ids["resource"], "RELATIONS names tables of a profiler this build does not know"},
		{99, "no result set 99 in INSTANCES"},
	} {
		_, err := r.Summarize(ctx, c.inst, readback.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("INST_ID %d: error %v, want %q", c.inst, err, c.want)
		}
	}
	// The other result sets still read.
	if _, err := r.Summarize(ctx, ids["function-trace"], readback.Options{}); err != nil {
		t.Error(err)
	}
}

// TestNullsRead reads result sets whose identifying columns hold NULLs, as
// hand-written rows may: no error, the rows still count.
func TestNullsRead(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	ids := exportExamples(t, dsn)
	db := dbtest.Open(t, dsn)
	for _, s := range []string{
		"UPDATE LIGHT_COVERAGE_PROFILER_LINES SET COL_SOURCE_LINE = NULL WHERE ID = 0",
		"UPDATE FUNCTION_TRACE_PROFILER_CALL_TRACE SET COL_ROUTINE_NAME = NULL WHERE ID = 0",
		"UPDATE RESOURCE_PROFILER_CREATION_CALL_STACK SET COL_ROUTINERID = NULL",
		"UPDATE REFERENCE_COUNT_PROFILER_OBJECTS SET COL__ = NULL",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for p, id := range ids {
		s, err := r.Summarize(ctx, id, readback.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.Trace != nil {
			if _, err := r.CallTree(ctx, s.Instance, s.Trace, 100); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, x := range s.Trace.ByOwn.Items {
				found = found || (x.RecID == -1 && x.Calls == 1)
			}
			if !found {
				t.Errorf("the call of no routine is not listed apart: %+v", s.Trace.ByOwn.Items)
			}
		}
		if s.Coverage != nil {
			n := 0
			if err := r.Lines(ctx, s.Instance, false, func(readback.Line) bool { n++; return true }); err != nil {
				t.Fatal(err)
			}
			if int64(n) != s.Coverage.Lines.Total {
				t.Errorf("%d lines read, %d counted", n, s.Coverage.Lines.Total)
			}
		}
	}
}
