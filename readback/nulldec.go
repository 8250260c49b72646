package readback

import (
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/store"
)

// NullDec is an exact number read from a Decimal (or an aggregate) column, in
// canonical decimal text ("" for NULL). It scans from whatever the driver
// returns and marshals to JSON as a number (null when NULL).
type NullDec string

// Scan implements sql.Scanner.
func (d *NullDec) Scan(v any) error {
	c, err := store.Canonical(ddl.Decimal, v)
	if err != nil {
		return err
	}
	if c == nil {
		*d = ""
		return nil
	}
	*d = NullDec(fmt.Sprint(c))
	return nil
}

// Float returns the number as a float64 (0 for NULL), for sorting and
// drawing.
func (d NullDec) Float() float64 {
	f, _ := strconv.ParseFloat(string(d), 64)
	return f
}

// String returns the decimal text, "" for NULL.
func (d NullDec) String() string { return string(d) }

// MarshalJSON writes the number, or null.
func (d NullDec) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	return []byte(d), nil
}

// UnmarshalJSON reads a number or null.
func (d *NullDec) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*d = ""
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return fmt.Errorf("readback: %s is not a number", s)
	}
	*d = NullDec(s)
	return nil
}
