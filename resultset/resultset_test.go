package resultset_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		typ  ddl.Type
		in   any
		want any
		err  string
	}{
		{ddl.Integer, nil, nil, ""},
		{ddl.Integer, int64(math.MinInt64), int64(math.MinInt64), ""},
		{ddl.Integer, uint64(math.MaxInt64), int64(math.MaxInt64), ""},
		{ddl.Integer, uint64(math.MaxUint64), nil, "out of range"},
		{ddl.Integer, json.Number("12"), int64(12), ""},
		{ddl.Integer, 1.5, nil, "want an integer, got 1.5"},
		{ddl.Integer, "12", nil, "want an integer, got text"},
		{ddl.Decimal, uint64(math.MaxUint64), ddl.Dec("18446744073709551615"), ""},
		{ddl.Decimal, json.Number("-0.12345678"), ddl.Dec("-0.12345678"), ""},
		{ddl.Decimal, json.Number("0.123456789"), nil, "decimal places"},
		{ddl.Float, math.NaN(), nil, "finite"},
		{ddl.Float, int64(3), float64(3), ""},
		{ddl.String, "été", "été", ""},
		{ddl.String, "\xff", nil, "UTF-8"},
		{ddl.String, int64(1), nil, "want text"},

		// Regressions the fuzz targets (fuzz_test.go) found.
		// An invalid type is an error for NULL too.
		{0, nil, nil, "invalid column type"},
		{ddl.Float + 1, nil, nil, "invalid column type"},
		// Every Go integer type is a number for Float, as for Integer
		// and Decimal.
		{ddl.Float, int16(-3), float64(-3), ""},
		{ddl.Float, int8(-3), float64(-3), ""},
		{ddl.Float, uint8(3), float64(3), ""},
		{ddl.Float, uint16(3), float64(3), ""},
		{ddl.Float, uint32(math.MaxUint32), float64(math.MaxUint32), ""},
		{ddl.Float, uint(3), float64(3), ""},
		// Number text is the same syntax for Float as for Integer and
		// Decimal: not strconv's NaN, Inf, hexadecimal or underscores.
		{ddl.Float, json.Number("NaN"), nil, `want a number, got "NaN"`},
		{ddl.Float, json.Number("-Inf"), nil, `want a number, got "-Inf"`},
		{ddl.Float, json.Number("1_000"), nil, `want a number, got "1_000"`},
		{ddl.Float, ddl.Dec("0x1p4"), nil, `want a number, got "0x1p4"`},
		{ddl.Float, json.Number(".5e1"), float64(5), ""},
		{ddl.Float, json.Number("1e-400"), float64(0), ""},
		{ddl.Float, json.Number("1e400"), nil, `"1e400" is out of range for a 64-bit float`},
		// A float32 is its own shortest decimal, as a float64 is.
		{ddl.Decimal, float32(0.1), ddl.Dec("0.1"), ""},
		{ddl.Decimal, float32(123456.79), ddl.Dec("123456.79"), ""},
		{ddl.Decimal, float32(1e-9), nil, "decimal places"},
		// Decimal limits hold on the value, whatever the exponent.
		{ddl.Decimal, json.Number("0e101"), ddl.Dec("0"), ""},
		{ddl.Decimal, json.Number("-0.000e-99999999999999999999"), ddl.Dec("0"), ""},
		{ddl.Decimal, json.Number("1000e-3"), ddl.Dec("1"), ""},
		{ddl.Decimal, json.Number("123456789012345678901e-1"), ddl.Dec("12345678901234567890.1"), ""},
		{ddl.Decimal, json.Number("0." + strings.Repeat("0", 120) + "1e121"), ddl.Dec("1"), ""},
		{ddl.Decimal, json.Number("1e-101"), nil, "has more than 8 decimal places"},
		{ddl.Decimal, json.Number("4.9e-324"), nil, "has more than 8 decimal places"},
		{ddl.Decimal, json.Number("1e99999999999999999999"), nil, "out of range for a decimal"},
		{ddl.Decimal, json.Number("1e+"), nil, `want a decimal, got "1e+"`},
		// A whole number too large for an Integer is out of range, not
		// "not an integer"; zero is zero however written.
		{ddl.Integer, json.Number("1e20"), nil, `"1e20" is out of range for a 64-bit integer`},
		{ddl.Integer, json.Number("100000000000000000000"), nil, "out of range"},
		{ddl.Integer, json.Number("-1e309"), nil, "out of range"},
		{ddl.Integer, json.Number("-9223372036854775808.000"), int64(math.MinInt64), ""},
		{ddl.Integer, json.Number("0."), int64(0), ""},
		{ddl.Integer, ddl.Dec("-0e5"), int64(0), ""},
		{ddl.Integer, json.Number("1e-400"), nil, "want an integer"},
		// Messages quote the value, cut to 40 characters, escaped.
		{ddl.Integer, json.Number("1.5" + strings.Repeat("0", 100)), nil, `want an integer, got "1.50000000000000000000000000000000000000"…`},
		{ddl.String, json.Number("\x1b[2J"), nil, `want text, got number "\x1b[2J"`},
		{ddl.String, json.Number(strings.Repeat("0", 40) + "\xa5"), nil, `got number "` + strings.Repeat("0", 40) + `"…`},
		{ddl.String, json.Number(strings.Repeat("0", 39) + "\xa5\xa5"), nil, `got number "` + strings.Repeat("0", 39) + `\xa5"…`},
	} {
		got, err := resultset.Convert(c.typ, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || got != nil {
				t.Errorf("Convert(%v, %#v) = %#v, %v; want nil and an error saying %q", c.typ, c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Convert(%v, %#v) = %#v, %v; want %#v", c.typ, c.in, got, err, c.want)
		}
	}
}

// TestExportToMemory writes a result set whose child table comes first:
// Export writes parents first, Memory keeps the canonical values, and a
// bad row rolls the whole result set back.
func TestExportToMemory(t *testing.T) {
	ctx := context.Background()
	m := &resultset.Memory{}
	set := func(hits any) *resultset.ResultSet {
		return &resultset.ResultSet{
			Header: resultset.Header{Profiler: "function-trace", Caption: "run",
				Counter: &resultset.Counter{Name: "Time", Frequency: json.Number("2400000000")}},
			Tables: []resultset.TableRows{
				{Name: "FUNCTION_TRACE_PROFILER_CALL_TRACE", Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_CALL_NO"},
					Rows: resultset.IndexedRows(2, func(i int) []any { return []any{i, 0, i + 1, hits} })},
				{Name: "function_trace_profiler_threads", Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"},
					Rows: resultset.IndexedRows(1, func(int) []any { return []any{0, -1, 0, uint32(4711)} })},
			},
		}
	}
	res, err := resultset.Export(ctx, m, set(json.Number("7")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 3 || res.Tables["FUNCTION_TRACE_PROFILER_CALL_TRACE"] != 2 {
		t.Errorf("result %+v", res)
	}
	if len(m.Sets) != 1 {
		t.Fatalf("%d sets committed", len(m.Sets))
	}
	s := m.Sets[0]
	if want := []string{"FUNCTION_TRACE_PROFILER_THREADS", "FUNCTION_TRACE_PROFILER_CALL_TRACE"}; !reflect.DeepEqual(s.Order, want) {
		t.Errorf("tables written in order %v, want %v", s.Order, want)
	}
	if v := s.Tables["FUNCTION_TRACE_PROFILER_CALL_TRACE"].Value(1, "col_call_no"); v != int64(7) {
		t.Errorf("COL_CALL_NO = %#v, want int64(7)", v)
	}
	if _, err := resultset.Export(ctx, m, set("seven")); err == nil || !strings.Contains(err.Error(), "COL_CALL_NO") {
		t.Errorf("a text hit count: %v, want an error naming the column", err)
	}
	if len(m.Sets) != 1 {
		t.Errorf("a failed result set was committed: %d sets", len(m.Sets))
	}
}

// TestChildRows numbers a child table's rows across its parents (ID) and
// within each parent (REC_ID), skips a parent without children, and stops
// when the consumer stops.
func TestChildRows(t *testing.T) {
	parents := [][]string{{"a", "b"}, nil, {"c"}}
	rows := resultset.ChildRows(parents, func(p []string) []string { return p },
		func(p []string, pos int, c string, id int64) []any { return []any{c, id, int64(pos), len(p)} })
	var got [][]any
	for row, err := range rows {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, row)
	}
	want := [][]any{{"a", int64(0), int64(0), 2}, {"b", int64(1), int64(1), 2}, {"c", int64(2), int64(0), 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	n := 0
	for range rows {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d rows read before stopping at the second", n)
	}
}
