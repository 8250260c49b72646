package tdstest

import "fmt"

// TDS data type identifiers (MS-TDS 2.2.5.4), the raw type byte of a
// TYPE_INFO.
const (
	TypeNull       byte = 0x1F // NULLTYPE: an untyped NULL parameter
	TypeInt1       byte = 0x30 // TINYINT, not nullable
	TypeInt2       byte = 0x34 // SMALLINT, not nullable
	TypeInt4       byte = 0x38 // INT, not nullable
	TypeFlt4       byte = 0x3B // REAL, not nullable
	TypeFlt8       byte = 0x3E // FLOAT, not nullable
	TypeInt8       byte = 0x7F // BIGINT, not nullable
	TypeIntN       byte = 0x26 // nullable integer of 1, 2, 4 or 8 bytes
	TypeDecimalN   byte = 0x6A // DECIMAL(p,s)
	TypeNumericN   byte = 0x6C // NUMERIC(p,s)
	TypeFltN       byte = 0x6D // nullable REAL (4 bytes) or FLOAT (8 bytes)
	TypeBigVarChar byte = 0xA7 // VARCHAR(n) or VARCHAR(MAX)
	TypeBigChar    byte = 0xAF // CHAR(n)
	TypeNVarChar   byte = 0xE7 // NVARCHAR(n) or NVARCHAR(MAX)
	TypeNChar      byte = 0xEF // NCHAR(n)
)

// MaxSize is TypeInfo.Size of a (MAX) type, whose values travel as PLP chunks.
const MaxSize = 0xFFFF

// TypeInfo is a decoded TDS TYPE_INFO.
type TypeInfo struct {
	// ID is the raw type byte, one of the Type constants.
	ID byte
	// Size is the maximum length in bytes (NVARCHAR(10) has 20, MAX types
	// have MaxSize), or the byte size of a fixed or nullable fixed type.
	Size int
	// Precision and Scale apply to DECIMAL and NUMERIC.
	Precision, Scale uint8
	// Collation is the 5-byte collation of character types.
	Collation [5]byte
}

// Common result column types. Values for them may be given as: integers for
// BigInt and Int, float64 or integers for Float.
var (
	BigInt = TypeInfo{ID: TypeIntN, Size: 8}
	Int    = TypeInfo{ID: TypeIntN, Size: 4}
	Float  = TypeInfo{ID: TypeFltN, Size: 8}
)

// defaultCollation is SQL_Latin1_General_CP1_CI_AS.
var defaultCollation = [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}

// NVarChar is NVARCHAR(n), or NVARCHAR(MAX) when n <= 0 or n > 4000. Its
// values are strings.
func NVarChar(n int) TypeInfo {
	if n <= 0 || n > 4000 {
		return TypeInfo{ID: TypeNVarChar, Size: MaxSize, Collation: defaultCollation}
	}
	return TypeInfo{ID: TypeNVarChar, Size: 2 * n, Collation: defaultCollation}
}

// Decimal is DECIMAL(precision, scale), precision 1 to 38. Its values are
// decimal strings (such as "-12.5"), fmt.Stringers producing one, integers
// or float64s; digits beyond the scale are an error.
func Decimal(precision, scale uint8) TypeInfo {
	return TypeInfo{ID: TypeDecimalN, Size: 1 + decimalBytes(precision), Precision: precision, Scale: scale}
}

func decimalBytes(prec uint8) int {
	switch {
	case prec <= 9:
		return 4
	case prec <= 19:
		return 8
	case prec <= 28:
		return 12
	}
	return 16
}

// Length classes of TDS types (MS-TDS 2.2.5.4).
const (
	fixedLen  = iota + 1 // no length prefix
	byteLen              // one length byte
	ushortLen            // two length bytes, or PLP chunks for (MAX) types
)

// typeDesc describes a supported TDS type.
type typeDesc struct {
	name  string // SQL name
	class int    // length class
	size  int    // byte size of fixed types
}

var typeDescs = map[byte]typeDesc{
	TypeNull: {"null", fixedLen, 0}, TypeInt1: {"tinyint", fixedLen, 1},
	TypeInt2: {"smallint", fixedLen, 2}, TypeInt4: {"int", fixedLen, 4}, TypeInt8: {"bigint", fixedLen, 8},
	TypeFlt4: {"real", fixedLen, 4}, TypeFlt8: {"float", fixedLen, 8},

	TypeIntN: {"int", byteLen, 0}, TypeFltN: {"float", byteLen, 0},
	TypeDecimalN: {"decimal", byteLen, 0}, TypeNumericN: {"numeric", byteLen, 0},

	TypeBigVarChar: {"varchar", ushortLen, 0}, TypeBigChar: {"char", ushortLen, 0},
	TypeNVarChar: {"nvarchar", ushortLen, 0}, TypeNChar: {"nchar", ushortLen, 0},
}

// sizedTypes maps nullable types whose SQL name depends on their size to the
// fixed types of each size.
var sizedTypes = map[byte][]byte{
	TypeIntN: {TypeInt1, TypeInt2, TypeInt4, TypeInt8}, TypeFltN: {TypeFlt4, TypeFlt8},
}

func lenClass(id byte) int { return typeDescs[id].class }

// String returns the type in SQL, such as "nvarchar(max)" or "decimal(18,8)".
func (t TypeInfo) String() string {
	for _, f := range sizedTypes[t.ID] {
		if typeDescs[f].size == t.Size {
			return typeDescs[f].name
		}
	}
	d, ok := typeDescs[t.ID]
	switch {
	case !ok:
		return fmt.Sprintf("type(0x%02X)", t.ID)
	case t.ID == TypeDecimalN || t.ID == TypeNumericN:
		return fmt.Sprintf("%s(%d,%d)", d.name, t.Precision, t.Scale)
	case d.class != ushortLen:
		return d.name
	case t.Size == MaxSize:
		return d.name + "(max)"
	case t.ID == TypeNVarChar || t.ID == TypeNChar:
		return fmt.Sprintf("%s(%d)", d.name, t.Size/2)
	}
	return fmt.Sprintf("%s(%d)", d.name, t.Size)
}
