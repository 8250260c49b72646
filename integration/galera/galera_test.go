package galera_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/integration"
	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var (
	nodes      []string // the DSNs of the three nodes
	origin     string   // where the cluster comes from, for messages
	clusterErr error    // why there is no cluster
	profdbBin  string   // the profdb command, built for the tests
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "profdb-galera-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		profdbBin, err = clitest.Build(context.Background(), dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if env := os.Getenv("PROFDB_TEST_GALERA"); env != "" {
			nodes = strings.Split(env, ",")
			origin = "the cluster $PROFDB_TEST_GALERA names"
			return m.Run()
		}
		// The nodes' data folder, of its own: the script gives it to the
		// mysql user when run as root.
		data, err := os.MkdirTemp("", "profdb-galera-cluster-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(data)
		stop := func() {
			out, err := exec.Command("./cluster", "stop", data).CombinedOutput()
			if err != nil {
				fmt.Fprintf(os.Stderr, "galera: stop the cluster: %v\n%s", err, out)
			}
		}
		// An interrupted run stops the cluster too.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		go func() {
			if _, ok := <-sigs; ok {
				stop()
				os.RemoveAll(dir)
				os.RemoveAll(data)
				os.Exit(1)
			}
		}()
		start := time.Now()
		var out, errOut bytes.Buffer
		cmd := exec.Command("./cluster", "start", data)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			clusterErr = fmt.Errorf("integration/galera/cluster start: %v\n%s", err, errOut.String())
		} else {
			nodes = strings.Fields(out.String())
			origin = fmt.Sprintf("a cluster started by integration/galera/cluster in %.0f s", time.Since(start).Seconds())
		}
		defer stop()
		return m.Run()
	}())
}

// cluster returns the DSNs of the three nodes, or skips the test (fails
// under CI=true) when there is no cluster.
func cluster(t *testing.T) []string {
	t.Helper()
	if len(nodes) != 3 {
		err := clusterErr
		if err == nil {
			err = fmt.Errorf("want 3 node DSNs, got %d", len(nodes))
		}
		if dbtest.InCI() {
			t.Fatalf("no Galera cluster: %v", err)
		}
		t.Skipf("no Galera cluster: %v", err)
	}
	return nodes
}

// fresh makes a private database (through node 1; the cluster replicates
// it) and returns its DSN on each node.
func fresh(t *testing.T) []string {
	t.Helper()
	ns := integration.Target{Name: "galera", Dialect: "mysql", Origin: origin, Server: cluster(t)[0]}.Fresh(t)
	var out []string
	for _, n := range nodes {
		dsn, err := integration.WithNamespace(n, ns.Name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dsn)
	}
	settle(t) // every node has the database
	return out
}

