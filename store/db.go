package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/profdb/profdb/ddl"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/optionerr"
)

// DB is a database that holds result sets: the handle that package
// exporter writes through, and that List, Verify, Read and DeleteAll (and
// package readback) read and administer through. It is safe for
// concurrent use.
type DB struct {
	db      *sql.DB
	d       dialects.Dialect
	opts    Options
	display string      // the DSN with its password hidden
	owned   bool        // Close closes db
	conns   *conns      // the network connections, when the dialect lets Open dial them
	unwatch func() bool // stops closing conns when Open's context ends
	held    *heldFile   // the database file, held while the DB is open (see hold)
	// file is the database file, where the dialect locks it as a whole
	// for a writer (dialects.LockWaiter), and lockWait the lock timeout
	// its connections wait (negative: none); see BeginWrite.
	file     string
	lockWait time.Duration
	// kept, once KeepColumns is called, holds the columns of the tables
	// catalogues have read, for the catalogues after them.
	kept *keptColumns
}

// Open opens the database a profdb DSN names (see dialects.ForDSN) and
// checks that it answers. The dialect package must be imported.
func Open(ctx context.Context, dsn string, o Options) (*DB, error) {
	fail := func(err error) (*DB, error) {
		shown := dialects.ScrubError(dsn, err)
		// Scrubbing a password out of the words loses what they wrap;
		// that nothing is there must stay known.
		if Missing(err) && !Missing(shown) {
			shown = nothing(shown)
		}
		return nil, fmt.Errorf("open %s: %w", dialects.Redact(dsn), shown)
	}
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		// Not a DSN profdb knows how to show without its password.
		return nil, fmt.Errorf("open: %w", err)
	}
	if !o.ReadOnly {
		// Refused before anything is opened, let alone created.
		if err := dialects.WritableSchema(d, o.Schema); err != nil {
			return fail(err)
		}
	}
	drv, lockWait, err := driverDSN(d, dsn, o)
	if err != nil {
		return fail(err)
	}
	path := fileOf(d, dsn)
	absent := absentFile(path, o)
	for attempt := 1; ; attempt++ {
		h, err := hold(ctx, path, absent)
		if err != nil {
			return fail(err)
		}
		db, err := open1(ctx, d, dsn, drv, path, lockWait, o)
		if err == nil && path != "" && h == nil {
			// No file was held: it did not exist, and the driver just
			// created it (or it could not be opened here). Open it again,
			// held before the driver opens it, so that no other DB
			// removes it (nor a file that took its place) while this one
			// uses it.
			db.Close()
			if attempt < openAttempts {
				continue
			}
			err = fmt.Errorf("%s: the database file could not be held open (it was removed each time, or cannot be read)", path)
		}
		if err != nil {
			if h == nil && absent {
				h, _ = hold(ctx, path, true) // the file the driver created, if it is there
			}
			if h != nil {
				h.release(true) // removes the file if this DB created it
			}
			return fail(err)
		}
		db.held = h
		return db, nil
	}
}

// openAttempts bounds how often Open opens a database file that is gone
// again each time it is opened: a new file is opened twice (see Open).
const openAttempts = 10

// open1 is one attempt of Open: it opens the database (whose file is
// path, where the driver opens one itself) and pings it.
func open1(ctx context.Context, d dialects.Dialect, dsn, drv, path string, lockWait time.Duration, o Options) (*DB, error) {
	connect := timeout(o.ConnectTimeout, DefaultConnectTimeout)
	var sqldb *sql.DB
	var cs *conns
	if c, ok := d.(dialects.Connector); ok {
		cs = newConns(connect, timeout(o.IOTimeout, DefaultIOTimeout))
		conn, err := c.Connector(drv, cs.dial)
		if err != nil {
			return nil, err
		}
		sqldb = sql.OpenDB(conn)
	} else {
		var err error
		if sqldb, err = sql.Open(d.Facts().Driver, drv); err != nil {
			return nil, err
		}
	}
	db := New(sqldb, d, o)
	db.display = dialects.Redact(dsn)
	db.owned = true
	if _, ok := d.(dialects.LockWaiter); ok {
		db.file = path
		db.lockWait = lockWait
		// Nothing to connect to: the first statements of a connection
		// read the file under its shared lock, and the ping waits for a
		// writer as every lock does (waitLock).
		connect = 0
	}
	pctx, cancel := ctx, context.CancelFunc(func() {})
	if connect > 0 {
		pctx, cancel = context.WithTimeout(ctx, connect)
	}
	err := db.waitLock(ctx, false, func() error { return sqldb.PingContext(pctx) })
	timedOut := pctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		sqldb.Close()
		if timedOut {
			err = fmt.Errorf("no connection within the connect timeout of %s: %w", connect, err)
		} else if x, ok := d.(dialects.OpenExplainer); ok {
			err = x.ExplainOpen(err)
		}
		return nil, err
	}
	if cs != nil {
		// An interrupted command (its context cancelled) must not wait
		// for a server that does not answer: close every connection, so
		// that whatever blocks in one returns. The server rolls back the
		// transaction of a connection that went away.
		db.conns = cs
		db.unwatch = context.AfterFunc(ctx, cs.closeAll)
	}
	return db, nil
}

