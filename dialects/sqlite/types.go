package sqlite

import (
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
)

// Column types of the STRICT tables profdb creates:
//
//	String  -> TEXT     any Unicode, up to SQLITE_MAX_LENGTH (1e9 bytes)
//	Integer -> INTEGER  signed 64-bit
//	Float   -> REAL     IEEE 754 double
//	Decimal -> ANY      see below
//
// SQLite has no exact decimal type. A column declared DECIMAL or NUMERIC has
// NUMERIC affinity, which stores '18446744073709551615' (the largest address
// the documents allow) as a lossy REAL 1.8446744073709552e19 (verified with
// sqlite3 3.40). A STRICT table's ANY column keeps every value exactly as it
// was bound, so Bind chooses the storage class per value: an INTEGER when the
// decimal is integral and fits int64, a REAL when the double prints back as
// exactly the same decimal text, and otherwise the canonical text itself.
// Ordinary numbers therefore compare and sum numerically, and huge or very
// precise values survive unchanged (as TEXT, which SQLite sorts after every
// number).
//
// STRICT also makes SQLite reject text in an INTEGER or REAL column instead
// of storing it silently.
const (
	TypeString  = "TEXT"
	TypeInteger = "INTEGER"
	TypeFloat   = "REAL"
	TypeDecimal = "ANY"
)

// ColumnType returns the STRICT column type for t (see TypeString etc.),
// or "" for an invalid type.
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

// Bind converts a canonical value for the driver. Integer (int64), Float
// (float64), String (string) and nil pass unchanged. A Decimal
// (ddl.Dec, or a string in the same canonical form) becomes:
//   - int64 when it is integral and fits int64;
//   - float64 when strconv.FormatFloat(f, 'f', -1, 64) reproduces its text
//     exactly, so reading the REAL back and formatting it gives the same
//     decimal;
//   - otherwise its text, stored as TEXT in the ANY column.
//
// Values of any other Go type pass unchanged.
func (Dialect) Bind(t ddl.Type, v any) any {
	if t != ddl.Decimal {
		return v
	}
	switch x := v.(type) {
	case ddl.Dec:
		return decimalValue(string(x))
	case string:
		return decimalValue(x)
	}
	return v
}

// decimalValue picks the storage class for a canonical decimal text.
func decimalValue(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(i, 10) == s {
			return i
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == s {
		return f
	}
	return s
}

// affinity maps a declared column type to the logical type by SQLite's
// affinity rules (https://sqlite.org/datatype3.html#determination_of_column_affinity):
// INT -> Integer; CHAR, CLOB, TEXT -> String; BLOB or no type -> none (0);
// REAL, FLOA, DOUB -> Float; anything else (NUMERIC affinity, and ANY) ->
// Decimal.
func affinity(declared string) ddl.Type {
	u := strings.ToUpper(declared)
	switch {
	case strings.Contains(u, "INT"):
		return ddl.Integer
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return ddl.String
	case strings.Contains(u, "BLOB"), strings.TrimSpace(u) == "":
		return 0
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return ddl.Float
	}
	return ddl.Decimal
}

// typeArgs returns the numbers in a declared type's parentheses:
// "DECIMAL(10,2)" gives 10, 2; "NUMERIC(12)" gives 12, 0.
func typeArgs(declared string) (p, s int) {
	open := strings.IndexByte(declared, '(')
	closing := strings.LastIndexByte(declared, ')')
	if open < 0 || closing < open {
		return 0, 0
	}
	a, b, _ := strings.Cut(declared[open+1:closing], ",")
	p, _ = strconv.Atoi(strings.TrimSpace(a))
	s, _ = strconv.Atoi(strings.TrimSpace(b))
	return p, s
}
