package plantest

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// explainOf returns how a dialect is asked for a plan
// (dialects.Explainer): the statement that asks for the plan of query,
// the column of its rows that holds the plan, and the plan's format.
func explainOf(dialect, query string) (stmt string, col int, format string, err error) {
	d, err := dialects.Lookup(dialect)
	if err != nil {
		return "", 0, "", fmt.Errorf("plantest: %w", err)
	}
	e, ok := d.(dialects.Explainer)
	if !ok {
		return "", 0, "", fmt.Errorf("plantest: no plans of %s", dialect)
	}
	stmt, col, format = e.Explain(query)
	return stmt, col, format, nil
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
// it now, of query with args, and reads it. dialect is the name of a
// dialects.Explainer. No server runs a statement it only
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
	stmt, col, _, err := explainOf(dialect, query)
	if err != nil {
		return "", err
	}
	rows, err := q.QueryContext(ctx, stmt, args...)
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
