package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/postgres"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

// The tests of this file run on the Citus cluster PROFDB_TEST_CITUS names
// (its coordinator; ../shared/citus/start prints it), each in a schema of
// its own, and reach the workers directly where they check what is left on
// them. They skip without it, and fail under CI=true.

// citusSchema returns the DSN of a fresh schema on the Citus coordinator,
// the schema's name, and an admin handle on it.
func citusSchema(t *testing.T) (dsn, schema string, admin *sql.DB) {
	t.Helper()
	dsn = dbtest.Fresh(t, "citus")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, u.Query().Get("search_path"), dbtest.Open(t, dsn)
}

// withHostPort returns dsn pointed at another host:port (a worker) or
// database.
func withHostPort(t *testing.T, dsn, hostPort, database string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if hostPort != "" {
		u.Host = hostPort
	}
	if database != "" {
		u.Path = "/" + database
	}
	return u.String()
}

// citusWorkers returns the host:port of every active worker, sorted.
func citusWorkers(t *testing.T, admin *sql.DB) []string {
	t.Helper()
	rows, err := admin.Query("SELECT node_name, node_port FROM citus_get_active_worker_nodes() ORDER BY 1, 2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var host string
		var port int
		if err := rows.Scan(&host, &port); err != nil {
			t.Fatal(err)
		}
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 2 {
		t.Fatalf("the Citus cluster has %d active workers; the tests need two (../shared/citus/start)", len(out))
	}
	return out
}

// partitions returns, for every table of schema that Citus knows,
// "partmethod/colocationid" by upper-case table name.
func partitions(t *testing.T, admin *sql.DB, schema string) map[string]string {
	t.Helper()
	rows, err := admin.Query(`SELECT c.relname, p.partmethod, p.colocationid FROM pg_dist_partition p
JOIN pg_class c ON c.oid = p.logicalrelid WHERE c.relnamespace = $1::regnamespace`, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, method string
		var coloc int
		if err := rows.Scan(&name, &method, &coloc); err != nil {
			t.Fatal(err)
		}
		out[strings.ToUpper(name)] = method + "/" + strconv.Itoa(coloc)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var citusExamples = []string{"../../examples/function-trace.json", "../../examples/light-coverage.json",
	"../../examples/reference-count.json", "../../examples/resource.json"}

// TestCitusExportDistributes: a plain export into a new schema on a
// Citus coordinator distributes every profiler table by INST_ID, all in
// one co-location group, and makes INSTANCES, RELATIONS and
// PROFDB_RESULT_SETS reference tables; the shards spread over both
// workers; every command (export on both write paths, copy to and from,
// list, verify, show, report, delete, compare, check, merge) works on them. --no-distribute keeps the tables
// plain, and tables that exist already are never distributed.
func TestCitusExportDistributes(t *testing.T) {
	dsn, schema, admin := citusSchema(t)
	citusWorkers(t, admin)
	_, errOut, code := runCLI(t, append([]string{"export", "--db", dsn}, citusExamples...)...)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "distributed by INST_ID") {
		t.Errorf("export said nothing of distributing the tables:\n%s", errOut)
	}
	got := partitions(t, admin, schema)
	all, err := profilers.Tables(profilers.All()...)
	if err != nil {
		t.Fatal(err)
	}
	coloc := ""
	for _, tab := range all {
		p, ok := got[tab.Name]
		ref := postgres.IsReferenceTable(tab) // the shared tables and profdb's own
		switch {
		case !ok:
			t.Errorf("%s is not distributed", tab.Name)
		case ref && !strings.HasPrefix(p, "n/"):
			t.Errorf("%s: %s, want a reference table (n)", tab.Name, p)
		case !ref && !strings.HasPrefix(p, "h/"):
			t.Errorf("%s: %s, want hash-distributed (h)", tab.Name, p)
		case !ref && coloc == "":
			coloc = p
		case !ref && p != coloc:
			t.Errorf("%s: %s, not co-located with the other profiler tables (%s)", tab.Name, p, coloc)
		}
	}
	var nodes int
	if err := admin.QueryRow(`SELECT count(DISTINCT s.nodeport) FROM citus_shards s JOIN pg_class c ON c.oid = s.table_name
WHERE c.relnamespace = $1::regnamespace AND s.citus_table_type = 'distributed'`, schema).Scan(&nodes); err != nil {
		t.Fatal(err)
	}
	if nodes < 2 {
		t.Errorf("the shards of the profiler tables are on %d node(s), want every worker", nodes)
	}
	// Every command, on distributed tables.
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify: %s", out)
	}
	for inst := 1; inst <= 4; inst++ {
		mustRun(t, "show", "--db", dsn, strconv.Itoa(inst))
		mustRun(t, "report", "--db", dsn, "--inst", strconv.Itoa(inst), "-o", filepath.Join(t.TempDir(), "r.html"))
	}
	lite := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
	mustRun(t, "copy", "--from", dsn, "--to", lite)
	mustRun(t, "copy", "--from", lite, "--to", dsn, "--inst", "1")
	mustRun(t, "export", "--db", dsn, "--bulk", "off", citusExamples[0])
	mustRun(t, "delete", "--db", dsn, "--inst", "2")
	mustRun(t, "compare", "--db", dsn, "1", "5")
	mustRun(t, "compare", "--db", dsn, "latest", "latest~1")
	mustRun(t, "show", "--db", dsn, "latest")
	if out := mustRun(t, "list", "--db", dsn, "--last", "2", "--json"); !strings.Contains(out, `"inst_id": 6`) || strings.Contains(out, `"inst_id": 4`) {
		t.Errorf("list --last 2: %s", out)
	}
	mustRun(t, "check", "--db", dsn, "6", "--baseline", "1", "--max-time-increase", "10")
	if out := mustRun(t, "merge", "--db", dsn, "1", "5", "6"); !strings.HasPrefix(out, "INST_ID 7 ") {
		t.Errorf("merge: %s", out)
	}
	list := mustRun(t, "list", "--db", dsn)
	if n := strings.Count(list, "\n"); n != 7 || strings.Contains(list, "unit tests") {
		t.Errorf("list after 6 exports, a delete and a merge:\n%s", list)
	}
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify: %s", out)
	}

	// --no-distribute: plain tables on the coordinator.
	plainDSN, plainSchema, _ := citusSchema(t)
	mustRun(t, "export", "--db", plainDSN, "--no-distribute", citusExamples[0])
	if got := partitions(t, admin, plainSchema); len(got) != 0 {
		t.Errorf("--no-distribute: Citus knows %v", got)
	}
	// Tables that exist (made by profdb ddl, plain) are used as they are,
	// and the tables export adds to such a database stay plain too.
	dbaDSN, dbaSchema, dba := citusSchema(t)
	if _, err := dba.Exec(mustRun(t, "ddl", "--dialect", "postgres", "--profiler", "function-trace")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "export", "--db", dbaDSN, citusExamples[0], citusExamples[1])
	if got := partitions(t, admin, dbaSchema); len(got) != 0 {
		t.Errorf("export distributed tables in a database of plain tables: %v", got)
	}
}

