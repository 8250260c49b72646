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
// text; number text has the syntax ParseDecimal reads for every numeric
// type. A float converts to a Decimal as its shortest decimal form at its
// own size (float32(0.1) is 0.1). The limits of a type apply to the value,
// however it is written. Text where a number belongs, a number where text
// belongs, a fraction for an Integer, a value out of range, a non-finite
// float or invalid UTF-8 is an error saying what is wrong with the value,
// quoting at most 40 characters of it (the caller adds table, column and
// row); so is an invalid t, even for NULL. On an error the value is nil.
func Convert(t ddl.Type, v any) (any, error) {
	// The values most rows carry are already canonical: they are returned
	// as given, after the same checks, rather than boxed into a new
	// interface value (an allocation per value on the hot path).
	switch x := v.(type) {
	case nil:
		if t.Valid() {
			return nil, nil
		}
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
	n, ok := scanNumber(s)
	if !ok || len(n.digits) > n.point {
		return nil, fmt.Errorf("want an integer, got %s", quoteShort(s))
	}
	if n.digits == "" {
		return int64(0), nil // "0.", "-0e5"
	}
	// The value has n.point integer digits: 20 are beyond any int64.
	if n.point <= 19 {
		text := n.digits + strings.Repeat("0", n.point-len(n.digits))
		if n.neg {
			text = "-" + text
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i, nil
		}
	}
	return nil, fmt.Errorf("%s is out of range for a 64-bit integer", quoteShort(s))
}

func toDecimal(v any) (any, error) {
	switch x := v.(type) {
	case ddl.Dec:
		return textToDecimal(string(x))
	case json.Number:
		return textToDecimal(string(x))
	case string:
		return textToDecimal(x)
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
		return floatToDecimal(x, 64)
	case float32:
		return floatToDecimal(float64(x), 32)
	case bool:
		return nil, fmt.Errorf("want a decimal, got boolean %v", x)
	}
	return nil, fmt.Errorf("want a decimal, got %T", v)
}

// textToDecimal is ParseDecimal with nil, not an empty ddl.Dec, beside an
// error.
func textToDecimal(s string) (any, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// floatToDecimal converts a float of the given size (32 or 64 bits) as its
// shortest decimal form: float32(0.1) is 0.1, as float64(0.1) is.
func floatToDecimal(f float64, bits int) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("want a decimal, got %v", f)
	}
	return textToDecimal(strconv.FormatFloat(f, 'f', -1, bits))
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
	case int16:
		f = float64(x)
	case int8:
		f = float64(x)
	case uint64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint8:
		f = float64(x)
	case json.Number:
		return textToFloat(string(x))
	case ddl.Dec:
		return textToFloat(string(x))
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

// textToFloat reads number text as the nearest float64. Only the decimal
// syntax is number text: not strconv's "NaN", "Inf", hexadecimal or
// underscores.
func textToFloat(s string) (any, error) {
	if !validNumber(s) {
		return nil, fmt.Errorf("want a number, got %s", quoteShort(s))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%s is out of range for a 64-bit float", quoteShort(s))
		}
		return nil, fmt.Errorf("want a number, got %s", quoteShort(s))
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
	case json.Number:
		return nil, fmt.Errorf("want text, got number %s", quoteShort(string(x)))
	case ddl.Dec:
		return nil, fmt.Errorf("want text, got number %s", quoteShort(string(x)))
	case int64, int, int32, uint64, float64, float32:
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
// digits or more than 8 fractional digits, however it is written: "0e999"
// is 0, "1e-9" has too many decimal places.
func ParseDecimal(s string) (ddl.Dec, error) {
	if s == "" {
		return "", errors.New("want a decimal, got empty text")
	}
	n, ok := scanNumber(s)
	if !ok {
		return "", fmt.Errorf("want a decimal, got %s", quoteShort(s))
	}
	if n.digits == "" {
		return "0", nil
	}
	if n.point > MaxDecimalIntDigits {
		return "", fmt.Errorf("%s is out of range for a decimal (more than %d integer digits)", quoteShort(s), MaxDecimalIntDigits)
	}
	if len(n.digits)-n.point > ddl.DecimalScale {
		return "", fmt.Errorf("%s has more than %d decimal places", quoteShort(s), ddl.DecimalScale)
	}
	// Here -DecimalScale < point <= MaxDecimalIntDigits: the zeros added
	// are few.
	var out string
	switch {
	case n.point <= 0:
		out = "0." + strings.Repeat("0", -n.point) + n.digits
	case n.point >= len(n.digits):
		out = n.digits + strings.Repeat("0", n.point-len(n.digits))
	default:
		out = n.digits[:n.point] + "." + n.digits[n.point:]
	}
	if n.neg {
		out = "-" + out
	}
	return ddl.Dec(out), nil
}

// number is number text taken apart: its value is 0.digits × 10^point,
// negative if neg. digits has neither leading nor trailing zeros; it is ""
// for zero (then point is 0).
type number struct {
	neg    bool
	digits string
	point  int
}

// maxExp bounds the exponents scanNumber keeps: any larger one puts a
// non-zero value beyond every limit anyway, and point cannot overflow.
const maxExp = 100_000_000

// scanNumber takes number text apart (see validNumber for the syntax).
func scanNumber(s string) (number, bool) {
	if !validNumber(s) {
		return number{}, false
	}
	var n number
	switch s[0] {
	case '-':
		n.neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	n.digits = strings.TrimRight(digits[lead:], "0")
	if n.digits == "" {
		return number{neg: n.neg}, true
	}
	n.point = len(intPart) - lead
	if expText != "" {
		exp := 0
		for _, c := range strings.TrimLeft(expText, "+-") {
			exp = min(exp*10+int(c-'0'), maxExp)
		}
		if expText[0] == '-' {
			exp = -exp
		}
		n.point += exp
	}
	return n, true
}

// validNumber reports whether s is number text: an optional sign, digits
// with an optional point (at least one digit before or after it), and an
// optional exponent: 'e' or 'E', an optional sign and digits.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	mant := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, mant = i+1, mant+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, mant = i+1, mant+1
		}
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// quoteShort quotes text for a message, cut to 40 characters (a byte that
// is not UTF-8 counts as one, and is shown escaped like the rest).
func quoteShort(s string) string {
	end, n := 0, 0
	for end < len(s) && n < 40 {
		_, size := utf8.DecodeRuneInString(s[end:])
		end, n = end+size, n+1
	}
	if end < len(s) {
		return strconv.Quote(s[:end]) + "…"
	}
	return strconv.Quote(s)
}
