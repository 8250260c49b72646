package dialects

import (
	"strconv"
	"strings"
)

// InsertSQL builds a multi-row INSERT of rows rows into the already
// qualified table, with a placeholder for every value, numbered as the
// dialect numbers them.
func InsertSQL(d Dialect, qualifiedTable string, columns []string, rows int) string {
	var b strings.Builder
	b.Grow(32 + len(qualifiedTable) + 16*len(columns) + rows*len(columns)*6)
	b.WriteString("INSERT INTO ")
	b.WriteString(qualifiedTable)
	b.WriteString(" (")
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(c))
	}
	b.WriteString(") VALUES ")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range columns {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Placeholder(n))
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// RowsPerInsert is how many rows of cols columns one INSERT may carry under
// the dialect's limits.
func RowsPerInsert(l Limits, cols int) int {
	if cols <= 0 {
		return 1
	}
	n := l.MaxParams / cols
	if l.MaxRows > 0 && n > l.MaxRows {
		n = l.MaxRows
	}
	if n < 1 {
		n = 1
	}
	return n
}

// QuoteWith quotes ident with the quote characters open and close, doubling
// close inside: "a""b" for PostgreSQL, [a]]b] for SQL Server.
func QuoteWith(open, close byte, ident string) string {
	return string(open) + strings.ReplaceAll(ident, string(close), string(close)+string(close)) + string(close)
}

// NumberedPlaceholder returns prefix followed by n ("$3", "@p3").
func NumberedPlaceholder(prefix string, n int) string { return prefix + strconv.Itoa(n) }
