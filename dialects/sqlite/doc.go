// Package sqlite is profdb's SQLite dialect, on the pure-Go driver
// modernc.org/sqlite (database/sql driver name "sqlite"). Importing it
// registers the dialect for the DSN scheme "sqlite:":
//
//	import _ "github.com/profdb/profdb/dialects/sqlite"
//
// Tables are created STRICT, so SQLite refuses values it would otherwise
// silently convert (text in an INTEGER column, say); see types.go for the
// column types and why Decimal columns are ANY. A schema name is the name of
// an attached database ("main", "temp", or an ATTACH alias); "" means no
// qualifier. temp, each connection's own temporary database, is refused
// for writing (dialects.TempSchemas).
//
// Writers serialize through BEGIN IMMEDIATE (the DSN sets _txlock=immediate),
// so the dialect needs no lock of its own and does not implement
// dialects.Locker. Every connection waits for another's lock up to the lock
// timeout (SQLite's busy timeout; the DSN's lock_timeout, 10 minutes by
// default), and the store waits again while the file shows that writers
// make progress (dialects.LockWaiter).
package sqlite
