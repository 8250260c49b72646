package integration

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Ctx returns a context that ends with the test, after at most ten
// minutes.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// OpenExporter opens an exporter on dsn, closed when the test ends.
func OpenExporter(t testing.TB, dsn string, so store.Options, o exporter.Options) *exporter.Exporter {
	t.Helper()
	db, err := exporter.Open(Ctx(t), dsn, so, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Counts returns the rows of every table the database has in schema, by
// upper-case name.
func Counts(t testing.TB, db *store.DB, schema string) map[string]int64 {
	t.Helper()
	ctx := Ctx(t)
	d := db.Dialect()
	names, err := d.Tables(ctx, db.SQL(), schema)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, n := range names {
		var c int64
		if err := db.SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dialects.Qualify(d, schema, n)).Scan(&c); err != nil {
			t.Fatal(err)
		}
		out[strings.ToUpper(n)] = c
	}
	return out
}

// Export exports the fixture and fails the test on error.
func Export(t testing.TB, db resultset.Target, f *Fixture) resultset.Result {
	t.Helper()
	res, err := resultset.Export(Ctx(t), db, f.ResultSet())
	if err != nil {
		t.Fatalf("export %s %q: %v", f.Header.Profiler, f.Header.Caption, err)
	}
	return res
}

// Conformance runs the checks every target must pass, each in a fresh
// namespace of the target (golang-migrate's shared driver tests are the
// model):
//
//   - dialect: dialecttest.Run, the suite every dialect passes: the DDL of
//     every table runs twice (idempotent), Dialect.Tables and
//     Dialect.Columns describe it as the plugins define it, edge values
//     round-trip through INSERT, one INSERT at the parameter limit runs,
//     the consumer query runs;
//   - round-trip: a result set of every profiler with every column filled
//     with edge values is exported (native bulk path and batched INSERT)
//     and read back value for value;
//   - list-verify-delete: List, Verify and Delete on those result sets;
//   - rollback: a result set whose row fails after earlier batches were
//     sent leaves nothing behind;
//   - concurrent: eight exporters at once get distinct INST_IDs and write
//     every row;
//   - consumer-query: dialecttest.ConsumerQuery runs unchanged on what the
//     exporter wrote and returns the exported lines.
func Conformance(t *testing.T, tg Target) {
	t.Run("dialect", func(t *testing.T) { checkDialect(t, tg) })
	t.Run("round-trip", func(t *testing.T) { checkRoundTrip(t, tg) })
	t.Run("rollback", func(t *testing.T) { checkRollback(t, tg) })
	t.Run("concurrent", func(t *testing.T) { checkConcurrent(t, tg) })
	t.Run("consumer-query", func(t *testing.T) { checkConsumerQuery(t, tg) })
}

// RunDDL runs the DDL statements of tables (Dialect.CreateTableIn) on dsn.
func RunDDL(t testing.TB, dsn, schema string, tables []ddl.Table) {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := Open(t, dsn)
	for _, tb := range tables {
		for _, st := range d.CreateTableIn(schema, tb) {
			if _, err := db.ExecContext(Ctx(t), st); err != nil {
				t.Fatalf("%v\n%s", err, st)
			}
		}
	}
}

// checkDialect runs dialecttest.Run in a fresh namespace of the target,
// the catalogue created in the namespace by name as well where it is a
// schema (PostgreSQL) or database (MySQL).
func checkDialect(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	d, err := dialects.Lookup(tg.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	db := Open(t, ns.DSN)
	cfg := dialecttest.Config{NoSubnormals: !resultsettest.KeepsSubnormals(tg.Dialect)}
	switch tg.Dialect {
	case "postgres":
		cfg.Schema, cfg.NoNUL = ns.Name, true
	case "mysql":
		cfg.Schema = ns.Name
	case "sqlserver":
		babelfish, err := sqlserver.IsBabelfish(Ctx(t), db)
		if err != nil {
			t.Fatal(err)
		}
		cfg.NoNUL = babelfish // PostgreSQL underneath
	}
	dialecttest.Run(t, d, db, cfg)
}

func checkRoundTrip(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	var sets []*Fixture
	var modes []exporter.BulkMode
	for _, mode := range []exporter.BulkMode{exporter.BulkAuto, exporter.BulkOff} {
		for _, p := range profilers.Names() {
			sets = append(sets, resultsettest.Full(t, p, fmt.Sprintf("%s bulk=%s ✓ 'q'", p, mode), tg.Dialect, 4, false))
			modes = append(modes, mode)
		}
	}
	dbs := map[exporter.BulkMode]*exporter.Exporter{
		exporter.BulkAuto: OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{Bulk: exporter.BulkAuto}),
		exporter.BulkOff:  OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{Bulk: exporter.BulkOff}),
	}
	for i, f := range sets {
		res := Export(t, dbs[modes[i]], f)
		if res.InstID != int64(i+1) || res.Rows != f.Rows() {
			t.Fatalf("export %d: %+v, want INST_ID %d and %d rows", i+1, res, i+1, f.Rows())
		}
	}
	db := dbs[exporter.BulkOff]
	for i, f := range sets {
		resultsettest.CompareStored(t, db.DB(), int64(i+1), f)
	}

	t.Run("list-verify-delete", func(t *testing.T) {
		ctx := Ctx(t)
		list, err := db.DB().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(sets) {
			t.Fatalf("List: %d result sets, want %d", len(list), len(sets))
		}
		for i, l := range list {
			f := sets[i]
			if l.InstID != int64(i+1) || l.Profiler != f.Header.Profiler || l.Caption != f.Header.Caption || l.Rows != f.Rows() {
				t.Errorf("List[%d] = %d %s %q %d rows; want %d %s %q %d", i, l.InstID, l.Profiler, l.Caption, l.Rows, i+1, f.Header.Profiler, f.Header.Caption, f.Rows())
			}
			for _, ft := range f.Tables {
				if l.Tables[ft.Name] != int64(len(ft.Rows)) {
					t.Errorf("List[%d] %s: %d rows, want %d", i, ft.Name, l.Tables[ft.Name], len(ft.Rows))
				}
			}
		}
		if fs, err := db.DB().Verify(ctx, 0); err != nil || len(fs) != 0 {
			t.Fatalf("Verify: %v %v", fs, err)
		}
		n, err := db.DB().Delete(ctx, 3)
		if want := sets[2].Rows(); err != nil || n != want {
			t.Fatalf("Delete(3) = %d, %v; want %d rows, the profiler rows List counts", n, err, want)
		}
		if _, err := db.DB().Delete(ctx, 3); err == nil || !strings.Contains(err.Error(), "no result set 3") {
			t.Errorf("second Delete(3): %v", err)
		}
		if _, err := db.DB().Read(ctx, 3); err == nil {
			t.Error("Read(3) after Delete succeeds")
		}
		list, _ = db.DB().List(ctx)
		if len(list) != len(sets)-1 || list[2].InstID != 4 {
			t.Errorf("List after Delete: %+v", list)
		}
		if fs, err := db.DB().Verify(ctx, 0); err != nil || len(fs) != 0 {
			t.Fatalf("Verify after Delete: %v %v", fs, err)
		}
		resultsettest.CompareStored(t, db.DB(), 4, sets[3])
		// A broken link is found.
		d := db.DB().Dialect()
		inst, parent := d.Quote(d.StoredName(ddl.InstID)), d.Quote(d.StoredName(ddl.ParentID))
		upd := fmt.Sprintf("UPDATE %s SET %s = 12345 WHERE %s = 1", dialects.Qualify(d, "", d.StoredName(functiontrace.CallTrace)), parent, inst)
		if sets[0].Header.Profiler == functiontrace.Name {
			if _, err := db.DB().SQL().ExecContext(ctx, upd); err != nil {
				t.Fatal(err)
			}
			fs, err := db.DB().Verify(ctx, 1)
			if err != nil || len(fs) != 1 || fs[0].Table != functiontrace.CallTrace {
				t.Errorf("Verify after breaking a link: %v %v", fs, err)
			}
		}
	})
}

