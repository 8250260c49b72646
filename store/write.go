package store

import "github.com/profdb/profdb/dialects"

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
