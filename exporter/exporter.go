package exporter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Exporter writes result sets into a store.DB: it is the resultset.Target
// of a database. It is safe for concurrent use; each result set is written
// on a connection of its own.
type Exporter struct {
	st    *store.DB
	db    *sql.DB
	d     dialects.Dialect
	opts  Options
	sopts store.Options // the store's: where to write, what to report
	owned bool          // Close closes st

	// What the server said about primary keys (dialects.RowKeyer), asked
	// when a table is first created.
	rowKeyMu                                   sync.Mutex
	rowKeyKnown, rowKeyDemand, rowKeyInvisible bool

	// Whether the server spreads tables over nodes (dialects.Distributor),
	// asked when a table is first created.
	distMu                           sync.Mutex
	distKnown, distributes, distSaid bool
}

var _ resultset.Target = (*Exporter)(nil)

// New returns an Exporter that writes into db as o says.
func New(db *store.DB, o Options) *Exporter {
	return &Exporter{st: db, db: db.SQL(), d: db.Dialect(), opts: o, sopts: db.Options()}
}

// DB returns the database the Exporter writes into.
func (e *Exporter) DB() *store.DB { return e.st }

// ErrNoCreate is matched by errors.Is in the error of a write that needs
// a table that does not exist where store.Options.NoCreate forbids
// creating it; errors.As finds an *optionerr.Error naming the option.
var ErrNoCreate = errors.New("a table is missing and may not be created")

// errorf formats an error of writing a result set, prefixed "write: ".
func errorf(format string, args ...any) error {
	return fmt.Errorf("write: "+format, args...)
}

// Open opens the database a DSN names (store.Open) and returns an Exporter
// that writes into it; Close closes the database too.
func Open(ctx context.Context, dsn string, so store.Options, o Options) (*Exporter, error) {
	db, err := store.Open(ctx, dsn, so)
	if err != nil {
		return nil, err
	}
	e := New(db, o)
	e.owned = true
	return e, nil
}

// Close closes the database when Open opened it; an Exporter made by New
// leaves its store.DB to its owner.
func (e *Exporter) Close() error {
	if e.owned {
		return e.st.Close()
	}
	return nil
}
