package plantest

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// explainOf returns how a dialect is asked for a plan: the prefix that
// makes a statement its EXPLAIN, and the column of the EXPLAIN's rows
// that holds the plan.
func explainOf(dialect string) (prefix string, col int, err error) {
	switch dialect {
	case "sqlite":
		return "EXPLAIN QUERY PLAN ", 3, nil // id, parent, notused, detail
	case "postgres":
		return "EXPLAIN (FORMAT JSON) ", 0, nil
	case "mysql":
		return "EXPLAIN FORMAT=JSON ", 0, nil
	}
	return "", 0, fmt.Errorf("plantest: no plans of %s", dialect)
}

// planLine returns the text of column col of an EXPLAIN's row.
func planLine[V any](row []V, col int) (string, error) {
	if col >= len(row) {
		return "", fmt.Errorf("a plan of %d columns", len(row))
	}
	switch v := any(row[col]).(type) {
	case []byte:
		return string(v), nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("a plan as %T", v)
	}
}

// Explain asks the database q reaches for its plan, as its planner plans
// it now, of query with args, and reads it. dialect is the dialect's name:
// "sqlite", "postgres" or "mysql". No server runs a statement it only
// explains: a DELETE or UPDATE may be explained too.
func Explain(ctx context.Context, q dialects.DBTX, dialect, query string, args []any) (Plan, error) {
	text, err := planText(ctx, q, dialect, query, args)
	if err != nil {
		return Plan{}, fmt.Errorf("plantest: explain %s: %w", oneLine(query), err)
	}
	return ReadPlan(dialect, query, text)
}

// planText asks q for the plan of query with args and returns it as
// Plan.Text.
func planText(ctx context.Context, q dialects.DBTX, dialect, query string, args []any) (string, error) {
	prefix, col, err := explainOf(dialect)
	if err != nil {
		return "", err
	}
	rows, err := q.QueryContext(ctx, prefix+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		line, err := planLine(vals, col)
		if err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return strings.Join(lines, "\n"), nil
}

// oneLine is query on one line, cut short, for an error.
func oneLine(query string) string {
	s := strings.Join(strings.Fields(query), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
