package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/dbtest"
)

// holdWriteLock takes SQLite's write lock on the database file path, on a
// connection of its own, and keeps it until release is called; with
// progress, it writes into the file all the while (rows into a table of
// its own, through a page cache too small to hold them), as an export of
// many rows does. release rolls everything back.
func holdWriteLock(t *testing.T, path string, progress bool) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := dbtest.Open(t, "sqlite:"+path).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{"BEGIN IMMEDIATE", "CREATE TABLE held (x TEXT)"}
	if progress {
		stmts = append([]string{"PRAGMA cache_size = 1"}, stmts...)
	}
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for progress {
			select {
			case <-stop:
				done <- nil
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := conn.ExecContext(ctx, "INSERT INTO held VALUES (printf('%.4000c', 'x'))"); err != nil {
				done <- err
				return
			}
		}
		<-stop
		done <- nil
	}()
	return func() {
		close(stop)
		if err := <-done; err != nil {
			t.Errorf("the lock holder's write: %v", err)
		}
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
	}
}

// TestConcurrentSQLiteExports: eight exports at once into one SQLite file
// all land, each with an INST_ID of its own and every row, while list and
// show read meanwhile and none of them fails. With a lock timeout of 2
// seconds, every command first waits longer than that behind a writer
// that holds the file and makes progress (holdWriteLock: 5 seconds), then
// the exports queue behind each other: a command waits as long as the
// writers ahead of it make progress, not only for the lock timeout
// (issue 39: four of eight exports failed with SQLITE_BUSY after the busy
// timeout, which each would have landed had it waited).
func TestConcurrentSQLiteExports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs profdb processes for seconds")
	}
	const exports, rows = 8, 10_000
	bin := profdbBin(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "p.db")
	dsn := "sqlite:" + path + "?lock_timeout=2s"
	input := filepath.Join(dir, "calls.json")
	writeCallTraceJSON(t, input, "calls", rows)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json")

	release := holdWriteLock(t, path, true)
	var readers sync.WaitGroup
	var stopReading atomic.Bool
	reads := make([]int, 2)
	for i, args := range [][]string{{"list", "--db", dsn}, {"show", "--db", dsn, "1"}} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for !stopReading.Load() || reads[i] == 0 {
				if out, err := profdbCommand(bin, args...).CombinedOutput(); err != nil {
					t.Errorf("profdb %s while the exports ran: %v\n%s", strings.Join(args, " "), err, out)
					return
				}
				reads[i]++
			}
		}()
	}
	var ids []int64
	exported := make(chan struct{})
	go func() {
		defer close(exported)
		ids = exportConcurrently(t, bin, dsn, input, exports)
	}()
	time.Sleep(5 * time.Second)
	release()
	<-exported
	stopReading.Store(true)
	readers.Wait()

	var list []struct {
		InstID int64  `json:"inst_id"`
		Rows   int64  `json:"rows"`
		Input  string `json:"input"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	byID := map[int64]int64{}
	for _, l := range list {
		if strings.HasSuffix(l.Input, "calls.json") {
			byID[l.InstID] = l.Rows
		}
	}
	if len(byID) != exports {
		t.Errorf("%d result sets of the input listed, want %d: %+v", len(byID), exports, list)
	}
	for _, id := range ids {
		if byID[id] != rows+1 {
			t.Errorf("INST_ID %d (of %v): %d rows listed, want %d", id, ids, byID[id], rows+1)
		}
		delete(byID, id)
	}
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify:\n%s", out)
	}
	t.Logf("reads while the exports ran: list %d, show %d", reads[0], reads[1])
}

// TestSQLiteLockTimeoutMessage: a writer that cannot take the database
// within the lock timeout, because another holds it and does nothing,
// fails saying so and what to do, having written nothing; the timeout is
// --lock-timeout's, else the DSN's lock_timeout.
func TestSQLiteLockTimeoutMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	dsn := "sqlite:" + path
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json")
	before := mustRead(t, path)
	release := holdWriteLock(t, path, false)
	for _, c := range []struct {
		args []string
		wait string
	}{
		{[]string{"export", "--db", dsn, "--lock-timeout", "300ms", "../../examples/resource.json"}, "300ms"},
		{[]string{"export", "--db", dsn + "?lock_timeout=200ms", "../../examples/resource.json"}, "200ms"},
		{[]string{"export", "--db", dsn + "?lock_timeout=1h", "--lock-timeout", "250ms", "../../examples/resource.json"}, "250ms"},
		{[]string{"delete", "--db", dsn + "?lock_timeout=200ms", "--inst", "1"}, "200ms"},
	} {
		out, errOut, code := runCLI(t, c.args...)
		for _, want := range []string{
			"is locked: another writer (an export, merge, copy or delete, or another program) held it for the whole lock timeout of " + c.wait + " without writing to it, so nothing was written",
			"wait longer with --lock-timeout (0: no limit), or the DSN's lock_timeout, or use a server database",
			"(SQLITE_BUSY)",
		} {
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("profdb %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, want)
			}
		}
		if out != "" {
			t.Errorf("profdb %s: stdout %q, want nothing", strings.Join(c.args, " "), out)
		}
	}
	release()
	if after := mustRead(t, path); !bytes.Equal(before, after) {
		t.Error("the database file changed")
	}
}
