package sqlserver

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
)

// Column types of the four logical types (docs/layout.md, "Types"). Each holds
// every value of its logical type without loss: NVARCHAR(MAX) any Unicode
// text of any length, BIGINT a signed 64-bit integer, DECIMAL(28,8) the
// whole uint64 range with 8 fractional digits, FLOAT (that is, FLOAT(53))
// an IEEE 754 double.
var columnTypes = map[ddl.Type]string{
	ddl.String:  "NVARCHAR(MAX)",
	ddl.Integer: "BIGINT",
	ddl.Decimal: fmt.Sprintf("DECIMAL(%d,%d)", ddl.DecimalPrecision, ddl.DecimalScale),
	ddl.Float:   "FLOAT",
}

// ColumnType returns the column type for t: NVARCHAR(MAX), BIGINT,
// DECIMAL(28,8) or FLOAT. It panics on an invalid type, which validated
// tables (ddl.ValidateTable) never have.
func (Dialect) ColumnType(t ddl.Type) string {
	s, ok := columnTypes[t]
	if !ok {
		panic(fmt.Sprintf("sqlserver: ColumnType of invalid type %v", t))
	}
	return s
}

// Bind converts a value in canonical form (see package dialects) into the
// form go-mssqldb sends without loss for a column of logical type t:
//
//   - Decimal: a string holding the canonical decimal text. go-mssqldb
//     sends an integer as BIGINT, and SQL Server then drops the scale of a
//     DECIMAL(p,s) column; it has no exact decimal parameter for a plain
//     Go value either (a shopspring decimal.Decimal goes out as its text,
//     through driver.Valuer). Text, declared NVARCHAR, converts exactly
//     into DECIMAL(28,8) on the server.
//   - String: a Go string, which go-mssqldb sends as NVARCHAR (UTF-16), so
//     any Unicode survives; numbers given for a String column are formatted
//     as text first, since go-mssqldb would otherwise send them as numbers
//     that SQL Server writes as single-byte text.
//   - Integer: int64 (BIGINT).
//   - Float: float64 (FLOAT(53)). NaN and infinities pass through; SQL
//     Server rejects them.
//   - nil becomes a NULL of the column's type (sql.NullString for String
//     and Decimal, sql.NullInt64, sql.NullFloat64). go-mssqldb sends a bare
//     Go nil as TDS type 0x1F, an untyped NULL that SQL Server accepts but
//     other TDS servers refuse (Babelfish: "Data type 0x1F is unknown");
//     a typed NULL is valid for both (docs/sqlserver.md).
//
// A ddl.Dec becomes a string whatever t is. Values of other Go types
// are returned unchanged.
func (Dialect) Bind(t ddl.Type, v any) any {
	switch x := v.(type) {
	case nil:
		return typedNull(t)
	case ddl.Dec:
		return string(x)
	}
	switch t {
	case ddl.Decimal, ddl.String:
		switch x := v.(type) {
		case string:
			return x
		case int64:
			return strconv.FormatInt(x, 10)
		case int:
			return strconv.Itoa(x)
		case int32:
			return strconv.FormatInt(int64(x), 10)
		case uint64:
			return strconv.FormatUint(x, 10)
		case uint32:
			return strconv.FormatUint(uint64(x), 10)
		case float64:
			if t == ddl.Decimal {
				return strconv.FormatFloat(x, 'f', -1, 64)
			}
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case ddl.Integer:
		switch x := v.(type) {
		case int:
			return int64(x)
		case int32:
			return int64(x)
		case uint32:
			return int64(x)
		}
	case ddl.Float:
		switch x := v.(type) {
		case float32:
			return float64(x)
		}
	}
	return v
}

// typedNull returns the NULL that go-mssqldb sends with the parameter type
// of a column of logical type t: NVARCHAR for String and Decimal (as
// Decimal values are sent as text), BIGINT for Integer, FLOAT for Float.
func typedNull(t ddl.Type) any {
	switch t {
	case ddl.Integer:
		return sql.NullInt64{}
	case ddl.Float:
		return sql.NullFloat64{}
	default:
		return sql.NullString{}
	}
}