// failingSet is a function-trace result set of n calls whose row bad (1-based)
// holds value in column col.
func failingSet(n, bad int, col string, value any) *Fixture {
	f := &Fixture{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "fails"}}
	f.Tables = []FixtureTable{
		{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"}, Rows: [][]any{{int64(0), int64(-1), int64(0), int64(1)}}},
		{Name: functiontrace.CallTrace, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL__S", "COL_CALL_NO"}},
	}
	for i := 0; i < n; i++ {
		f.Tables[1].Rows = append(f.Tables[1].Rows, []any{int64(i), int64(0), int64(i), int64(i * 3), int64(i)})
	}
	ci := indexOf(f.Tables[1].Columns, col)
	if ci < 0 {
		f.Tables[1].Columns = append(f.Tables[1].Columns, col)
		for i := range f.Tables[1].Rows {
			f.Tables[1].Rows[i] = append(f.Tables[1].Rows[i], nil)
		}
		ci = len(f.Tables[1].Columns) - 1
	}
	f.Tables[1].Rows[bad-1][ci] = value
	return f
}

func checkRollback(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	for _, mode := range []exporter.BulkMode{exporter.BulkAuto, exporter.BulkOff} {
		db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{Bulk: mode})
		seed := resultsettest.Full(t, functiontrace.Name, "seed", tg.Dialect, 3, false)
		first := Export(t, db, seed)
		before := Counts(t, db.DB(), "")
		cases := []struct {
			name string
			set  *Fixture
			want string
		}{
			// Rows 1 to 19999 are sent in several batches before row 20000
			// fails.
			{"text in an integer", failingSet(20000, 20000, "COL__S", "abc"),
				"table FUNCTION_TRACE_PROFILER_CALL_TRACE, column COL__S, row 20000: want an integer"},
		}
		if tg.Dialect == "postgres" {
			// The server refuses NUL in text: a failure of the server's own,
			// after earlier batches were sent.
			cases = append(cases, struct {
				name string
				set  *Fixture
				want string
			}{"NUL refused by the server", nulSet(20000), "FUNCTION_TRACE_PROFILER_CALL_STACK"})
		}
		for _, c := range cases {
			_, err := resultset.Export(Ctx(t), db, c.set.ResultSet())
			if err == nil || !strings.Contains(strings.ToUpper(err.Error()), strings.ToUpper(c.want)) {
				t.Fatalf("bulk=%s %s: error = %v, want %q", mode, c.name, err, c.want)
			}
			if after := Counts(t, db.DB(), ""); !reflect.DeepEqual(before, after) {
				t.Fatalf("bulk=%s %s: rows changed: %v -> %v", mode, c.name, before, after)
			}
		}
		res := Export(t, db, seed)
		if res.InstID != first.InstID+1 {
			t.Errorf("bulk=%s: INST_ID after the failures %d, want %d", mode, res.InstID, first.InstID+1)
		}
		resultsettest.CompareStored(t, db.DB(), res.InstID, seed)
		if fs, err := db.DB().Verify(Ctx(t), 0); err != nil || len(fs) != 0 {
			t.Fatalf("Verify: %v %v", fs, err)
		}
	}
}