// driverDSN returns the driver's DSN for a connection limited to what o
// allows, and, where the dialect waits for locks on the whole database
// (dialects.LockWaiter), the lock timeout it set. Where the driver opens a
// database file itself, a read-only or no-create DSN naming a missing file,
// or a read-only one naming an empty file, is an error naming it that
// wraps ErrNoResultSets; the no-create one is an *optionerr.Error naming
// Options.NoCreate.
func driverDSN(d dialects.Dialect, dsn string, o Options) (string, time.Duration, error) {
	a, ok := d.(dialects.AccessDSN)
	if !ok {
		drv, err := d.DriverDSN(dsn)
		return drv, 0, err
	}
	access := dialects.ReadWrite
	switch {
	case o.ReadOnly:
		access = dialects.ReadOnly
	case o.NoCreate:
		access = dialects.NoCreate
	}
	var drv string
	var wait time.Duration
	var err error
	if lw, ok := d.(dialects.LockWaiter); ok {
		drv, wait, err = lw.DriverDSNWait(dsn, access, o.LockTimeout)
	} else {
		drv, err = a.DriverDSNAccess(dsn, access)
	}
	if err != nil || access == dialects.ReadWrite {
		return drv, wait, err
	}
	path, err := a.File(dsn)
	if err != nil {
		return "", 0, err
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if o.ReadOnly {
			return "", 0, nothing(fmt.Errorf("%s: no such database file (a command that only reads never creates one)", path))
		}
		return "", 0, nothing(optionerr.New(nil, "store.Options",
			strings.ReplaceAll(path, "%", "%%")+": no such database file (%[1]s: a write into an existing database never creates one)", "NoCreate"))
	case err != nil:
		return "", 0, err
	case o.ReadOnly && fi.Mode().IsRegular() && fi.Size() == 0:
		// SQLite takes an empty file for an empty database; a reader
		// would find no result set in it and call that an answer.
		return "", 0, nothing(fmt.Errorf("%s: the file is empty, not a database of result sets", path))
	}
	return drv, wait, nil
}

// Missing reports whether err says that what a DSN and schema name is not
// there: no database of result sets (ErrNoResultSets: an SQLite file that
// does not exist where none may be created, an empty one, a database
// without an INSTANCES table where result sets are read), a schema or
// database that does not exist (dialects.ErrNoSchema), or a file that is
// no database (dialects.ErrNotDatabase). A command could then not do its
// work: profdb exits 2.
func Missing(err error) bool {
	return errors.Is(err, ErrNoResultSets) || errors.Is(err, dialects.ErrNoSchema) || errors.Is(err, dialects.ErrNotDatabase)
}

// ErrReadOnly is returned by writes to a DB opened with Options.ReadOnly.
var ErrReadOnly = errors.New("the database was opened read-only")

// ExplainReadOnly says plainly that the server accepts no writes when err
// is its refusal of a write (a hot standby, a read-only database or
// transaction); it returns any other error as it is.
func (db *DB) ExplainReadOnly(ctx context.Context, err error) error {
	if errors.Is(err, ErrReadOnly) {
		return err
	}
	readOnly := dialects.IsReadOnly(db.d, err)
	if probe := db.d.Facts().ReadOnlyProbe; !readOnly && probe != "" && ctx.Err() == nil {
		var v any
		if db.db.QueryRowContext(ctx, probe).Scan(&v) == nil {
			switch x := v.(type) {
			case bool:
				readOnly = x
			case int64:
				readOnly = x != 0
			case []byte:
				readOnly = string(x) != "0" && string(x) != "false" && string(x) != "f"
			}
		}
	}
	if readOnly {
		return fmt.Errorf("%s is read-only (a hot standby or replica, or a read-only database or login): nothing written: %w", db.display, err)
	}
	return err
}

// New wraps an open database handle of dialect d.
func New(db *sql.DB, d dialects.Dialect, o Options) *DB {
	return &DB{db: db, d: d, opts: o, display: d.Name()}
}

// Close closes the handle if Open opened it. A database file that Open
// created and that is still empty (nothing was committed into it) is
// removed, unless another DB, of this process or another, has it open: a
// command that failed, or wrote nothing, leaves no empty file, and never
// removes one that another command is about to write into.
func (db *DB) Close() error {
	if db.unwatch != nil {
		db.unwatch()
	}
	if !db.owned {
		return nil
	}
	err := db.db.Close()
	if h := db.held; h != nil {
		db.held = nil
		// Removed only when the driver closed the file: a connection
		// that failed to close may still have it open.
		err = errors.Join(err, h.release(err == nil))
	}
	return err
}

// ConnectionLost returns why a network connection of the DB failed, for
// example "the server neither answered nor took data for 15m0s (the I/O
// timeout): ...", or nil when none did. Drivers often report a lost
// connection in words of their own ("driver: bad connection", "invalid
// connection"); this says what happened to it.
func (db *DB) ConnectionLost() error {
	if db.conns == nil {
		return nil
	}
	if err := db.conns.lost(); err != nil {
		return fmt.Errorf("connection to %s lost: %w", db.display, err)
	}
	return nil
}

// SQL returns the underlying handle.
func (db *DB) SQL() *sql.DB { return db.db }

// Dialect returns the database's dialect.
func (db *DB) Dialect() dialects.Dialect { return db.d }

// Options returns the options the DB was opened with.
func (db *DB) Options() Options { return db.opts }

// String describes the database without secrets.
func (db *DB) String() string { return db.display }

// Now is the time Options.Now gives, or the clock's.
func (db *DB) Now() time.Time {
	if db.opts.Now != nil {
		return db.opts.Now()
	}
	return time.Now()
}

// Bind is v as the dialect binds a value of logical type t in a statement's
// arguments (see dialects.Dialect.Bind).
func (db *DB) Bind(t ddl.Type, v any) any { return db.d.Bind(t, v) }
