package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/plantest"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// staleSets are the result sets of a database with stale statistics (see
// staleDatabase): two coverage sets and two traces of one counter, so that
// compare, check --baseline and merge have pairs, and a set of each other
// profiler.
type staleSets struct {
	covA, covB, traceA, traceB, refs, res int64
	// shift is added to a set's INST_ID for its newest copy, which the
	// statistics know nothing of (see staleDatabase).
	shift int64
}

// exportPlanSets exports the sets of staleSets into dsn: coverage sets of
// 1,200 lines, traces of 1,500 calls.
func exportPlanSets(t *testing.T, ctx context.Context, dsn string) staleSets {
	t.Helper()
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var s staleSets
	for i, inst := range []*int64{&s.covA, &s.covB} {
		b := lightcoverage.NewBuilder()
		for f := range 20 {
			for r := range 6 {
				rt := b.AddRoutine(lightcoverage.RoutineInfo{Name: fmt.Sprintf("R%d", r), Class: "C", Module: "app",
					SourceFile: fmt.Sprintf("src/f%02d.go", f)})
				for l := range 10 {
					rt.AddLine(int64(10+r*20+l), int64((l+r+f+i)%3))
				}
			}
		}
		res, err := b.Export(ctx, e, []string{"before", "after"}[i])
		if err != nil {
			t.Fatal(err)
		}
		*inst = res.InstID
	}
	for i, inst := range []*int64{&s.traceA, &s.traceB} {
		b := functiontrace.NewBuilder()
		b.SetCounter(&resultset.Counter{Name: "Time", Frequency: 1000})
		th := b.AddThread(functiontrace.ThreadInfo{})
		var routines []*functiontrace.Routine
		for r := range 40 {
			routines = append(routines, b.AddRoutine(functiontrace.RoutineInfo{Name: fmt.Sprintf("F%d", r), Class: "K"}))
		}
		if _, err := th.Enter(functiontrace.CallInfo{Routine: routines[0], Count: 1, Time: 1, TimeWithChildren: 1 + 3000}); err != nil {
			t.Fatal(err)
		}
		for c := range 1500 {
			if _, err := th.Enter(functiontrace.CallInfo{Routine: routines[1+c%39], Count: 1, Time: int64(2 + i), TimeWithChildren: int64(2 + i)}); err != nil {
				t.Fatal(err)
			}
			if err := th.Exit(); err != nil {
				t.Fatal(err)
			}
		}
		res, err := b.Export(ctx, e, fmt.Sprintf("trace %d", i))
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
		*inst = res.InstID
	}
	for file, inst := range map[string]*int64{"../../examples/reference-count.json": &s.refs, "../../examples/resource.json": &s.res} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		results, err := interchange.Read(ctx, f, file, e)
		f.Close()
		if err != nil || len(results) != 1 {
			t.Fatalf("export %s: %v", file, err)
		}
		*inst = results[0].InstID
	}
	return s
}

// staleDatabase returns the DSN of a fresh database on dialect's server
// whose statistics are stale: the sets of exportPlanSets, the tables
// analysed with them alone and kept from being analysed again (PostgreSQL:
// autovacuum off for them; MariaDB: STATS_AUTO_RECALC=0), then every table
// grown 2^rounds-fold by INSERT … SELECT of copies of its rows under new
// INST_IDs, INSTANCES, RELATIONS and PROFDB_RESULT_SETS too, so that the
// copies are result sets of their own.
func staleDatabase(t *testing.T, ctx context.Context, dialect string, rounds int) (string, staleSets) {
	t.Helper()
	dsn := dbtest.Fresh(t, dialect)
	return dsn, makeStale(t, ctx, dialect, dsn, rounds)
}

// makeStale is staleDatabase in the empty database dsn.
func makeStale(t *testing.T, ctx context.Context, dialect, dsn string, rounds int) staleSets {
	t.Helper()
	sets := exportPlanSets(t, ctx, dsn)
	admin := dbtest.Open(t, dsn)
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := d.Tables(ctx, admin, "")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := admin.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tb := range tables {
		q := d.Quote(tb)
		switch dialect {
		case "postgres":
			exec("ALTER TABLE " + q + " SET (autovacuum_enabled = false)")
			exec("ANALYZE " + q)
		case "mysql":
			exec("ALTER TABLE " + q + " STATS_AUTO_RECALC = 0")
			exec("ANALYZE TABLE " + q)
		}
	}
	cols := map[string][]dialects.ColumnInfo{}
	for _, tb := range tables {
		if cols[tb], err = d.Columns(ctx, admin, "", tb); err != nil {
			t.Fatal(err)
		}
	}
	for range rounds {
		var maxInst, maxRel int64
		if err := admin.QueryRowContext(ctx, "SELECT MAX("+d.Quote(d.StoredName("INST_ID"))+") FROM "+d.Quote(d.StoredName(profilers.ResultSetsTable))).Scan(&maxInst); err != nil {
			t.Fatal(err)
		}
		sets.shift += maxInst // each round copies the copies too
		if err := admin.QueryRowContext(ctx, "SELECT MAX("+d.Quote(d.StoredName("ID"))+") FROM "+d.Quote(d.StoredName(profilers.RelationsTable))).Scan(&maxRel); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			var names, exprs []string
			for _, c := range cols[tb] {
				q := d.Quote(c.Name)
				names = append(names, q)
				switch {
				case strings.EqualFold(c.Name, "INST_ID"):
					q = fmt.Sprintf("%s + %d", q, maxInst)
				case strings.EqualFold(c.Name, "ID") && strings.EqualFold(tb, profilers.RelationsTable):
					q = fmt.Sprintf("%s + %d", q, maxRel)
				}
				exprs = append(exprs, q)
			}
			exec(fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", d.Quote(tb), strings.Join(names, ", "), strings.Join(exprs, ", "), d.Quote(tb)))
		}
	}
	return sets
}