// TestCitusDDLScript: profdb ddl --citus, run twice by psql's rules (here
// statement by statement through the driver), distributes as export does.
func TestCitusDDLScript(t *testing.T) {
	dsn, schema, admin := citusSchema(t)
	script := mustRun(t, "ddl", "--dialect", "postgres", "--citus", "--profiler", "light-coverage")
	for range 2 {
		if _, err := admin.Exec(script); err != nil {
			t.Fatalf("ddl --citus script: %v", err)
		}
	}
	got := partitions(t, admin, schema)
	own := len(profilers.Own())
	if len(got) != 2+own+8 || !strings.HasPrefix(got["INSTANCES"], "n/") || !strings.HasPrefix(got["PROFDB_LABELS"], "n/") || !strings.HasPrefix(got["LIGHT_COVERAGE_PROFILER_LINES"], "h/") {
		t.Errorf("after ddl --citus: %v", got)
	}
	// The tables export adds to the distributed database are distributed.
	mustRun(t, "export", "--db", dsn, citusExamples[1], citusExamples[0])
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify: %s", out)
	}
	if got := partitions(t, admin, schema); len(got) != 2+own+8+10 || !strings.HasPrefix(got["FUNCTION_TRACE_PROFILER_CALL_TRACE"], "h/") {
		t.Errorf("after export into the ddl --citus tables: %v", got)
	}

	// export --sql-out --citus: the tables distributed, the result sets
	// written into them; run twice, the script appends.
	dsn, schema, admin = citusSchema(t)
	script = mustRun(t, append([]string{"export", "--sql-out", "-", "--dialect", "postgres", "--citus"}, citusExamples...)...)
	for run := range 2 {
		if _, err := admin.Exec(script); err != nil {
			t.Fatalf("export --sql-out --citus script, run %d: %v", run+1, err)
		}
	}
	if got := partitions(t, admin, schema); len(got) != 2+own+37 {
		t.Errorf("after export --sql-out --citus: %d tables distributed, want %d: %v", len(got), 2+own+37, got)
	}
	if list := mustRun(t, "list", "--db", dsn); strings.Count(list, "\n") != 9 {
		t.Errorf("list after the script ran twice:\n%s", list)
	}
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify: %s", out)
	}

	// A database of plain tables, one of them holding a result set: the
	// script distributes nothing there (as export would not), and moves
	// no row; what it appends reads back.
	dsn, schema, admin = citusSchema(t)
	mustRun(t, "export", "--db", dsn, "--no-distribute", citusExamples[1])
	for run := range 2 {
		if _, err := admin.Exec(script); err != nil {
			t.Fatalf("export --sql-out --citus script into plain tables, run %d: %v", run+1, err)
		}
	}
	if got := partitions(t, admin, schema); len(got) != 0 {
		t.Errorf("the script distributed tables of a plain database: %v", got)
	}
	if list := mustRun(t, "list", "--db", dsn); strings.Count(list, "\n") != 10 {
		t.Errorf("list after the script ran twice on plain tables:\n%s", list)
	}
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify: %s", out)
	}
}

