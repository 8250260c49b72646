package resultset

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
)

// Convert turns a value given for a column of logical type t into its
// canonical form: int64 for Integer, ddl.Dec for Decimal, float64 for
// Float, string for String, nil for NULL. It accepts Go integers and floats,
// json.Number (read exactly), ddl.Dec, and for Decimal also decimal
// text. Text where a number belongs, a number where text belongs, a
// fraction for an Integer, a value out of range, a non-finite float or
// invalid UTF-8 is an error saying what is wrong with the value (the caller
// adds table, column and row).
func Convert(t ddl.Type, v any) (any, error) {
	// The values most rows carry are already canonical: they are returned
	// as given, after the same checks, rather than boxed into a new
	// interface value (an allocation per value on the hot path).
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		if t == ddl.Integer {
			return v, nil
		}
	case float64:
		if t == ddl.Float && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return v, nil
		}
	case string:
		if t == ddl.String && utf8.ValidString(x) {
			return v, nil
		}
	}
	switch t {
	case ddl.Integer:
		return toInteger(v)
	case ddl.Decimal:
		return toDecimal(v)
	case ddl.Float:
		return toFloat(v)
	case ddl.String:
		return toString(v)
	}
	return nil, fmt.Errorf("invalid column type %v", t)
}

func toInteger(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint:
		return uintToInt64(uint64(x))
	case uint64:
		return uintToInt64(x)
	case float64:
		return floatToInt64(x)
	case float32:
		return floatToInt64(float64(x))
	case json.Number:
		return numberToInt64(string(x))
	case ddl.Dec:
		return numberToInt64(string(x))
	case bool:
		return nil, fmt.Errorf("want an integer, got boolean %v", x)
	case string:
		return nil, fmt.Errorf("want an integer, got text %s", quoteShort(x))
	}
	return nil, fmt.Errorf("want an integer, got %T", v)
}

func uintToInt64(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return nil, fmt.Errorf("%d is out of range for a 64-bit integer", u)
	}
	return int64(u), nil
}

func floatToInt64(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("want an integer, got %v", f)
	}
	if f != math.Trunc(f) {
		return nil, fmt.Errorf("want an integer, got %v", f)
	}
	if f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return nil, fmt.Errorf("%v is out of range for a 64-bit integer", f)
	}
	return int64(f), nil
}

func numberToInt64(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	// "1.0", "1e3": integral values written as decimals are accepted.
	d, err := ParseDecimal(s)
	if err != nil {
		return nil, fmt.Errorf("want an integer, got %s", quoteShort(s))
	}
	if strings.Contains(string(d), ".") {
		return nil, fmt.Errorf("want an integer, got %s", s)
	}
	i, err := strconv.ParseInt(string(d), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is out of range for a 64-bit integer", s)
	}
	return i, nil
}

func toDecimal(v any) (any, error) {
	switch x := v.(type) {
	case ddl.Dec:
		return ParseDecimal(string(x))
	case json.Number:
		return ParseDecimal(string(x))
	case string:
		d, err := ParseDecimal(x)
		if err != nil {
			return nil, err
		}
		return d, nil
	case int64:
		return ddl.Dec(strconv.FormatInt(x, 10)), nil
	case int:
		return ddl.Dec(strconv.FormatInt(int64(x), 10)), nil
	case int32:
		return ddl.Dec(strconv.FormatInt(int64(x), 10)), nil
	case int16, int8, uint8, uint16, uint32:
		i, _ := toInteger(x)
		return ddl.Dec(strconv.FormatInt(i.(int64), 10)), nil
	case uint64:
		return ddl.Dec(strconv.FormatUint(x, 10)), nil
	case uint:
		return ddl.Dec(strconv.FormatUint(uint64(x), 10)), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("want a decimal, got %v", x)
		}
		return ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64))
	case float32:
		return toDecimal(float64(x))
	case bool:
		return nil, fmt.Errorf("want a decimal, got boolean %v", x)
	}
	return nil, fmt.Errorf("want a decimal, got %T", v)
}

func toFloat(v any) (any, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case int32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case json.Number:
		p, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("%s is out of range for a 64-bit float", x)
			}
			return nil, fmt.Errorf("want a number, got %s", quoteShort(string(x)))
		}
		f = p
	case ddl.Dec:
		return toFloat(json.Number(x))
	case string:
		return nil, fmt.Errorf("want a number, got text %s", quoteShort(x))
	case bool:
		return nil, fmt.Errorf("want a number, got boolean %v", x)
	default:
		return nil, fmt.Errorf("want a number, got %T", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v is not a finite number", f)
	}
	return f, nil
}

func toString(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return nil, errors.New("text is not valid UTF-8")
		}
		return x, nil
	case []byte:
		if !utf8.Valid(x) {
			return nil, errors.New("text is not valid UTF-8")
		}
		return string(x), nil
	case json.Number, ddl.Dec, int64, int, int32, uint64, float64, float32:
		return nil, fmt.Errorf("want text, got number %v", x)
	case bool:
		return nil, fmt.Errorf("want text, got boolean %v", x)
	}
	return nil, fmt.Errorf("want text, got %T", v)
}

// MaxDecimalIntDigits is the number of integer digits a Decimal holds: 20,
// enough for every uint64.
const MaxDecimalIntDigits = ddl.DecimalPrecision - ddl.DecimalScale

// ParseDecimal parses decimal text exactly: an optional sign, digits with an
// optional fraction, and an optional exponent (JSON number syntax, also
// without the restriction on leading zeros). It returns the canonical form
// (see ddl.Dec) and fails when the value needs more than 20 integer
// digits or more than 8 fractional digits.
func ParseDecimal(s string) (ddl.Dec, error) {
	if s == "" {
		return "", errors.New("want a decimal, got empty text")
	}
	orig := s
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || s[i+1:] == "" {
			return "", fmt.Errorf("want a decimal, got %s", quoteShort(orig))
		}
		if e > 100 || e < -100 {
			return "", fmt.Errorf("%s is out of range for a decimal", quoteShort(orig))
		}
		exp = e
	}
	intPart, frac, hasPoint := strings.Cut(mant, ".")
	if intPart == "" && (!hasPoint || frac == "") {
		return "", fmt.Errorf("want a decimal, got %s", quoteShort(orig))
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return "", fmt.Errorf("want a decimal, got %s", quoteShort(orig))
			}
		}
	}
	digits := intPart + frac
	point := len(intPart) + exp // position of the decimal point in digits
	// Pad so that 0 <= point <= len(digits).
	if point < 0 {
		digits = strings.Repeat("0", -point) + digits
		point = 0
	}
	if point > len(digits) {
		digits += strings.Repeat("0", point-len(digits))
	}
	ip := strings.TrimLeft(digits[:point], "0")
	fp := strings.TrimRight(digits[point:], "0")
	if len(ip) > MaxDecimalIntDigits {
		return "", fmt.Errorf("%s is out of range for a decimal (more than %d integer digits)", quoteShort(orig), MaxDecimalIntDigits)
	}
	if len(fp) > ddl.DecimalScale {
		return "", fmt.Errorf("%s has more than %d decimal places", quoteShort(orig), ddl.DecimalScale)
	}
	if ip == "" {
		ip = "0"
	}
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return ddl.Dec(out), nil
}

// quoteShort quotes text for a message, cut to 40 characters.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(s)
}
