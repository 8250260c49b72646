package mysql

import "github.com/profdb/profdb/dialects"

var _ dialects.Explainer = Dialect{}

// PlanJSON is the format of MariaDB's and MySQL's plans: EXPLAIN
// FORMAT=JSON.
const PlanJSON = "mysql-json"

// Explain returns EXPLAIN FORMAT=JSON query: one row, one JSON column.
func (Dialect) Explain(query string) (stmt string, col int, format string) {
	return "EXPLAIN FORMAT=JSON " + query, 0, PlanJSON
}
