package sqlite

import "github.com/profdb/profdb/dialects"

var _ dialects.Explainer = Dialect{}

// QueryPlan is the format of SQLite's plans: the rows of EXPLAIN QUERY
// PLAN, one line of text each (its detail column).
const QueryPlan = "sqlite-query-plan"

// Explain returns EXPLAIN QUERY PLAN query, whose fourth column (id,
// parent, notused, detail) holds each line of the plan.
func (Dialect) Explain(query string) (stmt string, col int, format string) {
	return "EXPLAIN QUERY PLAN " + query, 3, QueryPlan
}
