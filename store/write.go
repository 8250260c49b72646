package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/optionerr"
)

// ErrLocked is wrapped by the error of a command that gave up waiting for
// the database while another writer held it and made no progress for the
// whole lock timeout (Options.LockTimeout).
var ErrLocked = errors.New("the database is locked by another writer")

// Writable returns why nothing written through db could be kept, or nil:
// the DB was opened read-only (ErrReadOnly), or its schema lasts only as
// long as the connection (dialects.ErrTempSchema). Every write asks it
// before it begins.
func (db *DB) Writable() error {
	if db.opts.ReadOnly {
		return ErrReadOnly
	}
	return dialects.WritableSchema(db.d, db.opts.Schema)
}

// BeginWrite begins the transaction of a write (an export, a delete) on
// conn, waiting for the database as waitLock says.
func (db *DB) BeginWrite(ctx context.Context, conn *sql.Conn) (*sql.Tx, error) {
	var tx *sql.Tx
	err := db.waitLock(ctx, true, func() (err error) {
		tx, err = conn.BeginTx(ctx, nil)
		return err
	})
	return tx, err
}

// waitLock runs lock, which takes a lock on the database (begins a write,
// or a read snapshot), failing without leaving anything open. Where a
// connection locks the whole database (dialects.LockWaiter: SQLite), the
// driver waits for a lock another holds up to the lock timeout; when it
// gave up while the database made progress (another writer wrote into it
// or committed), waitLock runs lock again, so that a command waits behind
// any number of writers that work, and gives up only when the one holding
// the database did nothing for the whole lock timeout. The error then says
// so and wraps ErrLocked; write says whether lock begins a write. (A DB
// that New wraps knows no file: it waits as its driver does, once.)
func (db *DB) waitLock(ctx context.Context, write bool, lock func() error) error {
	lw, ok := db.d.(dialects.LockWaiter)
	if !ok || db.file == "" {
		return lock()
	}
	for {
		before, berr := lw.WriteProgress(db.file)
		err := lock()
		if err == nil || !lw.LockTimedOut(err) || ctx.Err() != nil {
			return err
		}
		after, aerr := lw.WriteProgress(db.file)
		if berr != nil || aerr != nil || before == after {
			return db.locked(err, write)
		}
	}
}

// locked is the error of a command that gave up on the lock another
// writer held: err, the driver's, wrapped in words that say what happened
// and what to do.
func (db *DB) locked(err error, write bool) error {
	wait, outcome := "", ""
	if db.lockWait > 0 {
		wait = " of " + db.lockWait.String()
	}
	if write {
		outcome = ", so nothing was written"
	}
	msg := fmt.Sprintf("%s is locked: another writer (an export, merge, copy or delete, or another program) held it for the whole lock timeout%s without writing to it%s; wait longer with %%[1]s (0: no limit), or the DSN's lock_timeout, or use a server database, where writers do not wait for each other",
		strings.ReplaceAll(db.display, "%", "%%"), wait, outcome)
	return fmt.Errorf("%w (%w)", optionerr.New(ErrLocked, "store.Options", msg, "LockTimeout"), err)
}