// settle waits until every node has applied every transaction the cluster
// committed, so that reads on any node see them all.
func settle(t *testing.T) {
	t.Helper()
	dbs := make([]*sql.DB, len(nodes))
	for i, n := range nodes {
		dbs[i] = integration.Open(t, n)
	}
	for range 300 {
		var seqs []string
		for _, db := range dbs {
			var name, v string
			if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'wsrep_last_committed'").Scan(&name, &v); err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, v)
		}
		if len(slices.Compact(seqs)) == 1 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the nodes did not settle on one committed transaction in 30 s")
}

func port(dsn string) string {
	u, _ := url.Parse(dsn)
	return u.Port()
}

// TestConcurrentExportersAcrossNodes: eight exporters, spread over the
// three nodes, race for INST_IDs. Each node's GET_LOCK serialises only its
// own exporters, so exporters on different nodes take the same INST_ID and
// the cluster's certification rejects all but one at commit; profdb writes
// those again. Every result set arrives, once, whole, under its own
// INST_ID, as read on every node.
func TestConcurrentExportersAcrossNodes(t *testing.T) {
	dsns := fresh(t)
	t.Logf("cluster: %s; nodes on ports %s, %s, %s", origin, port(dsns[0]), port(dsns[1]), port(dsns[2]))
	// The tables exist before the race, as in a database in use.
	seed := resultsettest.Full(t, functiontrace.Name, "seed", "mysql", 1, false)
	integration.Export(t, integration.OpenExporter(t, dsns[0], store.Options{}, exporter.Options{}), seed)

	const workers, rows = 8, 200
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		retries  int
		most     = 1 // the most attempts one result set took
		retried  = map[int]bool{}
		results  = make([]resultset.Result, workers)
		errs     = make([]error, workers)
		sets     = make([]*integration.Fixture, workers)
		retryMsg = regexp.MustCompile(`^retrying result set "worker \d+": conflict with a concurrent transaction: .*, attempt \d+/\d+$`)
	)
	for i := range workers {
		sets[i] = resultsettest.Full(t, functiontrace.Name, fmt.Sprintf("worker %d", i), "mysql", rows, false)
	}
	start := make(chan struct{})
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := exporter.BulkAuto
			if i/3%2 == 1 {
				mode = exporter.BulkOff
			}
			so := store.Options{Logf: func(format string, args ...any) {
				msg := fmt.Sprintf(format, args...)
				if !strings.HasPrefix(msg, "retrying") {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if !retryMsg.MatchString(msg) {
					t.Errorf("retry note %q", msg)
				}
				retries++
				retried[i] = true
				var n, of int
				if _, err := fmt.Sscanf(msg[strings.LastIndex(msg, "attempt "):], "attempt %d/%d", &n, &of); err == nil {
					most = max(most, n)
				}
			}}
			o := exporter.Options{Bulk: mode, Retries: exporter.DefaultRetries}
			db, err := exporter.Open(integration.Ctx(t), dsns[i%3], so, o)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			<-start
			results[i], errs[i] = resultset.Export(integration.Ctx(t), db, sets[i].ResultSet())
		}()
	}
	close(start)
	wg.Wait()
	seen := map[int64]int{}
	duplicates := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("exporter %d (node %d): %v", i, i%3+1, err)
			continue
		}
		if j, dup := seen[results[i].InstID]; dup {
			duplicates++
			t.Errorf("exporters %d and %d both got INST_ID %d", j, i, results[i].InstID)
		}
		seen[results[i].InstID] = i
	}
	t.Logf("galera figures: %d conflicts retried, %d of %d result sets retried, at most %d of %d attempts, %d duplicate INST_IDs, %d failed",
		retries, len(retried), workers, most, exporter.DefaultRetries+1, duplicates, workers-len(seen))
	if t.Failed() {
		t.FailNow()
	}
	settle(t)
	for n, dsn := range dsns {
		db := integration.OpenExporter(t, dsn, store.Options{}, exporter.Options{})
		ctx := integration.Ctx(t)
		list, err := db.DB().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != workers+1 {
			t.Fatalf("node %d: %d result sets, want %d", n+1, len(list), workers+1)
		}
		for i, r := range results {
			resultsettest.CompareStored(t, db.DB(), r.InstID, sets[i])
		}
		if fs, err := db.DB().Verify(ctx, 0); err != nil || len(fs) != 0 {
			t.Fatalf("node %d: verify: %v %v", n+1, fs, err)
		}
		d := db.DB().Dialect()
		for _, c := range []struct{ table, col string }{{profilers.RelationsTable, ddl.ID}, {profilers.InstancesTable, ddl.InstID}} {
			var dup int64
			q := fmt.Sprintf("SELECT COUNT(*) - COUNT(DISTINCT %s) FROM %s", d.Quote(c.col), d.Quote(c.table))
			if err := db.DB().SQL().QueryRowContext(ctx, q).Scan(&dup); err != nil || dup != 0 {
				t.Fatalf("node %d: %s.%s repeated %d times (%v)", n+1, c.table, c.col, dup, err)
			}
		}
	}
}

