// Package indexplan lets tests see how the statements profdb runs reach
// their rows: Open gives a database handle that records every statement
// and its arguments, Explain asks the database for the plan of one of them
// (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's and MariaDB's EXPLAIN FORMAT
// JSON) and returns how it reads each table, and Shape checks a statement's
// text for the joins that let a planner read a table by INST_ID alone.
//
// It is for tests only: the tests that hold every one-set query to its
// result set's index (docs/performance.md, "Indexes: what each one
// serves").
package indexplan