// nulSet is a function-trace result set whose last CALL_STACK row holds a
// NUL character, which PostgreSQL text refuses.
func nulSet(n int) *Fixture {
	f := &Fixture{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "nul"}}
	rt := FixtureTable{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID"}, Rows: [][]any{{int64(0), int64(-1)}}}
	cr := FixtureTable{Name: functiontrace.CallRoutes, Columns: []string{"ID", "PARENT_ID"}, Rows: [][]any{{int64(0), int64(0)}}}
	cs := FixtureTable{Name: functiontrace.CallStack, Columns: []string{"ID", "PARENT_ID", "COL_SOURCE_FILE"}}
	for i := 0; i < n; i++ {
		cs.Rows = append(cs.Rows, []any{int64(i), int64(0), fmt.Sprintf("file %d", i)})
	}
	cs.Rows[n-1][2] = "a\x00b"
	f.Tables = []FixtureTable{rt, cr, cs}
	return f
}

// callSet is a function-trace result set of one thread and n calls.
func callSet(caption string, n int) *Fixture {
	f := failingSet(n, 1, "COL_CALL_NO", int64(0))
	f.Header.Caption = caption
	return f
}

func checkConcurrent(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	const workers, rows = 8, 2000
	// The tables exist before the race, as in a database in use.
	Export(t, OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{}), callSet("seed", 1))
	var wg sync.WaitGroup
	results := make([]resultset.Result, workers)
	errs := make([]error, workers)
	sets := make([]*Fixture, workers)
	for i := range workers {
		sets[i] = callSet(fmt.Sprintf("worker %d", i), rows)
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := exporter.BulkAuto
			if i%2 == 1 {
				mode = exporter.BulkOff
			}
			db, err := exporter.Open(Ctx(t), ns.DSN, store.Options{}, exporter.Options{Bulk: mode})
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			results[i], errs[i] = resultset.Export(Ctx(t), db, sets[i].ResultSet())
		}()
	}
	wg.Wait()
	seen := map[int64]int{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("exporter %d: %v", i, err)
		}
		if j, dup := seen[results[i].InstID]; dup {
			t.Fatalf("exporters %d and %d both got INST_ID %d", j, i, results[i].InstID)
		}
		seen[results[i].InstID] = i
	}
	db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	list, err := db.DB().List(Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != workers+1 {
		t.Fatalf("List: %d result sets, want %d", len(list), workers+1)
	}
	for i, r := range results {
		resultsettest.CompareStored(t, db.DB(), r.InstID, sets[i])
	}
	if fs, err := db.DB().Verify(Ctx(t), 0); err != nil || len(fs) != 0 {
		t.Fatalf("Verify: %v %v", fs, err)
	}
	d := db.DB().Dialect()
	var dup int64
	q := fmt.Sprintf("SELECT COUNT(*) - COUNT(DISTINCT %s) FROM %s", d.Quote(d.StoredName(ddl.ID)), dialects.Qualify(d, "", d.StoredName(profilers.RelationsTable)))
	if err := db.DB().SQL().QueryRowContext(Ctx(t), q).Scan(&dup); err != nil || dup != 0 {
		t.Fatalf("RELATIONS IDs repeated: %d %v", dup, err)
	}
	ids := make([]int64, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if ids[0] != 2 || ids[len(ids)-1] != workers+1 {
		t.Errorf("INST_IDs %v, want 2..%d", ids, workers+1)
	}
}

func checkConsumerQuery(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	f, want := CoverageSet("coverage", 3, 4)
	Export(t, OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{}), f)
	query := ns.DSN
	if tg.Name == "citus" {
		// The query joins LINES and SOURCE_FILES_DATA without INST_ID,
		// which on distributed tables means across shards: Citus runs such
		// a join only where repartition joins are allowed
		// (docs/clusters.md, "Citus").
		query += "&citus.enable_repartition_joins=on"
	}
	if got := RunCoverageQuery(t, query); !reflect.DeepEqual(got, want) {
		t.Errorf("the Light Coverage query returns\n%v\nwant\n%v", got, want)
	}
}