// TestCitusFlagsUsage: --citus is for postgres scripts, --no-distribute
// for exports into a database.
func TestCitusFlagsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"ddl", "--dialect", "mysql", "--citus"},
		{"script", "--dialect", "sqlite", "--citus", citusExamples[0]},
		{"export", "--citus", citusExamples[0]},
		{"export", "--sql-out", "-", "--dialect", "postgres", "--citus", "--no-create", citusExamples[0]},
		{"export", "--sql-out", "-", "--dialect", "postgres", "--no-distribute", citusExamples[0]},
	} {
		flag := "--citus"
		if slices.Contains(args, "--no-distribute") {
			flag = "--no-distribute"
		}
		if _, errOut, code := runCLI(t, args...); code == 0 || !strings.Contains(errOut, flag) || !strings.Contains(errOut, "for usage") {
			t.Errorf("profdb %s: exit %d, want a usage error naming %s\n%s", strings.Join(args, " "), code, flag, errOut)
		}
	}
}

// recorder records the statements profdb sends, with their arguments.
type recorder struct {
	mu    sync.Mutex
	stmts []recorded
}

type recorded struct {
	query string
	args  []any
}

func (r *recorder) add(q string, args []driver.NamedValue) {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	r.mu.Lock()
	r.stmts = append(r.stmts, recorded{q, vals})
	r.mu.Unlock()
}

// take returns the statements recorded since the last take.
func (r *recorder) take() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}

type recConnector struct {
	driver.Connector
	r *recorder
}

