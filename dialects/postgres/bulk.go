package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.BulkLoader = Dialect{}

// CopySQL returns the COPY statement BulkLoad prepares:
//
//	COPY "schema"."table" ("col", ...) FROM STDIN
//
// in text format, the names quoted as given (real names). lib/pq turns a
// statement starting with COPY into its CopyIn stream.
func (d Dialect) CopySQL(schema, table string, columns []string) string {
	var b strings.Builder
	b.WriteString("COPY ")
	b.WriteString(d.Qualify(schema, table))
	b.WriteString(" (")
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(c))
	}
	b.WriteString(") FROM STDIN")
	return b.String()
}

// BulkLoad writes rows into t with COPY ... FROM STDIN (lib/pq's CopyIn,
// the text format) inside tx and returns the row count the server reports.
// It implements dialects.BulkLoader.
//
// Values go as lib/pq encodes them for the text format: an int64 in
// decimal, a float64 as its shortest exact decimal (strconv 'f', -1), which
// float8in reads back to the same double, a string escaped for COPY
// (backslash, tab, newline, carriage return), a Decimal as its canonical
// text, which numeric(28,8) takes exactly, and NULL as \N. A string with
// U+0000 is refused by the server, as it is by INSERT. Every server
// PostgreSQL supports has COPY, so BulkLoad never returns dialects.ErrSkip.
func (d Dialect) BulkLoad(ctx context.Context, tx *sql.Tx, t dialects.Target, rows dialects.Rows) (n int64, err error) {
	if len(t.Columns) == 0 || len(t.Types) != len(t.Columns) {
		return 0, fmt.Errorf("postgres: bulk load into %s: %d columns with %d types", t.Table, len(t.Columns), len(t.Types))
	}
	stmt, err := tx.PrepareContext(ctx, d.CopySQL(t.Schema, t.Table, t.Columns))
	if err != nil {
		return 0, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
	}
	// Close ends the COPY if it is still open (after an error); its own
	// error says nothing new, and the transaction is rolled back anyway.
	defer stmt.Close()
	args := make([]any, len(t.Columns))
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		if len(row) != len(args) {
			return n, fmt.Errorf("postgres: COPY into %s: row %d has %d values for %d columns", t.Table, n+1, len(row), len(args))
		}
		for i, v := range row {
			args[i] = copyValue(v)
		}
		// lib/pq buffers rows and sends them in 64 KiB messages; an error
		// of the server comes back with a later row or the final Exec.
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return n, fmt.Errorf("postgres: COPY into %s, near row %d: %w", t.Table, n+1, err)
		}
		n++
	}
	res, err := stmt.ExecContext(ctx)
	if err != nil {
		return n, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
	}
	got, err := res.RowsAffected()
	if err != nil {
		return n, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
	}
	if got != n {
		return got, fmt.Errorf("postgres: COPY into %s wrote %d rows of %d", t.Table, got, n)
	}
	return got, nil
}

// copyValue turns a canonical value into one lib/pq's COPY encoder takes:
// a Decimal becomes its text; everything else passes unchanged.
func copyValue(v any) any {
	if x, ok := v.(dialects.Dec); ok {
		return string(x)
	}
	return v
}
