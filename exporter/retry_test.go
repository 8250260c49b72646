package exporter_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// conflictDialect is SQLite with a dialects.Retrier that calls the error a
// test trigger raises a conflict, as MySQL's would call error 1213 one.
type conflictDialect struct{ sqlite.Dialect }

func (conflictDialect) Retryable(err error) bool {
	return strings.Contains(err.Error(), "simulated conflict")
}
func (conflictDialect) DuplicateKey(error) bool { return false }

// conflicting is a database whose trigger makes every write into one table
// fail with a retryable error until the test's retry hook drops it after
// the given number of failures.
type conflicting struct {
	db   *exporter.Exporter
	sql  *sql.DB
	mu   sync.Mutex
	logs []string
}

func openConflicting(t *testing.T, table string, failures int, o exporter.Options) *conflicting {
	t.Helper()
	ctx := ctxT(t)
	d := conflictDialect{}
	drv, err := d.DriverDSN("sqlite:" + filepath.Join(t.TempDir(), "retry.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqldb, err := sql.Open(d.Facts().Driver, drv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqldb.Close() })
	def := profilers.MustLookup(functiontrace.Name)
	for _, tb := range append(profilers.Shared(), def.Tables...) {
		for _, st := range d.CreateTableIn("", tb) {
			if _, err := sqldb.ExecContext(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	trigger := fmt.Sprintf(`CREATE TRIGGER conflict BEFORE INSERT ON %s BEGIN SELECT RAISE(ABORT, 'simulated conflict'); END`, d.Quote(table))
	if _, err := sqldb.ExecContext(ctx, trigger); err != nil {
		t.Fatal(err)
	}
	c := &conflicting{sql: sqldb}
	logf := func(format string, args ...any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.logs = append(c.logs, fmt.Sprintf(format, args...))
		if len(c.logs) == failures {
			// The conflicting exporter is gone: the next attempt gets through.
			if _, err := sqldb.ExecContext(ctx, "DROP TRIGGER conflict"); err != nil {
				t.Error(err)
			}
		}
	}
	c.db = exporter.New(store.New(sqldb, d, store.Options{Logf: logf}), o)
	return c
}

// oneShot makes every table's rows readable once only, as rows streamed
// from standard input are: a retry must not read them again.
func oneShot(rs *resultset.ResultSet) *resultset.ResultSet {
	for i, tr := range rs.Tables {
		rows, used := tr.Rows, false
		rs.Tables[i].Rows = func(yield func([]any, error) bool) {
			if used {
				yield(nil, errors.New("rows read twice"))
				return
			}
			used = true
			for r, err := range rows {
				if !yield(r, err) {
					return
				}
			}
		}
	}
	return rs
}

// TestRetryAfterConflict: a result set whose transaction the server aborts
// for a conflict is written again, whole, from rows read once, and says so.
func TestRetryAfterConflict(t *testing.T) {
	for _, table := range []string{profilers.InstancesTable, functiontrace.CallTrace} {
		for _, bulk := range bulkModes {
			t.Run(table+"/bulk="+bulk.String(), func(t *testing.T) {
				c := openConflicting(t, table, 2, exporter.Options{Bulk: bulk, Retries: 5})
				ctx := ctxT(t)
				res, err := resultset.Export(ctx, c.db, oneShot(edgeSet()))
				if err != nil {
					t.Fatalf("export failed instead of retrying: %v", err)
				}
				if res.InstID != 1 || res.Rows != 7 {
					t.Fatalf("result = %+v", res)
				}
				if len(c.logs) != 2 || !strings.Contains(c.logs[0], "attempt 2/6") || !strings.Contains(c.logs[1], "attempt 3/6") ||
					!strings.Contains(c.logs[0], "simulated conflict") || !strings.Contains(c.logs[0], `retrying result set "edge`) {
					t.Errorf("retry notes = %q", c.logs)
				}
				got, err := c.db.DB().Read(ctx, 1)
				if err != nil {
					t.Fatal(err)
				}
				compareSets(t, edgeSet(), got)
				for name, n := range counts(t, c.db, functiontrace.Name) {
					if want := edgeCounts[name]; n != want {
						t.Errorf("%s holds %d rows, want %d", name, n, want)
					}
				}
			})
		}
	}
}

// edgeCounts are the rows edgeSet puts into each table, INSTANCES and
// RELATIONS included.
var edgeCounts = func() map[string]int64 {
	def := profilers.MustLookup(functiontrace.Name)
	out := map[string]int64{profilers.InstancesTable: 1, profilers.RelationsTable: int64(len(def.Tables))}
	for _, tb := range def.Tables {
		out[tb.Name] = 0
	}
	for _, tr := range edgeSet().Tables {
		for range tr.Rows {
			out[tr.Name]++
		}
	}
	return out
}()

// TestRetryStreamed: rows written one by one, with the caption set after
// them, as the input readers do, come back whole after a conflict at
// commit.
func TestRetryStreamed(t *testing.T) {
	c := openConflicting(t, profilers.InstancesTable, 1, exporter.Options{Retries: 1})
	ctx := ctxT(t)
	w, err := c.db.Begin(ctx, resultset.Header{Profiler: functiontrace.Name, Caption: "first"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 30000 // over the spool's memory: the kept rows move to a file
	set := callTraceSet("streamed", n)
	for _, tr := range set.Tables {
		tw, err := w.Table(tr.Name, tr.Columns)
		if err != nil {
			t.Fatal(err)
		}
		for row := range tr.Rows {
			if err := tw.Write(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.SetHeader(resultset.Header{Caption: "streamed"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatalf("commit failed instead of retrying: %v", err)
	}
	if res.InstID != 1 || res.Caption != "streamed" || res.Tables[functiontrace.CallTrace] != n || len(c.logs) != 1 {
		t.Fatalf("result = %+v, notes %q", res, c.logs)
	}
	got, err := c.db.DB().Read(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Caption != "streamed" {
		t.Errorf("caption = %q", got.Caption)
	}
	compareSets(t, callTraceSet("streamed", n), got)
}

// TestRetryBounded: retries end after Options.Retries, leaving nothing;
// errors that are no conflict, and Retries 0, are not retried.
func TestRetryBounded(t *testing.T) {
	empty := func(t *testing.T, c *conflicting) {
		t.Helper()
		for name, n := range counts(t, c.db, functiontrace.Name) {
			if n != 0 {
				t.Errorf("%s holds %d rows after a failed export", name, n)
			}
		}
	}
	t.Run("gives up", func(t *testing.T) {
		c := openConflicting(t, profilers.InstancesTable, -1, exporter.Options{Retries: 2})
		_, err := resultset.Export(ctxT(t), c.db, edgeSet())
		if err == nil || !strings.Contains(err.Error(), "simulated conflict") || !strings.Contains(err.Error(), "gave up after 3 attempts") {
			t.Fatalf("err = %v", err)
		}
		if len(c.logs) != 2 {
			t.Errorf("retry notes = %q", c.logs)
		}
		empty(t, c)
	})
	t.Run("no retries", func(t *testing.T) {
		c := openConflicting(t, profilers.InstancesTable, -1, exporter.Options{})
		_, err := resultset.Export(ctxT(t), c.db, edgeSet())
		if err == nil || !strings.Contains(err.Error(), "simulated conflict") || len(c.logs) != 0 {
			t.Fatalf("err = %v, notes %q", err, c.logs)
		}
		empty(t, c)
	})
	t.Run("not a conflict", func(t *testing.T) {
		c := openConflicting(t, profilers.InstancesTable, -1, exporter.Options{Retries: 5})
		set := callTraceSet("bad", 3)
		rows := set.Tables[1].Rows
		set.Tables[1].Rows = func(yield func([]any, error) bool) {
			for r := range rows {
				r[0] = "text in a number column"
				if !yield(r, nil) {
					return
				}
			}
		}
		_, err := resultset.Export(ctxT(t), c.db, set)
		if err == nil || !strings.Contains(err.Error(), "row 1") || len(c.logs) != 0 {
			t.Fatalf("err = %v, notes %q", err, c.logs)
		}
		empty(t, c)
	})
}

// probingDialect is conflictDialect with a dialects.TxProber whose probe is
// the given query, as MariaDB's answers 0 once a Galera node has ended the
// transaction for one replicated from another node.
type probingDialect struct {
	conflictDialect
	probe string
}

func (d probingDialect) TxOpenSQL() string { return d.probe }

// TestCheckAfterServerAbort: when the check before commit finds faults and
// the server says it has ended the transaction, the faults are what a read
// outside the transaction saw: the export is a conflict and is written
// again. While the transaction is open, or when the probe fails, the faults
// stand and nothing is retried.
func TestCheckAfterServerAbort(t *testing.T) {
	dangling := func() *resultset.ResultSet {
		set := callTraceSet("dangling", 3)
		rows := set.Tables[1].Rows
		set.Tables[1].Rows = func(yield func([]any, error) bool) {
			for r := range rows {
				r[9] = int64(9) // no thread has ID 9
				if !yield(r, nil) {
					return
				}
			}
		}
		return set
	}
	for _, c := range []struct {
		probe, want string
		notes       int
	}{
		{"SELECT 0", "the server ended the transaction before the check ran", 2},
		{"SELECT 1", "result set refused, nothing written", 0},
		{"SELECT no_such_column", "result set refused, nothing written", 0},
	} {
		t.Run(c.probe, func(t *testing.T) {
			ctx := ctxT(t)
			d := probingDialect{probe: c.probe}
			drv, err := d.DriverDSN("sqlite:" + filepath.Join(t.TempDir(), "probe.db"))
			if err != nil {
				t.Fatal(err)
			}
			sqldb, err := sql.Open(d.Facts().Driver, drv)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sqldb.Close() })
			var notes []string
			logf := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
			db := exporter.New(store.New(sqldb, d, store.Options{Logf: logf}), exporter.Options{Retries: 2})
			_, err = resultset.Export(ctx, db, dangling())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
			retries := 0
			for _, n := range notes {
				if strings.HasPrefix(n, "retrying result set") {
					retries++
				}
			}
			if retries != c.notes {
				t.Errorf("%d retries, want %d (notes %q)", retries, c.notes, notes)
			}
			if c.notes > 0 && !strings.Contains(err.Error(), "gave up after 3 attempts") {
				t.Errorf("err = %v, want the attempts counted", err)
			}
			for name, n := range counts(t, db, functiontrace.Name) {
				if n > 0 { // -1: the table is not there either
					t.Errorf("%s holds %d rows after a refused export", name, n)
				}
			}
		})
	}
}