// TestPrimaryKeyDemanded: on a node with innodb_force_primary_key=ON,
// every command works. The profiler tables profdb creates get an invisible
// PROFDB_ROW_ID as their primary key; a table a DBA made keeps its own.
func TestPrimaryKeyDemanded(t *testing.T) {
	dsns := fresh(t)
	copyDSNs := fresh(t)
	node := integration.Open(t, nodes[1])
	if _, err := node.Exec("SET GLOBAL innodb_force_primary_key = ON"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := node.Exec("SET GLOBAL innodb_force_primary_key = OFF"); err != nil {
			t.Error(err)
		}
	})
	dsn, copyDSN := dsns[1], copyDSNs[1]
	db := integration.Open(t, dsn)
	// The server refuses a table without a key now; a DBA's table with a
	// key of its own stays as it is.
	if _, err := db.Exec("CREATE TABLE refused (a INT) ENGINE=InnoDB"); err == nil {
		t.Fatal("innodb_force_primary_key=ON accepted a table without a primary key")
	}
	const dbaTable = functiontrace.Routines
	if _, err := db.Exec("CREATE TABLE " + dbaTable + ` (DBA_NO BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  ID BIGINT, INST_ID BIGINT NOT NULL, PARENT_ID BIGINT, REC_ID BIGINT, COL_HIT_COUNT BIGINT, COL_UNIT_NAME LONGTEXT,
  COL_CLASS_NAME LONGTEXT, COL_NAMESPACE LONGTEXT, COL_MODULE_NAME LONGTEXT, COL_SOURCE_FILE LONGTEXT,
  COL_SOURCE_LINE BIGINT, COL_TOKEN BIGINT, COL_ADDRESS DECIMAL(28,8), COL_CODE_TYPE LONGTEXT, COL_ANALYSIS_RESULT LONGTEXT)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`); err != nil {
		t.Fatal(err)
	}

	examples, err := filepath.Glob("../../examples/*.json")
	if err != nil || len(examples) != 4 {
		t.Fatalf("examples: %v %v", examples, err)
	}
	for _, bulk := range []string{"auto", "off"} {
		out, errOut := run(t, append([]string{"export", "--db", dsn, "--bulk", bulk}, examples...)...)
		if got := strings.Count(out, "INST_ID "); got != 4 {
			t.Fatalf("export --bulk %s: %d result sets\n%s", bulk, got, out)
		}
		if bulk == "auto" && !strings.Contains(errOut, dialects.RowKeyColumn) {
			t.Errorf("export does not say that it adds %s: %q", dialects.RowKeyColumn, errOut)
		}
	}
	out, _ := run(t, "list", "--db", dsn)
	if got := strings.Count(out, "\n"); got != 9 {
		t.Errorf("list: %d lines, want a heading and 8 result sets\n%s", got, out)
	}
	run(t, "verify", "--db", dsn)
	run(t, "delete", "--db", dsn, "--inst", "2")
	run(t, "verify", "--db", dsn)
	out, _ = run(t, "copy", "--from", dsn, "--to", copyDSN)
	if got := strings.Count(out, " -> INST_ID "); got != 7 {
		t.Errorf("copy: %d result sets, want 7\n%s", got, out)
	}
	run(t, "verify", "--db", copyDSN)
	out, _ = run(t, "list", "--db", copyDSN)
	if got := strings.Count(out, "\n"); got != 8 {
		t.Errorf("list after copy: %d lines, want 8\n%s", got, out)
	}

	// A script for such a server, run in the mariadb client.
	scriptDSN := fresh(t)[1]
	script, _ := run(t, "export", "--sql-out", "-", "--dialect", "mysql", "--primary-key", examples[0])
	mariadb, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatal("the mariadb client is not on PATH")
	}
	client := exec.Command(mariadb, "--protocol=TCP", "-h127.0.0.1", "-P"+port(scriptDSN), "-uroot", strings.TrimPrefix(fresh0(scriptDSN), "/"))
	client.Stdin = strings.NewReader(script)
	if out, err := client.CombinedOutput(); err != nil {
		t.Fatalf("export --sql-out --primary-key script: %v\n%s", err, out)
	}
	run(t, "verify", "--db", scriptDSN)
	if out, _ := run(t, "list", "--db", scriptDSN); strings.Count(out, "\n") != 2 {
		t.Errorf("list after the script:\n%s", out)
	}

	// Every profiler table profdb made has the invisible key; the DBA's
	// table has none of it.
	for i, name := range []string{strings.TrimPrefix(fresh0(dsn), "/"), strings.TrimPrefix(fresh0(copyDSN), "/")} {
		var made, keyed int
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`, name).Scan(&made); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.COLUMNS c
JOIN information_schema.KEY_COLUMN_USAGE k ON k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME
  AND k.COLUMN_NAME = c.COLUMN_NAME AND k.CONSTRAINT_NAME = 'PRIMARY'
WHERE c.TABLE_SCHEMA = ? AND c.COLUMN_NAME = ? AND c.EXTRA LIKE '%INVISIBLE%'`, name, dialects.RowKeyColumn).Scan(&keyed); err != nil {
			t.Fatal(err)
		}
		want := made - 3 // INSTANCES, RELATIONS and PROFDB_RESULT_SETS have keys of their own
		if i == 0 {
			want-- // the DBA's table
		}
		if made < 30 || keyed != want {
			t.Errorf("database %d: %d tables, %d with the invisible key, want %d", i+1, made, keyed, want)
		}
	}
	var dbaRows int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + dbaTable + " WHERE DBA_NO > 0").Scan(&dbaRows); err != nil || dbaRows == 0 {
		t.Errorf("the DBA's table: %d rows (%v)", dbaRows, err)
	}
}

// fresh0 returns the path of a DSN: the database name with a slash.
func fresh0(dsn string) string {
	u, _ := url.Parse(dsn)
	return u.Path
}

// run runs profdb and fails the test unless it succeeds.
func run(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, profdbBin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("profdb %s: %v\n%s", args[0], err, errOut.String())
	}
	return out.String(), errOut.String()
}
