package ddl

import (
	"fmt"
	"strings"
)

// Type is a logical column type, as the AQTime documents name them.
type Type int

// The logical types. The zero Type is invalid.
const (
	String  Type = iota + 1 // text of any length, any Unicode
	Integer                 // signed 64-bit integer
	Decimal                 // exact decimal: the whole uint64 range plus 8 fractional digits
	Float                   // IEEE 754 double ("Floating-point" in the documents)
)

// DecimalPrecision and DecimalScale are the precision and scale every dialect
// uses for Decimal: 20 integer digits hold every uint64 (addresses), 8
// fractional digits hold the fractions the documents allow.
const (
	DecimalPrecision = 28
	DecimalScale     = 8
)

// Dec is a Decimal value in canonical text form: an optional '-', digits
// with no leading zeros (a single "0" before the point), and, if there is a
// fraction, '.' and at most DecimalScale digits without trailing zeros. It
// is how a result set carries exact decimals from a reader to a dialect.
type Dec string

var typeNames = [...]string{String: "String", Integer: "Integer", Decimal: "Decimal", Float: "Float"}

// String returns the type's name: "String", "Integer", "Decimal" or "Float".
func (t Type) String() string {
	if t < String || t > Float {
		return fmt.Sprintf("Type(%d)", int(t))
	}
	return typeNames[t]
}

// Valid reports whether t is one of the four logical types.
func (t Type) Valid() bool { return t >= String && t <= Float }

// ParseType parses a type name case-insensitively. It accepts the names
// String returns and the documents' "Floating-point".
func ParseType(s string) (Type, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "string":
		return String, nil
	case "integer":
		return Integer, nil
	case "decimal":
		return Decimal, nil
	case "float", "floating-point":
		return Float, nil
	}
	return 0, fmt.Errorf("ddl: unknown logical type %q (want String, Integer, Decimal or Float)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (t Type) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("ddl: invalid type %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *Type) UnmarshalText(b []byte) error {
	v, err := ParseType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
