package exporter

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/profdb/profdb/dialects"
)

// DB is a database that result sets are exported into. It is a Target.
type DB struct {
	db      *sql.DB
	d       dialects.Dialect
	opts    Options
	display string // the DSN with its password hidden
	owned   bool
}

var _ Target = (*DB)(nil)

// Open opens the database a profdb DSN names (see dialects.ForDSN) and
// checks that it answers. The dialect package must be imported.
func Open(ctx context.Context, dsn string, o Options) (*DB, error) {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return nil, errorf("open: %w", err)
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		return nil, errorf("open: %w", err)
	}
	sqldb, err := sql.Open(d.DriverName(), drv)
	if err != nil {
		return nil, errorf("open %s: %w", dialects.Redact(dsn), err)
	}
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, errorf("open %s: %w", dialects.Redact(dsn), dialects.ScrubError(dsn, err))
	}
	db := New(sqldb, d, o)
	db.display = dialects.Redact(dsn)
	db.owned = true
	return db, nil
}

// New wraps an open database handle of dialect d.
func New(db *sql.DB, d dialects.Dialect, o Options) *DB {
	return &DB{db: db, d: d, opts: o, display: d.Name()}
}

// Close closes the handle if Open opened it.
func (db *DB) Close() error {
	if db.owned {
		return db.db.Close()
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

// errorf formats an error with the package's operation prefix.
func errorf(format string, args ...any) error {
	return fmt.Errorf("export: "+format, args...)
}
