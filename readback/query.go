package readback

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/profdb/profdb/dialects"
)

// Each runs a query template over the AQTime tables, as the Reader's own
// queries are written, and calls each with every row scanned into a new T
// (sqlx struct scanning by db tags), until each returns an error, which
// Each returns. In the template {T} names a documented table (qualified and
// quoted as the database has it), {T.C} a column of it, {alias:T} a table
// with an alias, {alias.T.C} a column through an alias, and {?N} the N-th
// of args ({?} the first), as Reader.Query takes them. It is how packages
// above readback (compare, gate) write SQL that runs on every dialect.
func Each[T any](ctx context.Context, r *Reader, tmpl string, args []any, each func(*T) error) error {
	return r.rows(ctx, tmpl, args, func(rows *sqlx.Rows) error {
		v := new(T)
		if err := rows.StructScan(v); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		return each(v)
	})
}

// ExactText returns a text expression (of a query template) that compares,
// groups and sorts code point by code point on every dialect: for names
// matched across result sets, which must not merge when they differ only in
// case. It is expr itself where the dialect compares text exactly already
// (see dialects.Collator).
func (r *Reader) ExactText(expr string) string {
	if c, ok := r.d.(dialects.Collator); ok {
		return c.ExactText(expr)
	}
	return expr
}