// planTables returns plantest.ResultSetTables of the database dsn names.
func planTables(t *testing.T, ctx context.Context, dsn string) map[string]bool {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := plantest.ResultSetTables(ctx, dbtest.Open(t, dsn), d)
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

// oneRowPerSet are the tables that hold one row of each result set: a
// nested loop that looks one up by INST_ID for each outer row reads a row
// each time.
var oneRowPerSet = map[string]bool{profilers.InstancesTable: true, profilers.ResultSetsTable: true}

// planFaults returns what is wrong with the plan p of a statement of a
// command that works on one or a few result sets: an EXPLAIN that failed,
// JIT compilation, parallel workers, a table of tables (planTables) read
// otherwise than by INST_ID (plantest.Scan.ByInstID: a sequential scan, a
// whole index, an index whose first bounded column is another), and one read
// again for each row of a nested loop's outer side (plantest.Scan.PerRow,
// on PostgreSQL and MariaDB: rows × rows) unless it is oneRowPerSet's.
func planFaults(st plantest.Statement, tables map[string]bool) []string {
	if st.PlanErr != nil {
		return []string{fmt.Sprintf("no plan: %v", st.PlanErr)}
	}
	p := st.Plan
	var out []string
	if p.JIT {
		out = append(out, "compiled with JIT")
	}
	if p.Workers > 0 {
		out = append(out, fmt.Sprintf("%d parallel workers", p.Workers))
	}
	for _, sc := range p.Scans {
		if !tables[strings.ToUpper(sc.Table)] {
			continue // the catalogue, a derived table
		}
		if sc.PerRow && !oneRowPerSet[strings.ToUpper(sc.Table)] {
			out = append(out, fmt.Sprintf("%s read again for each row of a nested loop's outer side (index %q on %v, %.0f rows estimated)", sc.Table, sc.Index, sc.Columns, sc.Rows))
			continue
		}
		if sc.ByInstID() {
			continue
		}
		out = append(out, fmt.Sprintf("%s read by %s (index %q on %v, %.0f rows)", sc.Table, sc.Method, sc.Index, sc.Columns, sc.Rows))
	}
	return out
}

// TestPlansWithStaleStatistics: on a database whose statistics are stale
// (staleDatabase), every statement of show, compare, check --baseline,
// report, verify --inst, copy --inst, merge, delete --inst and export is
// planned to read each table of result sets through an index on INST_ID,
// none of them again for each row of another table, with no parallel
// workers and no JIT compilation. Each statement is
// explained on its own connection, in its own transaction, just before it
// runs (package plantest), so the plans are those the commands get. That
// the statistics mislead is checked first: PostgreSQL, outside profdb's
// settings, plans a sequential scan for a result set's rows; MariaDB's
// persistent statistics count a fraction of the rows.
func TestPlansWithStaleStatistics(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql"} {
		t.Run(dialect, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			dsn, s := staleDatabase(t, ctx, dialect, staleRounds)
			tables := planTables(t, ctx, dsn)
			misled(t, ctx, dialect, dsn, s.covA)

			sqlDB, d, rec := plantest.Open(t, dsn, plantest.Options{ExplainFirst: true})
			db := store.New(sqlDB, d, store.Options{})
			checked := map[string]int{}
			check := func(command string) {
				t.Helper()
				for _, st := range rec.Take() {
					if !st.Explained() {
						continue // SET, SHOW and the like
					}
					for _, f := range planFaults(st, tables) {
						t.Errorf("%s: %s\n%s %v", command, f, st.Query, st.Args)
					}
					if st.Plan == nil {
						continue
					}
					for _, sc := range st.Plan.Scans {
						if tables[strings.ToUpper(sc.Table)] {
							checked[command]++
						}
					}
					if testing.Verbose() {
						t.Logf("%s: %s %v: JIT %v, %d workers, %v", command, st.Query, st.Args, st.Plan.JIT, st.Plan.Workers, st.Plan.Scans)
					}
				}
			}
			rec.Take()
			read := func(command string, f func(r *readback.Reader) error) {
				t.Helper()
				r, err := readback.Begin(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				err = f(r)
				r.Close()
				if err != nil {
					t.Fatalf("%s: %v", command, err)
				}
				check(command)
			}
			var copied int64
			admin := dbtest.Open(t, dsn)
			q := fmt.Sprintf("SELECT MAX(%s) FROM %s", d.Quote(d.StoredName("INST_ID")), d.Quote(d.StoredName(coverageLines)))
			if err := admin.QueryRowContext(ctx, q).Scan(&copied); err != nil {
				t.Fatal(err)
			}
			read("show", func(r *readback.Reader) error {
				_, err := r.Summarize(ctx, s.covA, readback.Options{Top: 10})
				return err
			})
			read("show of a copy", func(r *readback.Reader) error {
				_, err := r.Summarize(ctx, copied, readback.Options{Top: 10})
				return err
			})
			read("compare", func(r *readback.Reader) error {
				_, err := compare.Compare(ctx, r, s.covA, s.covB, compare.Options{Top: 10})
				return err
			})
			read("compare of copies", func(r *readback.Reader) error {
				_, err := compare.Compare(ctx, r, s.covA+s.shift, s.covB+s.shift, compare.Options{Top: 10})
				return err
			})
			read("check of a copy", func(r *readback.Reader) error {
				drop := 1.0
				_, err := gate.Check(ctx, r, s.covB+s.shift, gate.Options{Baseline: s.covA + s.shift, MaxDrop: &drop})
				return err
			})
			read("report of copies", func(r *readback.Reader) error {
				return report.Write(ctx, r, io.Discard, report.Options{Inst: []int64{s.covA + s.shift, s.traceA + s.shift, s.refs + s.shift, s.res + s.shift}})
			})
			read("compare of traces", func(r *readback.Reader) error {
				_, err := compare.Compare(ctx, r, s.traceA, s.traceB, compare.Options{Top: 10})
				return err
			})
			read("check", func(r *readback.Reader) error {
				drop, least := 1.0, 10.0
				_, err := gate.Check(ctx, r, s.covB, gate.Options{Baseline: s.covA, MaxDrop: &drop, MinCoverage: &least})
				return err
			})
			read("report", func(r *readback.Reader) error {
				return report.Write(ctx, r, io.Discard, report.Options{Inst: []int64{s.covA, s.traceA, s.refs, s.res}})
			})
			for _, inst := range []int64{s.covA, s.traceA} {
				if _, err := db.Verify(ctx, inst); err != nil {
					t.Fatal(err)
				}
			}
			check("verify --inst")
			dst, err := exporter.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "copy.db"), store.Options{}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			if _, err := exporter.Copy(ctx, db, dst, []int64{s.traceA, s.covB}, exporter.CopyOptions{}); err != nil {
				t.Fatal(err)
			}
			check("copy --inst")
			if _, err := db.DeleteAll(ctx, []int64{s.traceB, copied}); err != nil {
				t.Fatal(err)
			}
			check("delete --inst")
			x := exporter.New(db, exporter.Options{Bulk: exporter.BulkOff}) // plantest hides lib/pq's COPY
			exportFile := func(file string) {
				t.Helper()
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				_, err = interchange.Read(ctx, f, file, x)
				f.Close()
				if err != nil {
					t.Fatalf("export %s: %v", file, err)
				}
				check("export")
			}
			exportFile("../../examples/function-trace.json")
			analysed := analyses(t, ctx, dialect, admin)
			if _, err := merge.Merge(ctx, db, []int64{s.covA, s.covB}, merge.Sum, "", x); err != nil {
				t.Fatal(err)
			}
			check("merge")
			if dialect == "postgres" {
				// The merge grew the coverage tables, whose statistics
				// counted 1/256 of their rows: it analysed them.
				if n := analyses(t, ctx, dialect, admin); n <= analysed {
					t.Errorf("after a merge into a table whose statistics are stale, %s was analysed %d times, before %d", coverageLines, n, analysed)
				}
				if p := planOutsideProfdb(t, ctx, admin, s.covA); len(p.Scans) != 1 || p.Scans[0].Full {
					t.Errorf("after a merge, the statistics still mislead: %v", p.Scans)
				}
			}
			exportFile("../../examples/light-coverage.json")
			for _, command := range []string{"show", "show of a copy", "compare", "compare of copies", "check of a copy", "report of copies", "compare of traces", "check", "report", "verify --inst", "copy --inst", "merge", "delete --inst", "export"} {
				if checked[command] == 0 {
					t.Errorf("%s: no statement read a table of result sets: nothing was checked", command)
				}
			}
		})
	}
}

