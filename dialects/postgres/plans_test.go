package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/dbtest"
)

// setting returns the value of a setting in the session of q.
func setting(t *testing.T, ctx context.Context, q dialects.DBTX, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRowContext(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFewSetsSettings: the settings hold for the transaction that runs
// them, and end with it.
func TestFewSetsSettings(t *testing.T) {
	db, _ := open(t)
	ctx := t.Context()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := map[string]string{"enable_seqscan": "off", "enable_nestloop": "off", "max_parallel_workers_per_gather": "0", "jit": "off"}
	before := map[string]string{}
	for name := range want {
		before[name] = setting(t, ctx, conn, name)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := dialects.ExecAll(ctx, tx, Dialect{}.FewSetsSettings()); err != nil {
		t.Fatal(err)
	}
	for name, v := range want {
		if got := setting(t, ctx, tx, name); got != v {
			t.Errorf("in the transaction, %s = %s, want %s", name, got, v)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for name, v := range before {
		if got := setting(t, ctx, conn, name); got != v {
			t.Errorf("after the transaction, %s = %s on its connection, want the session's %s again", name, got, v)
		}
	}
}

// TestRefreshStats: a table is analysed when it was never analysed, or
// when more rows changed than autovacuum's threshold; not otherwise, nor
// for a login that does not own it; and ANALYZE does not wait for a lock
// another session holds.
func TestRefreshStats(t *testing.T) {
	db, schema := open(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	exec := func(q dialects.DBTX, stmt string) {
		t.Helper()
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	exec(db, "CREATE TABLE t (inst_id bigint NOT NULL, id bigint) WITH (autovacuum_enabled = false)")
	exec(db, "CREATE INDEX t_inst ON t (inst_id, id)")
	rows := 0
	insert := func(n int) {
		t.Helper()
		exec(db, fmt.Sprintf("INSERT INTO t SELECT %d, g FROM generate_series(1, %d) g", rows+1, n))
		rows += n
	}
	reltuples := func() float64 {
		t.Helper()
		var n float64
		if err := db.QueryRowContext(ctx, "SELECT reltuples FROM pg_class WHERE oid = 't'::regclass").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	refresh := func(q dialects.DBTX, written int, want bool) {
		t.Helper()
		got, err := Dialect{}.RefreshStats(ctx, q, schema, "t", int64(written))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after %d rows written, %d held: RefreshStats says analysed %v, want %v", written, rows, got, want)
		}
	}
	// The server's rule, as the test expects it: 50 rows plus a tenth.
	if th, sf := setting(t, ctx, db, "autovacuum_analyze_threshold"), setting(t, ctx, db, "autovacuum_analyze_scale_factor"); th != "50" || sf != "0.1" {
		t.Skipf("the server's autovacuum_analyze_threshold is %s and scale factor %s; the test expects 50 and 0.1", th, sf)
	}

	insert(1000)
	refresh(db, 1000, true) // never analysed
	if got := reltuples(); got != 1000 {
		t.Fatalf("after RefreshStats, reltuples = %v, want 1000", got)
	}
	insert(60)
	refresh(db, 60, false) // at most 120 changes counted, 150 needed
	if got := reltuples(); got != 1000 {
		t.Errorf("after a refresh that was not needed, reltuples = %v, want 1000", got)
	}
	insert(200)
	refresh(db, 200, true)
	if got := reltuples(); got != float64(rows) {
		t.Errorf("after RefreshStats, reltuples = %v, want %d", got, rows)
	}

	// A login that may insert but does not own the table: nothing, and
	// no error.
	role := "profdb_plans_" + schema
	exec(db, "CREATE ROLE "+role)
	t.Cleanup(func() {
		for _, st := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := db.Exec(st); err != nil {
				t.Errorf("%s: %v", st, err)
			}
		}
	})
	exec(db, "GRANT USAGE ON SCHEMA "+schema+" TO "+role)
	exec(db, "GRANT SELECT, INSERT ON t TO "+role)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec(conn, "SET ROLE "+role)
	insert(1000)
	refresh(conn, 1000, false)
	exec(conn, "RESET ROLE")
	if got := reltuples(); got == float64(rows) {
		t.Errorf("a login that does not own the table analysed it")
	}

	// Another session holds a lock ANALYZE needs: RefreshStats does not
	// wait for it.
	other, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback()
	exec(other, "LOCK TABLE t IN SHARE UPDATE EXCLUSIVE MODE")
	quick, cancelQuick := context.WithTimeout(ctx, 10*time.Second)
	defer cancelQuick()
	if _, err := (Dialect{}).RefreshStats(quick, conn, schema, "t", 1000); err != nil {
		t.Errorf("RefreshStats with the table locked by another session: %v", err)
	}
}

// TestCitusRefreshStats: on a Citus coordinator, a distributed table and a
// reference table are left to the workers (an ANALYZE there would read
// every shard), a plain table of the coordinator is analysed.
func TestCitusRefreshStats(t *testing.T) {
	dsn, schema := citusDSN(t)
	db := dbtest.Open(t, dsn)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for _, st := range []string{
		"CREATE TABLE dist (inst_id bigint NOT NULL, id bigint)",
		"SELECT create_distributed_table('dist', 'inst_id')",
		"CREATE TABLE ref (inst_id bigint PRIMARY KEY)",
		"SELECT create_reference_table('ref')",
		"CREATE TABLE plain (inst_id bigint NOT NULL, id bigint)",
		"INSERT INTO dist SELECT 1, g FROM generate_series(1, 1000) g",
		"INSERT INTO ref SELECT g FROM generate_series(1, 1000) g",
		"INSERT INTO plain SELECT 1, g FROM generate_series(1, 1000) g",
	} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	for table, want := range map[string]bool{"dist": false, "ref": false, "plain": true} {
		got, err := Dialect{}.RefreshStats(ctx, db, schema, table, 1000)
		if err != nil || got != want {
			t.Errorf("RefreshStats(%s) = %v, %v; want %v", table, got, err, want)
		}
	}
}
