// Package plantest shows the plans a database server chooses for the
// statements profdb sends, for tests that check them (docs/performance.md,
// "Plans and statistics").
//
// Open returns a store.DB whose connections, just before they run a
// SELECT, WITH, INSERT, UPDATE or DELETE, ask the server for its plan of
// that statement: EXPLAIN (FORMAT JSON) on PostgreSQL, EXPLAIN
// FORMAT=JSON on MySQL and MariaDB. The EXPLAIN runs on the same
// connection, inside the same transaction, with the same arguments, so its
// plan is the one the statement then gets, under the session settings
// profdb gave the transaction. Neither server runs a statement it only
// explains. The Recorder keeps each statement with its plan, read into
// Scans (how each table is read), JIT and Workers.
//
// A connection of Open hides the driver's own connection and statements:
// PostgreSQL's bulk path (COPY through lib/pq) fails on it, so an export
// through it takes exporter.BulkOff, whose INSERTs are explained too.
// MySQL's LOAD DATA runs as usual.
package plantest