// coverageLines is the table whose statistics misled checks.
const coverageLines = "LIGHT_COVERAGE_PROFILER_LINES"

// staleRounds doubles the tables of staleDatabase seven times: 128 copies
// of each result set, 768 in all; 307,200 coverage lines, 384,256
// CALL_TRACE rows.
const staleRounds = 7

// misled checks that the statistics of dsn's database are stale: on
// PostgreSQL, a plan outside profdb's transactions reads result set
// inst's coverage lines by a sequential scan; on MariaDB, the persistent
// statistics count less than a tenth of the rows.
func misled(t *testing.T, ctx context.Context, dialect, dsn string, inst int64) {
	t.Helper()
	admin := dbtest.Open(t, dsn)
	switch dialect {
	case "postgres":
		if p := planOutsideProfdb(t, ctx, admin, inst); len(p.Scans) != 1 || !p.Scans[0].Full {
			t.Fatalf("the statistics do not mislead: with the server's settings, the coverage lines of %d are read %v", inst, p.Scans)
		}
	case "mysql":
		var stats, rows int64
		if err := admin.QueryRowContext(ctx, "SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = DATABASE() AND table_name = ?", coverageLines).Scan(&stats); err != nil {
			t.Fatal(err)
		}
		if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+coverageLines).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if stats*10 > rows {
			t.Fatalf("the statistics are not stale: they count %d rows of %d", stats, rows)
		}
	}
}

