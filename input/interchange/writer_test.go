package interchange

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

// toResultSet turns a Memory result set back into an resultset.ResultSet.
func toResultSet(set resultset.MemorySet) *resultset.ResultSet {
	rs := &resultset.ResultSet{Header: set.Header}
	for _, name := range set.Order {
		tb := set.Tables[name]
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: name, Columns: tb.Columns,
			Rows: func(yield func([]any, error) bool) {
				for _, r := range tb.Rows {
					if !yield(r, nil) {
						return
					}
				}
			}})
	}
	return rs
}

var _ iter.Seq2[[]any, error] = resultset.TableRows{}.Rows

// tableDiff compares the tables of two result sets by value: a column not
// given is NULL, as the format has it. It returns "" when they are equal.
func tableDiff(a, b resultset.MemorySet) string {
	if len(a.Tables) != len(b.Tables) {
		return fmt.Sprintf("tables %v and %v", a.Order, b.Order)
	}
	for name, ta := range a.Tables {
		tb := b.Tables[name]
		if tb == nil {
			return "no table " + name
		}
		if len(ta.Rows) != len(tb.Rows) {
			return fmt.Sprintf("table %s: %d and %d rows", name, len(ta.Rows), len(tb.Rows))
		}
		cols := append(append([]string(nil), ta.Columns...), tb.Columns...)
		for i := range ta.Rows {
			for _, c := range cols {
				if va, vb := ta.Value(i, c), tb.Value(i, c); !reflect.DeepEqual(va, vb) {
					return fmt.Sprintf("table %s row %d column %s: %#v and %#v", name, i+1, c, va, vb)
				}
			}
		}
	}
	return ""
}

// roundTrip writes every set of m as interchange JSON with Target and reads
// it back.
func roundTrip(t *testing.T, m *resultset.Memory) (*resultset.Memory, []byte) {
	t.Helper()
	var buf bytes.Buffer
	tg := NewTarget(&buf)
	for _, set := range m.Sets {
		if _, err := resultset.Export(context.Background(), tg, toResultSet(set)); err != nil {
			t.Fatal(err)
		}
	}
	back := &resultset.Memory{}
	if _, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), "round.json", back); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	return back, buf.Bytes()
}

func TestRoundTripExamples(t *testing.T) {
	files := examplesFiles(t)
	all := &resultset.Memory{}
	for _, f := range files {
		m := readExample(t, f)
		all.Sets = append(all.Sets, m.Sets...)
	}
	back, _ := roundTrip(t, all)
	if len(back.Sets) != len(all.Sets) || len(all.Sets) < 4 {
		t.Fatalf("%d sets back, %d written", len(back.Sets), len(all.Sets))
	}
	for i := range all.Sets {
		a, b := all.Sets[i], back.Sets[i]
		if d := tableDiff(a, b); d != "" || !reflect.DeepEqual(a.Order, b.Order) {
			t.Errorf("set %d (%s): after the round trip: %s; order %v, %v", i, a.Header.Profiler, d, a.Order, b.Order)
		}
		if a.Header.Caption != b.Header.Caption || (a.Header.Counter == nil) != (b.Header.Counter == nil) {
			t.Errorf("set %d: header %+v, back %+v", i, a.Header, b.Header)
		}
	}
}

