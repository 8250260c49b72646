package dialects

import (
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
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

// BatchBytes is about how many bytes of values a batch of rows holds at
// most, as RowBytes counts them: writers that batch rows (the exporter's
// bulk feed and batched INSERTs, the bulk loaders) end a batch there as
// well as at its row count, so that a batch of long strings (up to 8 MiB
// each in an interchange file) holds one or two of them, not a thousand.
// A row larger than this is a batch of its own.
const BatchBytes = 3 << 20

// RowBytes is about the memory the values of row hold: the bytes of its
// text (strings, byte slices and decimals) and 16 for every value, which
// an interface takes.
func RowBytes(row []any) int {
	n := 16 * len(row)
	for _, v := range row {
		switch x := v.(type) {
		case string:
			n += len(x)
		case []byte:
			n += len(x)
		case ddl.Dec:
			n += len(x)
		}
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