// planOutsideProfdb returns PostgreSQL's plan, with the server's
// settings, of reading result set inst's coverage lines.
func planOutsideProfdb(t *testing.T, ctx context.Context, admin *sql.DB, inst int64) plantest.Plan {
	t.Helper()
	var plan string
	q := "SELECT * FROM " + strings.ToLower(coverageLines) + " WHERE inst_id = $1"
	if err := admin.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+q, inst).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	p, err := plantest.ReadPlan("postgres", q, plan)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// analyses returns how many times PostgreSQL's statistics say the coverage
// lines table was analysed by ANALYZE (not autovacuum); 0 elsewhere.
func analyses(t *testing.T, ctx context.Context, dialect string, admin *sql.DB) int64 {
	t.Helper()
	if dialect != "postgres" {
		return 0
	}
	var n int64
	if err := admin.QueryRowContext(ctx, "SELECT analyze_count FROM pg_stat_user_tables WHERE relid = $1::regclass", strings.ToLower(coverageLines)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStatisticsAfterExport: on PostgreSQL, an export into tables it did
// not create analyses those whose statistics are stale, through the
// owner's login; through a login that may insert but owns no table
// (export --no-create), it leaves them as they are and says nothing.
func TestStatisticsAfterExport(t *testing.T) {
	dsn := dbtest.Fresh(t, "postgres")
	ctx := t.Context()
	admin := dbtest.Open(t, dsn)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json")
	table := "function_trace_profiler_call_trace"
	analysed := func() int64 {
		t.Helper()
		var n int64
		if err := admin.QueryRowContext(ctx, "SELECT analyze_count FROM pg_stat_user_tables WHERE relid = $1::regclass", table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := analysed(); n != 0 {
		t.Fatalf("the export that created %s analysed it %d times; want none", table, n)
	}
	// Autovacuum, where the server runs it, must not analyse the table
	// first.
	if _, err := admin.ExecContext(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}

	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema, user := u.Query().Get("search_path"), randomName("profdb_ins_")
	for _, st := range []string{
		"CREATE ROLE " + user + " LOGIN",
		"GRANT USAGE ON SCHEMA " + schema + " TO " + user,
		"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA " + schema + " TO " + user,
	} {
		if _, err := admin.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() {
		for _, st := range []string{"DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user} {
			if _, err := admin.Exec(st); err != nil {
				t.Errorf("%s: %v", st, err)
			}
		}
	})
	_, stderr, code := runCLI(t, "export", "--db", withPassword(t, dsn, user), "--no-create", "../../examples/function-trace.json")
	if code != 0 || stderr != "" {
		t.Fatalf("export --no-create through a login that owns no table: exit %d\n%s", code, stderr)
	}
	if n := analysed(); n != 0 {
		t.Errorf("an export through a login that owns no table analysed %s %d times", table, n)
	}
	_, stderr, code = runCLI(t, "export", "--db", dsn, "../../examples/function-trace.json")
	if code != 0 || stderr != "" {
		t.Fatalf("export through the owner's login: exit %d\n%s", code, stderr)
	}
	if n := analysed(); n != 1 {
		t.Errorf("an export through the owner's login into %s, never analysed, analysed it %d times; want 1", table, n)
	}
}