func TestRoundTripValues(t *testing.T) {
	m := &resultset.Memory{}
	h := resultset.Header{Profiler: "function-trace", Caption: "tab\there \"quoted\" \\ é 😀 \x00\x1f\u2028",
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: "18446744073709551615.12345678"}}
	w, err := m.Begin(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := w.Table("FUNCTION_TRACE_PROFILER_ROUTINES", []string{"COL_ADDRESS", "COL_HIT_COUNT", "COL_TOKEN", "COL_CLASS_NAME", "COL_SOURCE_LINE", "ID"})
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{uint64(math.MaxUint64), int64(math.MaxInt64), int64(math.MinInt64), "a\nb\r\"c\"\\", nil, int64(0)},
		{"0.12345678", int64(-1), int64(1), "", int64(7), int64(1)},
		{ddl.Dec("-0.00000001"), nil, nil, "\u00e9\U0001F600\x7f", nil, int64(2)},
	}
	for _, r := range rows {
		if err := tw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	tw, err = w.Table("FUNCTION_TRACE_PROFILER_THREADS", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Write([]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	lc, err := m.Begin(context.Background(), resultset.Header{Profiler: "light-coverage"})
	if err != nil {
		t.Fatal(err)
	}
	tw, _ = lc.Table("LIGHT_COVERAGE_PROFILER_MODULES_DATA", []string{"COL____COVERED", "ID"})
	for i, f := range []float64{1e308, 5e-324, -0.1, 66.66666666666667, 0, 1e21, 123456789.125} {
		if err := tw.Write([]any{f, int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lc.Commit(); err != nil {
		t.Fatal(err)
	}

	back, out := roundTrip(t, m)
	for i := range m.Sets {
		if d := tableDiff(m.Sets[i], back.Sets[i]); d != "" {
			t.Errorf("set %d: %s\n%s", i, d, out)
		}
	}
	bh := back.Sets[0].Header
	if bh.Caption != h.Caption || bh.Counter.Frequency != json.Number("18446744073709551615.12345678") {
		t.Errorf("header %+v %+v", bh, bh.Counter)
	}
}

func TestWriterOutput(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Begin(resultset.Header{Profiler: "function-trace", Caption: "c",
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: json.Number("2400000000")}}))
	must(w.Table("FUNCTION_TRACE_PROFILER_THREADS", []string{"ID", "PARENT_ID", "COL_WIN32THREADID"}))
	must(w.Row(0, int64(-1), uint32(4711)))
	must(w.Row(int8(1), nil, 4712.5))
	must(w.Table("FUNCTION_TRACE_PROFILER_CALL_TRACE", []string{"ID"}))
	must(w.Table("FUNCTION_TRACE_PROFILER_ROUTINES", []string{"COL_ADDRESS", "COL_CLASS_NAME"}))
	must(w.Row(ddl.Dec("18446744073709551615"), []byte("x<y>&")))
	must(w.End())
	must(w.Begin(resultset.Header{Profiler: "resource"}))
	must(w.End())
	want := `{"profiler":"function-trace","caption":"c","counter":{"name":"Time","description":"Elapsed Time","frequency":2400000000},"tables":{
"FUNCTION_TRACE_PROFILER_THREADS":[
{"ID":0,"PARENT_ID":-1,"COL_WIN32THREADID":4711},
{"ID":1,"COL_WIN32THREADID":4712.5}
],
"FUNCTION_TRACE_PROFILER_CALL_TRACE":[
],
"FUNCTION_TRACE_PROFILER_ROUTINES":[
{"COL_ADDRESS":18446744073709551615,"COL_CLASS_NAME":"x<y>&"}
]}}
{"profiler":"resource","caption":"","tables":{}}
`
	if buf.String() != want {
		t.Errorf("output\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriterErrors(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	check := func(err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	check(w.Table("T", nil), "Table outside a result set")
	check(w.Row(), "Row outside a table")
	check(w.End(), "End outside a result set")
	check(w.Begin(resultset.Header{}), "header without a profiler")
	check(w.Begin(resultset.Header{Profiler: "resource", Caption: "\xff"}), "caption: text is not valid UTF-8")
	if err := w.Begin(resultset.Header{Profiler: "resource"}); err != nil {
		t.Fatal(err)
	}
	check(w.Begin(resultset.Header{Profiler: "resource"}), "Begin inside a result set")
	check(w.Row(), "Row outside a table")
	if err := w.Table("T", []string{"A", "B"}); err != nil {
		t.Fatal(err)
	}
	check(w.Row(1), "1 values for 2 columns")
	check(w.Row(1, math.NaN()), "column B: NaN is not a finite number")
	check(w.Row(1, math.Inf(-1)), "column B: -Inf is not a finite number")
	check(w.Row(json.Number("01"), 1), `column A: "01" is not a JSON number`)
	check(w.Row(ddl.Dec("1."), 1), `column A: "1." is not a JSON number`)
	check(w.Row("ok", "bad \xc3"), "column B: text is not valid UTF-8")
	check(w.Row(struct{}{}, 1), "column A: cannot write a struct {}")
	// What the reader would refuse (maxString, maxRow), as written: an
	// escaped newline takes two bytes.
	check(w.Row(strings.Repeat("a", maxString+1), nil),
		"interchange: row 1, column A: a string of 8388609 bytes as written, longer than 8 MiB, the most the reader takes")
	check(w.Row([]byte(strings.Repeat("a", maxRow/2)), strings.Repeat("\n", maxRow/4+1)),
		"interchange: row 1, column B: the row's strings take 8388610 bytes as written, more than 8 MiB, the most the reader takes")
	check(w.Table("T\xff", nil), "table name: text is not valid UTF-8")
	check(NewWriter(&bytes.Buffer{}).Begin(resultset.Header{Profiler: "resource", Caption: strings.Repeat("c", maxString+1)}),
		"interchange: caption: a string of 8388609 bytes as written, longer than 8 MiB")
}

// TestWriterLongRowReadBack: a row whose strings take maxRow as written,
// the most the reader takes, is written and read back.
func TestWriterLongRowReadBack(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	a, b := strings.Repeat("é", maxRow/4), strings.Repeat("\n", maxRow/4-5)+"xxxxxxxxxx"
	if err := w.Begin(resultset.Header{Profiler: "resource"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Table(resource.MetaClassesData, []string{"ID", "COL_CLASS_NAME", "COL_MODULE_NAME"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Row(int64(1), a, b); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	if _, err := Read(context.Background(), &buf, "x.json", r); err != nil {
		t.Fatal(err)
	}
	tb := r.mem.Sets[0].Tables[resource.MetaClassesData]
	if len(tb.Rows) != 1 || tb.Value(0, "COL_CLASS_NAME") != a || tb.Value(0, "COL_MODULE_NAME") != b {
		t.Errorf("the row of %d bytes of strings did not read back whole", maxRow)
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errBoom }

var errBoom = &Error{File: "w", Line: 1, Err: bytes.ErrTooLarge}

func TestWriterWriteError(t *testing.T) {
	w := NewWriter(errWriter{})
	w.Begin(resultset.Header{Profiler: "resource"})
	if err := w.End(); err != errBoom {
		t.Errorf("End error %v", err)
	}
	if err := w.Begin(resultset.Header{Profiler: "resource"}); err != errBoom {
		t.Errorf("sticky error %v", err)
	}
}

func TestTarget(t *testing.T) {
	var buf bytes.Buffer
	tg := NewTarget(&buf)
	ctx := context.Background()
	if _, err := tg.Begin(ctx, resultset.Header{Profiler: "nope"}); err == nil {
		t.Error("unknown profiler accepted")
	}
	if _, err := tg.Begin(ctx, resultset.Header{Profiler: "resource", Counter: &resultset.Counter{Frequency: "x"}}); err == nil ||
		!strings.Contains(err.Error(), "COUNTER_FREQUENCY") {
		t.Errorf("bad frequency: %v", err)
	}

	// A rolled-back result set leaves nothing.
	w, err := tg.Begin(ctx, resultset.Header{Profiler: "resource", Caption: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := w.Table("resource_profiler_threads", []string{"id", "COL_SIZE"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Write([]any{1, 2}); err != nil {
		t.Fatal(err)
	}
	w.Rollback()
	if buf.Len() != 0 {
		t.Errorf("rolled-back output: %s", buf.String())
	}

	w, err = tg.Begin(ctx, resultset.Header{Profiler: "resource", Caption: "first"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cols []string
		want string
	}{
		{"RESOURCE_PROFILER_NOPE", nil, "profiler resource has no table RESOURCE_PROFILER_NOPE"},
		{"RESOURCE_PROFILER_THREADS", []string{"COL_X"}, "table RESOURCE_PROFILER_THREADS has no column COL_X"},
		{"RESOURCE_PROFILER_THREADS", []string{"inst_id"}, "INST_ID is assigned by profdb"},
	} {
		if _, err := w.Table(tc.name, tc.cols); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Table(%s, %v): %v, want %q", tc.name, tc.cols, err, tc.want)
		}
	}
	tw, err = w.Table("resource_profiler_threads", []string{"id", "COL_SIZE"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Write([]any{json.Number("1"), int64(2048)}); err != nil {
		t.Fatal(err)
	}
	if err := tw.Write([]any{"x", 1}); err == nil || err.Error() != `table RESOURCE_PROFILER_THREADS, column ID, row 2: want an integer, got text "x"` {
		t.Errorf("bad value: %v", err)
	}
	if err := tw.Write([]any{1}); err == nil || !strings.Contains(err.Error(), "1 values for 2 columns") {
		t.Errorf("short row: %v", err)
	}
	if _, err := w.Table("RESOURCE_PROFILER_THREADS", nil); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("table twice: %v", err)
	}
	// The header may change after the rows; it is still written first.
	if err := w.SetHeader(resultset.Header{Caption: "renamed", Counter: &resultset.Counter{Name: "Time", Frequency: 1000}}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetHeader(resultset.Header{Profiler: "function-trace"}); err == nil {
		t.Error("profiler changed")
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if res.InstID != 1 || res.Rows != 1 || res.Tables["RESOURCE_PROFILER_THREADS"] != 1 || res.Caption != "renamed" {
		t.Errorf("result %+v", res)
	}
	if _, err := w.Commit(); err == nil {
		t.Error("second Commit accepted")
	}
	if err := tw.Write([]any{1, 2}); err == nil {
		t.Error("Write after Commit accepted")
	}
	want := `{"profiler":"resource","caption":"renamed","counter":{"name":"Time","description":"","frequency":1000},"tables":{
"RESOURCE_PROFILER_THREADS":[
{"ID":1,"COL_SIZE":2048}
]}}
`
	if buf.String() != want {
		t.Errorf("output\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriterFloats(t *testing.T) {
	for f, want := range map[float64]string{
		123456789.125: "123456789.125", 1e20: "100000000000000000000", 1e21: "1e+21", 1e308: "1e+308",
		1e-6: "0.000001", 1e-7: "1e-7", 5e-324: "5e-324", -0.1: "-0.1", 0: "0", 66.66666666666667: "66.66666666666667",
	} {
		b, err := appendValue(nil, f)
		if err != nil || string(b) != want {
			t.Errorf("%v written as %s (%v), want %s", f, b, err, want)
		}
	}
	if b, _ := appendValue(nil, float32(0.1)); string(b) != "0.1" {
		t.Errorf("float32 0.1 written as %s", b)
	}
}
