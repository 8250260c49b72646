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
	} {
		got, err := resultset.Convert(c.typ, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Convert(%v, %#v) = %#v, %v; want an error saying %q", c.typ, c.in, got, err, c.err)
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
