package resultset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// The fuzz targets check Convert against a model of what it promises: the
// exact value a Go number or a number text stands for, and the limits of
// each logical type applied to that value, whatever its spelling.
//
//   Integer: a whole number from -2^63 to 2^63-1 (a float by its exact
//            value).
//   Decimal: at most 20 integer digits (every uint64) and at most 8
//            fractional digits; a float stands for its shortest decimal
//            form (strconv's, at the float's own size).
//   Float:   the nearest float64, which must be finite.
//   String:  valid UTF-8, any length; nothing else is text.
//
// Number text (json.Number, ddl.Dec, and decimal text for Decimal) is an
// optional sign, digits with an optional point, and an optional exponent;
// anything else is not a number, for every numeric type alike.

// numberText is the syntax Convert accepts for number text.
var numberText = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// canonicalDec is ddl.Dec's canonical form.
var canonicalDec = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,19})(\.[0-9]{0,7}[1-9])?$`)

// outcome is what Convert should do with a value: give want, or fail with
// an error containing says.
type outcome struct {
	want any
	says string // "" for success
}

func gives(v any) outcome    { return outcome{want: v} }
func fails(s string) outcome { return outcome{says: s} }

// typeWord is the word every error for a type has: the type it wanted.
var typeWord = map[ddl.Type]string{ddl.Integer: "integer", ddl.Decimal: "decimal", ddl.Float: "number", ddl.String: "text"}

var (
	minInt64  = big.NewRat(math.MinInt64, 1)
	maxInt64  = new(big.Rat).SetInt(new(big.Int).SetUint64(math.MaxInt64))
	decLimit  = new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(resultset.MaxDecimalIntDigits), nil))
	decScale  = new(big.Int).Exp(big.NewInt(10), big.NewInt(ddl.DecimalScale), nil)
	hugeExp   = 400 // beyond it, a non-zero value is out of every range (or below every scale)
	wantWords = map[ddl.Type]string{ddl.Integer: "want an integer", ddl.Decimal: "want a decimal", ddl.Float: "want a number", ddl.String: "want text"}
)

// exact is the value of a number: r, or, for text whose exponent is too
// large to build, only its sign and whether it is huge or tiny.
type exact struct {
	r    *big.Rat
	huge int // +1 huge, -1 tiny, 0 r holds the value
	neg  bool
}

// parseExact reads number text (numberText) exactly.
func parseExact(s string) exact {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return exact{r: new(big.Rat), neg: neg}
	}
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(expText)
		switch {
		case err != nil && strings.HasPrefix(expText, "-"), err == nil && e < -hugeExp-len(s):
			return exact{huge: -1, neg: neg}
		case err != nil, e > hugeExp+len(s):
			return exact{huge: +1, neg: neg}
		}
		exp = e
	}
	exp -= len(frac)
	n, _ := new(big.Int).SetString(digits, 10)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	r := new(big.Rat).SetInt(n)
	if exp >= 0 {
		r.Mul(r, new(big.Rat).SetInt(p))
	} else {
		r.Quo(r, new(big.Rat).SetInt(p))
	}
	if neg {
		r.Neg(r)
	}
	return exact{r: r, neg: neg}
}

func signedZero(neg bool) float64 {
	if neg {
		return math.Copysign(0, -1)
	}
	return 0
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// decOf formats r, which has at most DecimalScale fractional digits, as a
// canonical ddl.Dec.
func decOf(r *big.Rat) ddl.Dec {
	s := r.FloatString(ddl.DecimalScale)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return ddl.Dec(s)
}

// modelNumber is the outcome of converting the exact value e to t.
func modelNumber(t ddl.Type, e exact) outcome {
	if e.huge != 0 {
		switch t {
		case ddl.Integer:
			if e.huge < 0 {
				return fails("want an integer")
			}
			return fails("out of range")
		case ddl.Decimal:
			if e.huge < 0 {
				return fails("decimal places")
			}
			return fails("out of range")
		case ddl.Float:
			if e.huge < 0 {
				return gives(signedZero(e.neg))
			}
			return fails("out of range")
		}
	}
	r := e.r
	switch t {
	case ddl.Integer:
		if !r.IsInt() {
			return fails("want an integer")
		}
		if r.Cmp(minInt64) < 0 || r.Cmp(maxInt64) > 0 {
			return fails("out of range")
		}
		return gives(r.Num().Int64())
	case ddl.Decimal:
		if new(big.Rat).Abs(r).Cmp(decLimit) >= 0 {
			return fails("out of range")
		}
		if scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(decScale)); !scaled.IsInt() {
			return fails("decimal places")
		}
		return gives(decOf(r))
	case ddl.Float:
		f, _ := r.Float64()
		if math.IsInf(f, 0) {
			return fails("out of range")
		}
		if f == 0 {
			f = signedZero(e.neg)
		}
		return gives(f)
	}
	return fails(wantWords[t])
}

// model is the outcome of Convert(t, v).
func model(t ddl.Type, v any) outcome {
	if !t.Valid() {
		return fails("invalid column type")
	}
	if v == nil {
		return gives(nil)
	}
	intVal := func(i int64) outcome {
		if t == ddl.String {
			return fails("want text")
		}
		return modelNumber(t, exact{r: big.NewRat(i, 1), neg: i < 0})
	}
	uintVal := func(u uint64) outcome {
		if t == ddl.String {
			return fails("want text")
		}
		return modelNumber(t, exact{r: new(big.Rat).SetInt(new(big.Int).SetUint64(u))})
	}
	floatVal := func(x float64, bits int) outcome {
		switch {
		case t == ddl.String:
			return fails("want text")
		case math.IsNaN(x) || math.IsInf(x, 0):
			if t == ddl.Float {
				return fails("not a finite number")
			}
			return fails(wantWords[t])
		case t == ddl.Float:
			return gives(x)
		case t == ddl.Integer:
			// A whole float is exactly an integer.
			return modelNumber(t, exact{r: new(big.Rat).SetFloat64(x), neg: x < 0})
		}
		// Decimal sees the float's shortest decimal form.
		return modelNumber(t, parseExact(strconv.FormatFloat(x, 'f', -1, bits)))
	}
	textVal := func(s string, numberType bool) outcome {
		switch {
		case t == ddl.String && numberType:
			return fails("want text")
		case t == ddl.String:
			if !utf8.ValidString(s) {
				return fails("UTF-8")
			}
			return gives(s)
		case !numberType && t != ddl.Decimal:
			return fails(wantWords[t])
		case !numberText.MatchString(s):
			return fails(wantWords[t])
		}
		return modelNumber(t, parseExact(s))
	}
	switch x := v.(type) {
	case int64:
		return intVal(x)
	case int:
		return intVal(int64(x))
	case int32:
		return intVal(int64(x))
	case int16:
		return intVal(int64(x))
	case int8:
		return intVal(int64(x))
	case uint8:
		return uintVal(uint64(x))
	case uint16:
		return uintVal(uint64(x))
	case uint32:
		return uintVal(uint64(x))
	case uint:
		return uintVal(uint64(x))
	case uint64:
		return uintVal(x)
	case float64:
		return floatVal(x, 64)
	case float32:
		return floatVal(float64(x), 32)
	case json.Number:
		return textVal(string(x), true)
	case ddl.Dec:
		return textVal(string(x), true)
	case string:
		return textVal(x, false)
	case []byte:
		if t == ddl.String {
			return textVal(string(x), false)
		}
		return fails(wantWords[t])
	}
	return fails(wantWords[t])
}

// checkConvert converts v to t and checks the outcome against the model,
// the canonical form and idempotence of a success, and the message of a
// failure.
func checkConvert(t *testing.T, typ ddl.Type, v any) {
	t.Helper()
	got, err := resultset.Convert(typ, v)
	want := model(typ, v)
	show := fmt.Sprintf("Convert(%v, %T(%#v))", typ, v, v)
	if want.says != "" {
		if err == nil {
			t.Fatalf("%s = %T(%#v); want an error saying %q", show, got, got, want.says)
		}
		if got != nil {
			t.Errorf("%s: error %v with the value %#v", show, err, got)
		}
		checkMessage(t, show, typ, err, want.says)
		return
	}
	if err != nil {
		t.Fatalf("%s: %v; want %T(%#v)", show, err, want.want, want.want)
	}
	if !sameValue(got, want.want) {
		t.Fatalf("%s = %T(%#v); want %T(%#v)", show, got, got, want.want, want.want)
	}
	if got == nil {
		return
	}
	// Canonical values convert to themselves.
	again, err := resultset.Convert(typ, got)
	if err != nil || !sameValue(again, got) {
		t.Fatalf("%s = %#v, which converts again to %#v, %v", show, got, again, err)
	}
	if d, isDec := got.(ddl.Dec); isDec {
		if !canonicalDec.MatchString(string(d)) || string(d) == "-0" {
			t.Fatalf("%s = %q: not a canonical ddl.Dec", show, d)
		}
		// The canonical text reads back as itself, as text and as a
		// JSON number.
		for _, text := range []any{string(d), json.Number(d)} {
			if back, err := resultset.Convert(ddl.Decimal, text); err != nil || back != d {
				t.Fatalf("%s = %q; as %T it reads back as %#v, %v", show, d, text, back, err)
			}
		}
		if p, err := resultset.ParseDecimal(string(d)); err != nil || p != d {
			t.Fatalf("%s = %q; ParseDecimal gives %q, %v", show, d, p, err)
		}
	}
}

// checkMessage checks an error of Convert: it says what is wrong (says),
// names the type it wanted, and shows at most a short, escaped excerpt
// of the value.
func checkMessage(t *testing.T, show string, typ ddl.Type, err error, says string) {
	t.Helper()
	msg := err.Error()
	if !strings.Contains(msg, says) {
		t.Fatalf("%s: error %q; want one saying %q", show, msg, says)
	}
	if w, ok := typeWord[typ]; ok && !strings.Contains(msg, w) && !strings.Contains(msg, "float") {
		t.Fatalf("%s: error %q does not say it wanted %s", show, msg, w)
	}
	// At most 40 characters of the value, each escaped to at most 10.
	if utf8.RuneCountInString(msg) > 500 {
		t.Fatalf("%s: error of %d characters: %.200q…", show, utf8.RuneCountInString(msg), msg)
	}
	for _, r := range msg {
		if unicode.IsControl(r) || r == utf8.RuneError {
			t.Fatalf("%s: error %q has a raw control or invalid character", show, msg)
		}
	}
}

// sameValue compares two values of the same dynamic type; floats by ==
// (so that -0 equals 0).
func sameValue(a, b any) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	if fa, ok := a.(float64); ok {
		return fa == b.(float64)
	}
	return reflect.DeepEqual(a, b)
}

var allTypes = []ddl.Type{0, ddl.String, ddl.Integer, ddl.Decimal, ddl.Float, ddl.Float + 1}

// checkColumn writes v into a column of type typ through Memory: an error
// names the table, the column and the row, and says what Convert says; a
// success keeps the value Convert gives.
func checkColumn(t *testing.T, typ ddl.Type, v any) {
	t.Helper()
	profiler, table, col := columnOf(t, typ)
	m := &resultset.Memory{}
	w, err := m.Begin(context.Background(), resultset.Header{Profiler: profiler})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	tw, err := w.Table(table, []string{col})
	if err != nil {
		t.Fatal(err)
	}
	want, werr := resultset.Convert(typ, v)
	err = tw.Write([]any{v})
	switch {
	case werr != nil:
		prefix := fmt.Sprintf("table %s, column %s, row 1: ", table, col)
		if err == nil || !strings.Contains(err.Error(), prefix+werr.Error()) {
			t.Fatalf("writing %T(%#v) into %s.%s (%v): error %v; want one saying %q", v, v, table, col, typ, err, prefix+werr.Error())
		}
	case err != nil:
		t.Fatalf("writing %T(%#v) into %s.%s (%v): %v", v, v, table, col, typ, err)
	default:
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if kept := m.Sets[0].Tables[table].Value(0, col); !sameValue(kept, want) {
			t.Fatalf("writing %T(%#v) into %s.%s (%v) keeps %#v; Convert gives %#v", v, v, table, col, typ, kept, want)
		}
	}
}

// columnOf returns a profiler, a table of it and a column of that table of
// type typ.
func columnOf(t *testing.T, typ ddl.Type) (profiler, table, col string) {
	t.Helper()
	for _, def := range profilers.All() {
		for _, tb := range def.Tables {
			for _, c := range tb.Columns {
				if c.Type == typ && c.Name != ddl.InstID {
					return def.Name, tb.Name, c.Name
				}
			}
		}
	}
	t.Fatalf("no profiler has a %v column", typ)
	return "", "", ""
}

// FuzzConvertText converts text of every kind (json.Number, ddl.Dec,
// string, []byte) to every type: it never panics, agrees with the model,
// and gives the same for the same text whatever its Go type where the
// type accepts it.
func FuzzConvertText(f *testing.F) {
	for _, s := range []string{
		"", "0", "-0", "+0", "00", "1", "-1", "007", "12", "1.5", "-1.5", ".5", "5.", ".", "-", "+", "e5", "1e", "1e+", "1e-",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "100000000000000000000",
		"99999999999999999999.99999999", "0.12345678", "0.123456789", "0.123456780", "-0.00000001", "0.000000001",
		"1e3", "1E3", "1e+3", "1.0", "1.50", "1.5e1", "15e-1", "1e-8", "1e-9", "1e19", "1e20", "12e18", "1e100", "1e101", "1e-100",
		"1e308", "1e309", "-1e309", "2.2250738585072014e-308", "4.9e-324", "1e-400", "1.7976931348623157e308",
		"9007199254740993", "0.1", "1 ", " 1", "1,5", "--1", "+-1", "1e5.5", "abc", "été", "\xff", "\x00", "\x1b[2J",
		strings.Repeat("9", 50), "0." + strings.Repeat("0", 50) + "1", strings.Repeat("0", 60) + "1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range allTypes {
			for _, v := range []any{json.Number(s), ddl.Dec(s), s, []byte(s)} {
				checkConvert(t, typ, v)
			}
			if typ.Valid() {
				checkColumn(t, typ, json.Number(s))
			}
		}
		// ParseDecimal is Convert to Decimal of text.
		p, perr := resultset.ParseDecimal(s)
		c, cerr := resultset.Convert(ddl.Decimal, s)
		if (perr == nil) != (cerr == nil) || perr == nil && c != p || perr != nil && perr.Error() != cerr.Error() {
			t.Fatalf("ParseDecimal(%q) = %q, %v; Convert to Decimal = %#v, %v", s, p, perr, c, cerr)
		}
	})
}

// FuzzConvertNumber converts Go numbers of every type (and a few values
// that are not numbers) to every type: it never panics, agrees with the
// model, and a number gives the same whatever Go type holds it.
func FuzzConvertNumber(f *testing.F) {
	for _, c := range []struct {
		i int64
		u uint64
		x float64
	}{
		{0, 0, 0}, {1, 1, 1}, {-1, 255, -1}, {math.MaxInt64, math.MaxUint64, 1.5}, {math.MinInt64, 1 << 63, -0.5},
		{math.MaxInt32, math.MaxUint32, 0.1}, {math.MinInt32, math.MaxUint16, 1e-8}, {1 << 53, 1<<53 + 1, 1e-9},
		{-1 << 53, math.MaxInt64, 9.223372036854775807e18}, {127, 65535, -9.223372036854775808e18}, {-128, 4294967296, 1e20},
		{32767, 1e19, 1e300}, {-32768, 0, math.MaxFloat64}, {0, 0, math.SmallestNonzeroFloat64}, {0, 0, math.Inf(1)},
		{0, 0, math.Inf(-1)}, {0, 0, math.NaN()}, {0, 0, math.Copysign(0, -1)}, {0, 0, 3.4028234663852886e38}, {0, 0, 123456.78901234},
		{0, 0, 99999999999999999999.0}, {0, 0, 1e19}, {0, 0, 0.30000000000000004},
	} {
		f.Add(c.i, c.u, c.x)
	}
	f.Fuzz(func(t *testing.T, i int64, u uint64, x float64) {
		values := []any{
			i, int(i), int32(i), int16(i), int8(i), uint8(u), uint16(u), uint32(u), uint(u), u,
			x, float32(x), nil, i%2 == 0, struct{}{}, []int{int(i)},
		}
		for _, typ := range allTypes {
			for _, v := range values {
				checkConvert(t, typ, v)
			}
			if typ.Valid() {
				checkColumn(t, typ, u)
				checkColumn(t, typ, x)
			}
		}
	})
}
