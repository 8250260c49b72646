// Package plantest shows tests the statements profdb runs and the plans
// the database chooses for them (docs/performance.md, "Indexes: what each
// one serves" and "Plans and statistics").
//
// Open returns a database handle that records every statement with its
// arguments. With Options.ExplainFirst its connections, just before they
// run a SELECT, WITH, INSERT, UPDATE or DELETE, ask the database for its
// plan of that statement, on the same connection, inside the same
// transaction, with the same arguments, so that the plan is the one the
// statement then gets under the session settings profdb gave the
// transaction; without it, Explain asks for a recorded statement's plan
// later, on the database as it then is. Neither runs a statement it only
// explains.
//
// One reader per dialect reads a plan into Scans, how each table is read:
// SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (FORMAT JSON) (with
// its JIT and parallel workers), MySQL's and MariaDB's EXPLAIN
// FORMAT=JSON; on the last three, the nested loops that read a table
// again for each outer row (Scan.PerRow). Shape
// checks a statement's text for the joins that let a planner read a table
// by INST_ID alone.
//
// Its users: its own plan tests (plans_test.go: every one-set command's
// statements held to their indexes) and cmd/profdb's
// TestPlansWithStaleStatistics.
//
// It is a test kit. A handle of Open hides the driver's own connection
// and statements: PostgreSQL's bulk path (COPY through lib/pq) fails on
// it, so an export through it takes exporter.BulkOff. MySQL's LOAD DATA
// runs as usual.
package plantest
