package postgres

import "github.com/profdb/profdb/dialects"

var _ dialects.Explainer = Dialect{}

// PlanJSON is the format of PostgreSQL's plans: EXPLAIN (FORMAT JSON).
const PlanJSON = "postgres-json"

// Explain returns EXPLAIN (FORMAT JSON) query: one row, one JSON column.
func (Dialect) Explain(query string) (stmt string, col int, format string) {
	return "EXPLAIN (FORMAT JSON) " + query, 0, PlanJSON
}
