package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
)

// citusTables are a shared table with a key (as INSTANCES) and a profiler
// table without one.
func citusTables() (shared, profiler ddl.Table) {
	shared = ddl.Table{Name: "INSTANCES", Key: ddl.InstID, Columns: []ddl.Column{
		{Name: "CAPTION", Type: ddl.String}, {Name: ddl.InstID, Type: ddl.Integer, NotNull: true}}}
	profiler = ddl.Table{Name: "X_PROFILER_LINES", Parent: "X_PROFILER_ROUTINES", Columns: []ddl.Column{
		{Name: ddl.InstID, Type: ddl.Integer, NotNull: true}, {Name: ddl.ID, Type: ddl.Integer},
		{Name: ddl.ParentID, Type: ddl.Integer}, {Name: ddl.RecID, Type: ddl.Integer}}}
	return shared, profiler
}

// TestCitusCalls pins the calls profdb makes on Citus: a keyed table
// becomes a reference table, a profiler table is distributed by its
// stored INST_ID column in the default co-location group, names quoted
// and qualified inside the text literal, and the guarded form asks
// pg_dist_partition first.
func TestCitusCalls(t *testing.T) {
	d := Dialect{}
	shared, prof := citusTables()
	if got, want := d.Distribute("it's", shared, nil), []string{
		`SELECT create_reference_table('"it''s"."instances"')`}; strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("shared table: %q, want %q", got, want)
	}
	if got, want := d.Distribute("", prof, nil), []string{
		`SELECT create_distributed_table('"x_profiler_lines"', 'inst_id', colocate_with => 'default')`}; strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("profiler table: %q, want %q", got, want)
	}
	// A script's call: only for a table not distributed yet, empty, and
	// only where INSTANCES is distributed already (or is the table).
	guard := &dialects.ScriptGuard{Anchor: "INSTANCES"}
	g := d.Distribute("s", prof, guard)
	want := `DO $profdb_citus$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = pg_catalog.to_regclass('"s"."x_profiler_lines"'))` +
		` AND NOT EXISTS (SELECT 1 FROM "s"."x_profiler_lines")` +
		` AND EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = pg_catalog.to_regclass('"s"."instances"'))` +
		` THEN PERFORM create_distributed_table('"s"."x_profiler_lines"', 'inst_id', colocate_with => 'default'); END IF; END$profdb_citus$`
	if len(g) != 1 || g[0] != want {
		t.Errorf("guarded:\n%q\nwant\n%q", g, want)
	}
	if g := d.Distribute("s", shared, guard); len(g) != 1 || strings.Contains(g[0], "AND EXISTS") {
		t.Errorf("guarded, the anchor itself: %q", g)
	}
	// A name holding the dollar tag cannot be dollar-quoted with it.
	g = d.Distribute("a$profdb_citus$b", prof, guard)
	if len(g) != 1 || strings.HasPrefix(g[0], "DO") || !strings.Contains(g[0], " WHERE NOT EXISTS") {
		t.Errorf("guarded, tag in the name: %q", g)
	}
}

// citusDSN returns the DSN of a fresh schema on the Citus coordinator
// PROFDB_TEST_CITUS names (the test skips without it, fails under CI).
func citusDSN(t *testing.T) (string, string) {
	t.Helper()
	dsn := dbtest.Fresh(t, "citus")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, u.Query().Get("search_path")
}

// TestCitusDistributes: a Citus coordinator with workers says yes; a
// plain PostgreSQL server says no, and its transaction stays usable.
func TestCitusDistributes(t *testing.T) {
	dsn, _ := citusDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	yes, err := Dialect{}.Distributes(ctx, dbtest.Open(t, dsn))
	if err != nil || !yes {
		t.Errorf("Citus coordinator: Distributes = %v, %v; want true", yes, err)
	}
	plain := dbtest.Open(t, dbtest.DSN(t, "postgres"))
	tx, err := plain.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if yes, err := (Dialect{}).Distributes(ctx, tx); err != nil || yes {
		t.Errorf("plain PostgreSQL: Distributes = %v, %v; want false", yes, err)
	}
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Errorf("the transaction after Distributes: %v", err)
	}
}

// TestCitusConformance runs dialecttest's suite on the Citus coordinator,
// each table distributed as an export distributes it once created, and
// runs the guarded calls of a script again: they do nothing the second
// time. The suite's consumer query (the SonarQube plugin's) joins LINES
// and SOURCE_FILES_DATA without INST_ID, across shards: Citus runs it only
// with repartition joins allowed (docs/clusters.md), which the session
// allows here.
func TestCitusConformance(t *testing.T) {
	dsn, schema := citusDSN(t)
	db := dbtest.Open(t, dsn+"&citus.enable_repartition_joins=on")
	d := Dialect{}
	dialecttest.Run(t, d, db, dialecttest.Config{
		Schema: schema,
		NoNUL:  true,
		Column: createdColumn,
		CheckTable: func(t *testing.T, sch string, tab ddl.Table) {
			checkIndexes(t, db, tab)
			ctx := dialecttest.Context(t)
			for run := range 2 {
				for _, st := range d.Distribute(sch, tab, &dialects.ScriptGuard{Anchor: tab.Name}) {
					if _, err := db.ExecContext(ctx, st); err != nil {
						t.Fatalf("run %d: %s: %v", run+1, st, err)
					}
				}
			}
			var method string
			if err := db.QueryRowContext(ctx, "SELECT partmethod FROM pg_dist_partition WHERE logicalrelid = $1::regclass",
				dialects.Qualify(d, sch, d.StoredName(tab.Name))).Scan(&method); err != nil {
				t.Fatalf("pg_dist_partition of %s: %v", tab.Name, err)
			}
			want := "h"
			if IsReferenceTable(tab) {
				want = "n"
			}
			if method != want {
				t.Errorf("%s: partmethod %s, want %s", tab.Name, method, want)
			}
		},
	})
}
