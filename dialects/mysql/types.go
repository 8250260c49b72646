package mysql

import (
	"github.com/profdb/profdb/ddl"
)

// Column types of the tables profdb creates (utf8mb4, utf8mb4_bin):
//
//	String  -> LONGTEXT       up to 4 GiB; any Unicode, U+0000 included
//	Integer -> BIGINT         signed 64-bit
//	Float   -> DOUBLE         IEEE 754 double
//	Decimal -> DECIMAL(28,8)  exact; 20 integer digits hold every uint64
const (
	TypeString  = "LONGTEXT"
	TypeInteger = "BIGINT"
	TypeFloat   = "DOUBLE"
	TypeDecimal = "DECIMAL(28,8)"
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

// Bind converts a canonical value for go-sql-driver/mysql. A Decimal
// (ddl.Dec) becomes its text as a plain string, which the server
// converts exactly into the DECIMAL column. Integer (int64), Float
// (float64, sent as an 8-byte double in the binary protocol), String
// (string) and nil pass unchanged, as do values of other Go types.
func (Dialect) Bind(t ddl.Type, v any) any {
	if d, ok := v.(ddl.Dec); ok {
		return string(d)
	}
	return v
}
