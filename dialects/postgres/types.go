package postgres

import (
	"github.com/profdb/profdb/ddl"
)

// Column types of the tables profdb creates:
//
//	String  -> TEXT              any length (up to 1 GB), any Unicode except U+0000
//	Integer -> BIGINT            signed 64-bit
//	Float   -> DOUBLE PRECISION  IEEE 754 double
//	Decimal -> NUMERIC(28,8)     exact; 20 integer digits hold every uint64
//
// PostgreSQL text cannot hold the character U+0000 (NUL); inserting it is
// an error, never a silent change.
const (
	TypeString  = "TEXT"
	TypeInteger = "BIGINT"
	TypeFloat   = "DOUBLE PRECISION"
	TypeDecimal = "NUMERIC(28,8)"
)

// ColumnType returns the column type for t (see TypeString etc.), or ""
// for an invalid type.
func (Dialect) ColumnType(t ddl.Type) string {
	switch t {
	case ddl.String:
		return TypeString
	case ddl.Integer:
		return TypeInteger
	case ddl.Float:
		return TypeFloat
	case ddl.Decimal:
		return TypeDecimal
	}
	return ""
}

// Bind converts a canonical value for lib/pq. A Decimal (ddl.Dec)
// becomes its text as a plain string, which the server parses exactly into
// the NUMERIC column. Integer (int64), Float (float64: lib/pq sends the
// shortest exact decimal, which the server reads back to the same double),
// String (string) and nil pass unchanged, as do values of other Go types.
func (Dialect) Bind(t ddl.Type, v any) any {
	if d, ok := v.(ddl.Dec); ok {
		return string(d)
	}
	return v
}