func (c recConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recConn{cn, c.r}, nil
}

// recConn passes everything to lib/pq's connection, recording queries.
type recConn struct {
	driver.Conn
	r *recorder
}

func (c *recConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.r.add(q, args)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *recConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.r.add(q, args)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *recConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.r.add(q, nil)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c *recConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

var (
	taskCount = regexp.MustCompile(`Task Count: (\d+)`)
	dmlQuery  = regexp.MustCompile(`(?is)^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b`)
)

// explainPlans runs EXPLAIN on every SELECT, INSERT, UPDATE and DELETE of
// stmts, with its arguments, and fails for a plan that Citus runs as more
// than one task or with repartitioning or intermediate results. It
// returns how many plans went through Citus.
func explainPlans(t *testing.T, admin *sql.DB, phase string, stmts []recorded) int {
	t.Helper()
	citus, logged := 0, false
	for _, st := range stmts {
		if !dmlQuery.MatchString(st.query) {
			continue
		}
		rows, err := admin.Query("EXPLAIN (COSTS OFF) "+st.query, st.args...)
		if err != nil {
			t.Errorf("%s: EXPLAIN %s: %v", phase, st.query, err)
			continue
		}
		var plan strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		p := plan.String()
		if !strings.Contains(p, "Citus") {
			continue // the catalogue, or no table at all
		}
		citus++
		counts := taskCount.FindAllStringSubmatch(p, -1)
		bad := len(counts) == 0
		for _, c := range counts {
			bad = bad || c[1] != "1"
		}
		for _, word := range []string{"Repartition", "MapMergeJob", "Distributed Subplan", "intermediate result"} {
			bad = bad || strings.Contains(p, word)
		}
		if bad {
			t.Errorf("%s: not a single-shard plan:\n%s\n%s", phase, st.query, p)
		}
		if testing.Verbose() && !logged && strings.Contains(st.query, "_profiler_") {
			logged = true
			t.Logf("%s: a plan:\n%s\n%s", phase, st.query, p)
		}
	}
	return citus
}

// TestCitusSingleShardPlans records every statement profdb sends while it
// exports the four citusExamples (both write paths), verifies, reads back
// (show's figures and copy's read) and deletes one result set, and EXPLAINs
// each on the coordinator: every one that reaches a distributed or
// reference table must run as one task, on one node. The result set is
// the fourth of its database, so that the shards hold other result sets.
func TestCitusSingleShardPlans(t *testing.T) {
	dsn, _, admin := citusSchema(t)
	mustRun(t, "export", "--db", dsn, citusExamples[0], citusExamples[1], citusExamples[2])
	rec := &recorder{}
	drv, err := postgres.Dialect{}.DriverDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := postgres.Dialect{}.Connector(drv, (&net.Dialer{}).DialContext)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB := sql.OpenDB(recConnector{conn, rec})
	defer sqlDB.Close()
	db := store.New(sqlDB, postgres.Dialect{}, store.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rec.take()

	counted := map[string]int{}
	for _, bulk := range []exporter.BulkMode{exporter.BulkAuto, exporter.BulkOff} {
		for _, file := range citusExamples {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			x := exporter.New(db, exporter.Options{Bulk: bulk})
			results, err := interchange.Read(ctx, f, file, x)
			f.Close()
			if err != nil || len(results) != 1 {
				t.Fatalf("export %s: %v", file, err)
			}
			phase := "export " + filepath.Base(file) + " bulk=" + bulk.String()
			counted["export"] += explainPlans(t, admin, phase, rec.take())
			inst := results[0].InstID

			findings, err := db.Verify(ctx, inst)
			if err != nil || len(findings) != 0 {
				t.Fatalf("verify %d: %v %v", inst, findings, err)
			}
			counted["verify"] += explainPlans(t, admin, fmt.Sprintf("verify %d", inst), rec.take())

			r, err := readback.Begin(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Summarize(ctx, inst, readback.Options{Top: 10}); err != nil {
				t.Fatalf("show %d: %v", inst, err)
			}
			r.Close()
			counted["show"] += explainPlans(t, admin, fmt.Sprintf("show %d", inst), rec.take())

			rs, err := db.Read(ctx, inst)
			if err != nil || rs == nil {
				t.Fatalf("read %d: %v", inst, err)
			}
			counted["read"] += explainPlans(t, admin, fmt.Sprintf("read %d", inst), rec.take())

			// Selectors and list's filters read profdb's own tables
			// (reference tables) and count rows by INST_ID.
			if _, err := db.Select(ctx, store.Filter{Profiler: results[0].Profiler, Last: 2, Counted: true}); err != nil {
				t.Fatalf("select: %v", err)
			}
			if _, err := db.Select(ctx, store.Filter{Branch: "main", Labels: map[string]string{"suite": "unit"}, Commit: "abcdef1"}); err != nil {
				t.Fatalf("select: %v", err)
			}
			for _, text := range []string{"latest", "branch:main", fmt.Sprint(inst) + "~1"} {
				s, err := selector.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := (&selector.Resolver{DB: db}).Resolve(ctx, s); err != nil && !errors.As(err, new(*selector.NotFoundError)) {
					t.Fatalf("%s: %v", text, err)
				}
			}
			if _, err := db.Commits(ctx, results[0].Profiler); err != nil {
				t.Fatalf("commits: %v", err)
			}
			counted["select"] += explainPlans(t, admin, fmt.Sprintf("select beside %d", inst), rec.take())

			if _, err := db.DeleteAll(ctx, []int64{inst}); err != nil {
				t.Fatalf("delete %d: %v", inst, err)
			}
			counted["delete"] += explainPlans(t, admin, fmt.Sprintf("delete %d", inst), rec.take())
		}
	}
	for _, phase := range []string{"export", "verify", "show", "read", "select", "delete"} {
		if counted[phase] == 0 {
			t.Errorf("%s: no statement reached a Citus table: nothing was checked", phase)
		}
	}
	t.Logf("single-shard plans checked: %v", counted)
}

// workerRows counts, on each worker directly, the rows of every shard of
// schema's tables, and the prepared transactions the worker holds.
func workerRows(t *testing.T, dsn, schema string, workers []string) (rows map[string]int64, prepared int64) {
	t.Helper()
	rows = map[string]int64{}
	for _, w := range workers {
		wdb := dbtest.Open(t, withHostPort(t, dsn, w, ""))
		names := func() []string {
			r, err := wdb.Query(`SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r'`, schema)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var out []string
			for r.Next() {
				var n string
				if err := r.Scan(&n); err != nil {
					t.Fatal(err)
				}
				out = append(out, n)
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}()
		for _, n := range names {
			var c int64
			if err := wdb.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s", dialects.Qualify(postgres.Dialect{}, schema, n))).Scan(&c); err != nil {
				t.Fatal(err)
			}
			rows[w+" "+n] = c
		}
		var p int64
		if err := wdb.QueryRow("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()").Scan(&p); err != nil {
			t.Fatal(err)
		}
		prepared += p
	}
	return rows, prepared
}

// TestCitusKilledExportLeavesNothingOnWorkers SIGKILLs a child "profdb
// export" while it writes rows into distributed tables, with both write
// paths, and asks every worker directly: no row of it in any shard, no
// prepared transaction left; the next export gets the next INST_ID.
func TestCitusKilledExportLeavesNothingOnWorkers(t *testing.T) {
	bin, small, big, size := faultInputs(t, 400_000)
	for _, bulk := range []string{"auto", "off"} {
		t.Run("bulk="+bulk, func(t *testing.T) {
			dsn, schema, admin := citusSchema(t)
			workers := citusWorkers(t, admin)
			if out, err := profdbCommand(bin, "export", "--db", dsn, "--bulk", bulk, small).CombinedOutput(); err != nil {
				t.Fatalf("first export: %v\n%s", err, out)
			}
			before, _ := workerRows(t, dsn, schema, workers)
			var total int64
			for _, n := range before {
				total += n
			}
			if total == 0 {
				t.Fatal("the workers hold no row of the first export: the tables are not distributed")
			}
			cmd := profdbCommand(bin, "export", "--db", dsn, "--bulk", bulk, "--quiet", big)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(2 * time.Minute)
			killedAt := int64(-1)
			for time.Now().Before(deadline) {
				if n := readBytes(cmd.Process.Pid); n >= size/3 {
					killedAt = n
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatalf("kill: %v (stderr: %s)", err, stderr.String())
			}
			err := cmd.Wait()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || killedAt < 0 {
				t.Fatalf("the export was not killed mid-way (read %d of %d bytes): %v, stderr: %s", killedAt, size, err, stderr.String())
			}
			// The coordinator sees the client gone and rolls back, which
			// takes it a moment; a prepared transaction of another test
			// lasts milliseconds.
			var after map[string]int64
			var prepared int64
			for wait := time.Now().Add(30 * time.Second); ; {
				after, prepared = workerRows(t, dsn, schema, workers)
				if (prepared == 0 && fmt.Sprint(after) == fmt.Sprint(before)) || time.Now().After(wait) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the killed export left rows on the workers:\nbefore %v\nafter  %v", before, after)
			}
			if prepared != 0 {
				t.Errorf("%d prepared transactions left on the workers", prepared)
			}
			if out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput(); err != nil {
				t.Fatalf("verify after kill: %v\n%s", err, out)
			}
			out, err := profdbCommand(bin, "export", "--db", dsn, small).CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "INST_ID 2 ") {
				t.Fatalf("export after kill: %v\n%s", err, out)
			}
		})
	}
}

// exportConcurrently runs n child exports of file at once and returns the
// INST_IDs they report.
func exportConcurrently(t *testing.T, bin, dsn, file string, n int) []int64 {
	t.Helper()
	var wg sync.WaitGroup
	ids := make([]int64, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := profdbCommand(bin, "export", "--db", dsn, file)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[i] = fmt.Errorf("export %d: %v\n%s", i, err, stderr.String())
				return
			}
			if _, err := fmt.Sscanf(string(out), "INST_ID %d ", &ids[i]); err != nil {
				errs[i] = fmt.Errorf("export %d: %q: %v", i, out, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	return ids
}

// TestCitusConcurrentExporters: eight exporters at once, through the
// coordinator, into tables the first of them creates: every one gets an
// INST_ID of its own, and every result set is whole.
func TestCitusConcurrentExporters(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := profdbBin(t)
	dsn, _, _ := citusSchema(t)
	ids := exportConcurrently(t, bin, dsn, citusExamples[0], 8)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("INST_IDs %v, want 1 to 8, each once", ids)
		}
	}
	if out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("verify: %v\n%s", err, out)
	}
}

// contentSums returns, for every table of the database's current schema
// and every INST_ID in it, an md5 of its rows without INST_ID, so that
// result sets of the same input compare equal.
func contentSums(t *testing.T, db *sql.DB) map[int64]string {
	t.Helper()
	rows, err := db.Query(`SELECT table_name FROM information_schema.tables
WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT IN ('instances', 'profdb_result_sets', 'relations')
ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	sums := map[int64]string{}
	for _, tab := range tables {
		q := fmt.Sprintf(`SELECT inst_id, md5(string_agg((to_jsonb(x) - 'inst_id')::text, E'\n' ORDER BY (to_jsonb(x) - 'inst_id')::text))
FROM %s x GROUP BY inst_id`, postgres.Dialect{}.Quote(tab))
		r, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var inst int64
			var sum string
			if err := r.Scan(&inst, &sum); err != nil {
				t.Fatal(err)
			}
			sums[inst] += tab + ":" + sum + " "
		}
		r.Close()
	}
	return sums
}

// TestCitusScaleOut starts a cluster of one worker (a database of its own
// on the test cluster's nodes, with only the first worker registered),
// exports result sets, adds the second worker with citus_add_node and
// rebalances (citus_rebalance_start, citus_rebalance_wait) while exporters
// keep writing: afterwards the shards are on both workers, every result
// set reads back exactly as before, the ones written meanwhile are whole,
// and verify is clean.
func TestCitusScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, makes a database on every node")
	}
	coordDSN := dbtest.DSN(t, "citus")
	coord := dbtest.Open(t, coordDSN)
	workers := citusWorkers(t, coord)
	u, err := url.Parse(coordDSN)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("profdb_scale_%d", time.Now().UnixNano()%1_000_000_000)
	nodes := append([]string{u.Host}, workers[:2]...)
	for _, n := range nodes {
		admin := dbtest.Open(t, withHostPort(t, coordDSN, n, ""))
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			t.Fatalf("%s: create database: %v", n, err)
		}
		t.Cleanup(func() {
			if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
				t.Errorf("%s: drop database: %v", n, err)
			}
		})
		db := dbtest.Open(t, withHostPort(t, coordDSN, n, name))
		if _, err := db.Exec("CREATE EXTENSION citus"); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		db.Close()
	}
	dsn := withHostPort(t, coordDSN, "", name)
	db := dbtest.Open(t, dsn)
	addNode := func(hostPort string) {
		host, port, err := net.SplitHostPort(hostPort)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("SELECT citus_add_node($1, $2)", host, port); err != nil {
			t.Fatalf("citus_add_node %s: %v", hostPort, err)
		}
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SELECT citus_set_coordinator_host($1, $2)", host, port); err != nil {
		t.Fatal(err)
	}
	addNode(workers[0])

	bin := profdbBin(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	writeCallTraceJSON(t, trace, "scale-out", 20_000)
	for _, f := range append(append([]string{}, citusExamples...), trace, trace) {
		if out, err := profdbCommand(bin, "export", "--db", dsn, f).CombinedOutput(); err != nil {
			t.Fatalf("export %s: %v\n%s", f, err, out)
		}
	}
	spread := func() int {
		var n int
		if err := db.QueryRow("SELECT count(DISTINCT nodeport) FROM citus_shards WHERE citus_table_type = 'distributed'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := spread(); n != 1 {
		t.Fatalf("with one worker, the shards are on %d nodes", n)
	}
	before := contentSums(t, db)

	addNode(workers[1])
	// Exporters keep writing while the shards move: the rebalance starts
	// once each has started its first.
	done := make(chan struct{})
	started := make(chan struct{}, 2)
	var during []int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-done:
					return
				default:
				}
				file := citusExamples[(i+k)%len(citusExamples)]
				if k%3 == 2 {
					file = trace
				}
				cmd := profdbCommand(bin, "export", "--db", dsn, file)
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Start()
				if k == 0 {
					started <- struct{}{}
				}
				if err == nil {
					err = cmd.Wait()
				}
				out := stdout.String()
				if err != nil {
					t.Errorf("export during the rebalance: %v\n%s", err, stderr.String())
					return
				}
				var id int64
				if _, err := fmt.Sscanf(out, "INST_ID %d ", &id); err != nil {
					t.Errorf("export during the rebalance: %q: %v", out, err)
					return
				}
				mu.Lock()
				during = append(during, id)
				mu.Unlock()
			}
		}()
	}
	<-started
	<-started
	// wal_level = replica: no logical replication, so the shards move with
	// writes to them blocked meanwhile.
	var job sql.NullInt64
	if err := db.QueryRow("SELECT citus_rebalance_start(shard_transfer_mode := 'block_writes')").Scan(&job); err != nil {
		close(done)
		wg.Wait()
		t.Fatalf("citus_rebalance_start: %v", err)
	}
	_, err = db.Exec("SELECT citus_rebalance_wait()")
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatalf("citus_rebalance_wait: %v", err)
	}
	var status string
	if err := db.QueryRow("SELECT state FROM pg_dist_background_job WHERE job_id = $1", job).Scan(&status); err != nil || status != "finished" {
		t.Fatalf("rebalance job %v: state %q, %v", job, status, err)
	}
	if n := spread(); n != 2 {
		t.Errorf("after the rebalance, the shards are on %d nodes, want 2", n)
	}
	if len(during) == 0 {
		t.Error("no export finished during the rebalance")
	}
	after := contentSums(t, db)
	for inst, sum := range before {
		if after[inst] != sum {
			t.Errorf("INST_ID %d changed in the rebalance", inst)
		}
	}
	// The ones written meanwhile equal the first export of their input.
	byInput := map[string]string{}
	for inst := int64(1); inst <= 6; inst++ {
		byInput[before[inst]] = strconv.FormatInt(inst, 10)
	}
	for _, inst := range during {
		if _, ok := byInput[after[inst]]; !ok {
			t.Errorf("INST_ID %d, exported during the rebalance, matches no input", inst)
		}
	}
	if out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("verify after the rebalance: %v\n%s", err, out)
	}
	t.Logf("%d result sets before, %d exported during the rebalance", len(before), len(during))
}

// TestCitusUpgrade: on a Citus coordinator, export into a database of the
// profdb before run identities adds the identity columns to the reference
// table PROFDB_RESULT_SETS and makes the own tables it creates reference
// tables; ddl --upgrade of an AQTime-made database prints them with the
// calls that make them reference tables, which psql's way of running them
// (here through the driver) carries out.
func TestCitusUpgrade(t *testing.T) {
	dsn, schema, admin := citusSchema(t)
	citusWorkers(t, admin)
	cov, err := filepath.Abs(citusExamples[1])
	if err != nil {
		t.Fatal(err)
	}
	inGitRepo(t)
	mustRun(t, "export", "--db", dsn, "-q", cov)
	oldProfdb(t, dsn)
	mustRun(t, "export", "--db", dsn, "-q", "--label", "suite=unit", cov)
	got := partitions(t, admin, schema)
	for _, tab := range profilers.Own() {
		if !strings.HasPrefix(got[tab.Name], "n/") {
			t.Errorf("after export's upgrade: %s is %q, want a reference table", tab.Name, got[tab.Name])
		}
	}
	if run, ok := runOf(t, dsn, 2); !ok || run == nil || run.CI != "git" || run.Labels["suite"] != "unit" {
		t.Errorf("after export's upgrade: INST_ID 2 listed %v with identity %+v", ok, run)
	}

	dsn, schema, admin = citusSchema(t)
	mustRun(t, "export", "--db", dsn, "-q", cov)
	aqtimeMade(t, dsn)
	script := mustRun(t, "ddl", "--upgrade", "--db", dsn)
	if n := strings.Count(script, "create_reference_table"); n < len(profilers.Own()) {
		t.Errorf("ddl --upgrade on Citus: %d create_reference_table calls, want one per own table:\n%s", n, script)
	}
	if _, err := admin.Exec(script); err != nil {
		t.Fatalf("run the upgrade: %v", err)
	}
	got = partitions(t, admin, schema)
	for _, tab := range profilers.Own() {
		if !strings.HasPrefix(got[tab.Name], "n/") {
			t.Errorf("after ddl --upgrade: %s is %q, want a reference table", tab.Name, got[tab.Name])
		}
	}
	mustRun(t, "export", "--db", dsn, "-q", "--no-create", "--label", "os=linux", cov)
	if run, ok := runOf(t, dsn, 2); !ok || run == nil || run.Labels["os"] != "linux" {
		t.Errorf("after ddl --upgrade: INST_ID 2 listed %v with identity %+v", ok, run)
	}
}
