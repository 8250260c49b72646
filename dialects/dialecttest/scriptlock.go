package dialecttest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// LockWatch tells, on a dialect's server, which session waits for which.
type LockWatch struct {
	// Session is a query answering the session ID of the connection.
	Session string
	// Waits reports whether session waiter waits for a lock that session
	// holder holds.
	Waits func(ctx context.Context, q dialects.DBTX, waiter, holder int64) (bool, error)
}

// CheckScriptTakesExportLock checks that a script and an export take the
// same allocation lock, so that they take turns: on one connection of db
// it runs what a script that writes into schema runs before its first
// result set (ScriptForm Begin, then AfterDDL, in batches where the dialect
// has a batch separator); on another, in a transaction, the acquire
// statements of d's Locker, as an export runs them. The export must wait
// for the script's session, and get the lock once the script ran End. It
// fails when the two take different locks.
func CheckScriptTakesExportLock(t *testing.T, d dialects.Dialect, db *sql.DB, schema string, watch LockWatch) {
	t.Helper()
	ctx := Context(t)
	form := d.(dialects.Scripter).ScriptForm(schema)
	acquire, release := d.(dialects.Locker).Lock(schema)

	script, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	export, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer export.Close()
	var scriptID, exportID int64
	if err := script.QueryRowContext(ctx, watch.Session).Scan(&scriptID); err != nil {
		t.Fatalf("%s: %v", watch.Session, err)
	}
	if err := export.QueryRowContext(ctx, watch.Session).Scan(&exportID); err != nil {
		t.Fatalf("%s: %v", watch.Session, err)
	}

	for _, part := range [][]string{form.Begin(), form.AfterDDL()} {
		if err := runScript(ctx, d, script, part); err != nil {
			t.Fatalf("the script's first statements: %v", err)
		}
	}
	ended := false
	defer func() {
		if !ended {
			// Leave no transaction open on a pooled connection.
			script.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()

	done := make(chan error, 1)
	go func() { done <- lockAsExport(ctx, export, acquire, release) }()
	for {
		select {
		case err := <-done:
			t.Fatalf("the export's lock statements returned (error %v) while the script held its lock: they take different locks\nscript: %q\nexport: %q",
				err, append(form.Begin(), form.AfterDDL()...), acquire)
		default:
		}
		waits, err := watch.Waits(ctx, db, exportID, scriptID)
		if err != nil {
			t.Fatalf("which session waits: %v", err)
		}
		if waits {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := runScript(ctx, d, script, form.End()); err != nil {
		t.Fatalf("the script's end: %v", err)
	}
	ended = true
	if err := <-done; err != nil {
		t.Fatalf("the export's lock after the script ended: %v", err)
	}
}

// runScript runs statements as a script's client does: one by one, or
// where the dialect has a batch separator, the statements between two
// separator lines (and those up to the end) as one batch.
func runScript(ctx context.Context, d dialects.Dialect, q dialects.DBTX, stmts []string) error {
	sep := ""
	if bs, ok := d.(ddl.BatchSeparator); ok {
		sep = bs.BatchSeparator()
	}
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := q.ExecContext(ctx, strings.Join(batch, ";\n"))
		batch = nil
		return err
	}
	for _, st := range stmts {
		switch {
		case sep == "":
			if _, err := q.ExecContext(ctx, st); err != nil {
				return err
			}
		case st == sep:
			if err := flush(); err != nil {
				return err
			}
		default:
			batch = append(batch, st)
		}
	}
	return flush()
}

// lockAsExport takes the lock as an export does, acquire in a
// transaction; then it ends the transaction and runs release.
func lockAsExport(ctx context.Context, conn *sql.Conn, acquire, release []string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, st := range acquire {
		if err := acquireOne(ctx, tx, st); err != nil {
			return err
		}
	}
	if err := tx.Rollback(); err != nil {
		return err
	}
	for _, st := range release {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// acquireOne runs an acquire statement. A single answer of 0 is a refusal
// (MySQL's GET_LOCK on a timeout), as it is for an export.
func acquireOne(ctx context.Context, tx *sql.Tx, st string) error {
	rows, err := tx.QueryContext(ctx, st)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		if len(cols) != 1 {
			continue
		}
		var v any
		if err := rows.Scan(&v); err != nil {
			return err
		}
		if n, ok := AsInt(v); ok && n == 0 {
			return fmt.Errorf("%s answered 0: the lock was not taken", st)
		}
	}
	return rows.Err()
}
