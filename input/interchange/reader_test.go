package interchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

// recorder is a Target that logs the calls it gets and keeps the committed
// result sets in an resultset.Memory, which also checks the values.
type recorder struct {
	mem  resultset.Memory
	log  []string
	open int // result sets begun and neither committed nor rolled back
}

func (r *recorder) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	r.log = append(r.log, "begin "+h.Profiler)
	w, err := r.mem.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	r.open++
	return &recSet{r: r, w: w}, nil
}

type recSet struct {
	r     *recorder
	w     resultset.ResultWriter
	ended bool
}

func (s *recSet) SetHeader(h resultset.Header) error {
	s.r.log = append(s.r.log, "header "+h.Caption)
	return s.w.SetHeader(h)
}

func (s *recSet) Table(name string, columns []string) (resultset.TableWriter, error) {
	s.r.log = append(s.r.log, "table "+name)
	return s.w.Table(name, columns)
}

func (s *recSet) Commit() (resultset.Result, error) {
	s.r.log = append(s.r.log, "commit")
	s.ended = true
	s.r.open--
	return s.w.Commit()
}

func (s *recSet) Rollback() error {
	if !s.ended {
		s.r.log = append(s.r.log, "rollback")
		s.ended = true
		s.r.open--
	}
	return s.w.Rollback()
}

func read(t *testing.T, in string) (*recorder, []resultset.Result, error) {
	t.Helper()
	r := &recorder{}
	res, err := Read(context.Background(), strings.NewReader(in), "x.json", r)
	if r.open != 0 {
		t.Errorf("%d result sets neither committed nor rolled back; log %q", r.open, r.log)
	}
	if len(res) != len(r.mem.Sets) {
		t.Errorf("Read returned %d results, %d result sets committed", len(res), len(r.mem.Sets))
	}
	return r, res, err
}

// readDir lists dir; an error fails the test.
func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

func mustRead(t *testing.T, in string) *recorder {
	t.Helper()
	r, _, err := read(t, in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const threads = functiontrace.Threads

func TestReadBriefExample(t *testing.T) {
	r, res, err := read(t, `{"profiler": "function-trace", "caption": "nightly 42",
 "counter": {"name": "Time", "description": "Elapsed Time", "frequency": 2400000000},
 "tables": {"FUNCTION_TRACE_PROFILER_THREADS": [{"ID": 0, "PARENT_ID": -1, "REC_ID": 0, "COL_WIN32THREADID": 4711}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Rows != 1 || res[0].Tables[threads] != 1 || res[0].Caption != "nightly 42" {
		t.Fatalf("results %+v", res)
	}
	set := r.mem.Sets[0]
	want := resultset.Header{Profiler: "function-trace", Caption: "nightly 42",
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: json.Number("2400000000")}}
	if !reflect.DeepEqual(set.Header, want) {
		t.Errorf("header %+v %+v, want %+v %+v", set.Header, set.Header.Counter, want, want.Counter)
	}
	tb := set.Tables[threads]
	// Every documented column but INST_ID, in order; the omitted one NULL.
	if want := []string{"COL_LINE_NUMBER", "COL_WIN32THREADID", "ID", "PARENT_ID", "REC_ID"}; !reflect.DeepEqual(tb.Columns, want) {
		t.Errorf("columns %v, want %v", tb.Columns, want)
	}
	if want := []any{nil, int64(4711), int64(0), int64(-1), int64(0)}; !reflect.DeepEqual(tb.Rows[0], want) {
		t.Errorf("row %#v, want %#v", tb.Rows[0], want)
	}
	if !reflect.DeepEqual(r.log, []string{"begin function-trace", "table " + threads, "commit"}) {
		t.Errorf("calls %q", r.log)
	}
}

func TestReadExactNumbers(t *testing.T) {
	r := mustRead(t, `{"profiler":"function-trace","tables":{
"FUNCTION_TRACE_PROFILER_ROUTINES":[
{"ID":1,"COL_ADDRESS":18446744073709551615,"COL_HIT_COUNT":9223372036854775807,"COL_TOKEN":-9223372036854775808},
{"ID":2,"COL_ADDRESS":"18446744073709551615","COL_HIT_COUNT":-0,"COL_TOKEN":1e3},
{"ID":3,"COL_ADDRESS":"0.12345678","COL_HIT_COUNT":123456789012345678,"COL_TOKEN":-1234567890123456789},
{"ID":4,"COL_ADDRESS":0.12345678,"COL_SOURCE_LINE":1.0},
{"ID":5,"COL_ADDRESS":1E-8}
]}}
{"profiler":"light-coverage","tables":{"LIGHT_COVERAGE_PROFILER_MODULES_DATA":[
{"ID":0,"COL____COVERED":1e308,"COL_MARK":12345678901234567890.12345678},
{"ID":1,"COL____COVERED":9007199254740993},
{"ID":2,"COL____COVERED":-0.0000001}
]}}`)
	rt := r.mem.Sets[0].Tables[functiontrace.Routines]
	for _, c := range []struct {
		row  int
		col  string
		want any
	}{
		{0, "COL_ADDRESS", ddl.Dec("18446744073709551615")},
		{0, "COL_HIT_COUNT", int64(math.MaxInt64)},
		{0, "COL_TOKEN", int64(math.MinInt64)},
		{1, "COL_ADDRESS", ddl.Dec("18446744073709551615")},
		{1, "COL_HIT_COUNT", int64(0)},
		{1, "COL_TOKEN", int64(1000)},
		{2, "COL_ADDRESS", ddl.Dec("0.12345678")},
		{2, "COL_HIT_COUNT", int64(123456789012345678)},
		{2, "COL_TOKEN", int64(-1234567890123456789)},
		{3, "COL_ADDRESS", ddl.Dec("0.12345678")},
		{3, "COL_SOURCE_LINE", int64(1)},
		{4, "COL_ADDRESS", ddl.Dec("0.00000001")},
	} {
		if got := rt.Value(c.row, c.col); got != c.want {
			t.Errorf("ROUTINES row %d %s = %#v, want %#v", c.row, c.col, got, c.want)
		}
	}
	md := r.mem.Sets[1].Tables[lightcoverage.ModulesData]
	for _, c := range []struct {
		row  int
		col  string
		want any
	}{
		{0, "COL____COVERED", 1e308},
		{0, "COL_MARK", ddl.Dec("12345678901234567890.12345678")},
		{1, "COL____COVERED", float64(9007199254740992)}, // correctly rounded, as ParseFloat
		{2, "COL____COVERED", -1e-7},
	} {
		if got := md.Value(c.row, c.col); got != c.want {
			t.Errorf("MODULES_DATA row %d %s = %#v, want %#v", c.row, c.col, got, c.want)
		}
	}
}

// TestReadValueTypes checks what reaches the Target: int64 for plain
// integers, json.Number for every other number, string, nil and bool.
func TestReadValueTypes(t *testing.T) {
	var rows [][]any
	tg := &funcTarget{write: func(row []any) error {
		rows = append(rows, append([]any(nil), row...))
		return nil
	}}
	_, err := Read(context.Background(), strings.NewReader(`{"profiler":"function-trace","tables":{
"FUNCTION_TRACE_PROFILER_THREADS":[
{"ID":-1,"PARENT_ID":123456789012345678,"REC_ID":1234567890123456789,"COL_LINE_NUMBER":true,"COL_WIN32THREADID":"x\u00e9"},
{"ID":-0,"PARENT_ID":1.5,"REC_ID":2e2,"COL_LINE_NUMBER":false,"COL_WIN32THREADID":null}]}}`), "x.json", tg)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{true, "xé", int64(-1), int64(123456789012345678), json.Number("1234567890123456789")},
		{false, nil, json.Number("-0"), json.Number("1.5"), json.Number("2e2")},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %#v\nwant %#v", rows, want)
	}
}

// funcTarget hands every row of every table to write.
type funcTarget struct {
	write func(row []any) error
	table func(name string, cols []string) error
}

func (f *funcTarget) Begin(context.Context, resultset.Header) (resultset.ResultWriter, error) {
	return funcSet{f}, nil
}

type funcSet struct{ f *funcTarget }

func (s funcSet) SetHeader(resultset.Header) error { return nil }
func (s funcSet) Table(name string, cols []string) (resultset.TableWriter, error) {
	if s.f.table != nil {
		if err := s.f.table(name, cols); err != nil {
			return nil, err
		}
	}
	return funcTable(s), nil
}
func (s funcSet) Commit() (resultset.Result, error) { return resultset.Result{}, nil }
func (s funcSet) Rollback() error                   { return nil }

type funcTable struct{ f *funcTarget }

func (t funcTable) Write(row []any) error {
	if t.f.write == nil {
		return nil
	}
	return t.f.write(row)
}

func TestReadKeysAnyCase(t *testing.T) {
	r := mustRead(t, `{"PROFILER":"function-trace","Caption":"c","Counter":{"NAME":"Time","Description":"d","FREQUENCY":"10.5"},
"Tables":{"function_trace_profiler_threads":[
{"id":1,"Parent_ID":-1,"rec_id":7,"col_win32threadid":42},
{"ID":2,"PARENT_ID":-1,"REC_ID":8,"COL_WIN32THREADID":43},
{"REC_ID":9,"id":3}]}}`)
	set := r.mem.Sets[0]
	if set.Header.Caption != "c" || set.Header.Counter.Name != "Time" || set.Header.Counter.Frequency != "10.5" {
		t.Errorf("header %+v %+v", set.Header, set.Header.Counter)
	}
	tb := set.Tables[threads]
	if tb == nil {
		t.Fatalf("tables %v", set.Order)
	}
	want := [][]any{
		{nil, int64(42), int64(1), int64(-1), int64(7)},
		{nil, int64(43), int64(2), int64(-1), int64(8)},
		{nil, nil, int64(3), nil, int64(9)},
	}
	if !reflect.DeepEqual(tb.Rows, want) {
		t.Errorf("rows %v, want %v", tb.Rows, want)
	}
}

func TestReadKeyOrder(t *testing.T) {
	const rows = `"tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":1}]}`
	for _, tc := range []struct {
		name, in string
		log      []string
	}{
		{"header first", `{"profiler":"function-trace","caption":"c","counter":{"name":"Time"},` + rows + `}`,
			[]string{"begin function-trace", "table " + threads, "commit"}},
		{"profiler last", `{` + rows + `,"caption":"c","counter":{"name":"Time"},"profiler":"function-trace"}`,
			[]string{"begin function-trace", "table " + threads, "header c", "commit"}},
		{"no profiler", `{"caption":"c",` + rows + `,"counter":{"name":"Time"}}`,
			[]string{"begin function-trace", "table " + threads, "header c", "commit"}},
		{"caption last", `{"profiler":"function-trace","counter":{"name":"Time"},` + rows + `,"caption":"c"}`,
			[]string{"begin function-trace", "table " + threads, "header c", "commit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRead(t, tc.in)
			if !reflect.DeepEqual(r.log, tc.log) {
				t.Errorf("calls %q, want %q", r.log, tc.log)
			}
			h := r.mem.Sets[0].Header
			if h.Caption != "c" || h.Counter == nil || h.Counter.Name != "Time" || h.Profiler != "function-trace" {
				t.Errorf("header %+v", h)
			}
		})
	}
	// Without tables the result set is INSTANCES and RELATIONS only.
	r := mustRead(t, `{"caption":"empty","profiler":"resource"} {"profiler":"resource","tables":{}} {"profiler":"resource","tables":null}`)
	if len(r.mem.Sets) != 3 || r.mem.Sets[0].Header.Caption != "empty" || len(r.mem.Sets[0].Tables) != 0 {
		t.Errorf("sets %+v", r.mem.Sets)
	}
}

// TestReadSpoolsChildren checks that a Target gets parents before children
// whatever the order in the file, with the rows intact, and that the
// temporary files are removed.
func TestReadSpoolsChildren(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := `{"profiler":"function-trace","tables":{
"FUNCTION_TRACE_PROFILER_CALL_STACK":[
{"ID":0,"PARENT_ID":0,"REC_ID":0,"COL_CALL_NO":0,"COL_MODULE_NAME":"a.exe","COL_SOURCE_LINE":"12"},
{"ID":1,"PARENT_ID":0,"REC_ID":1,"COL_CALL_NO":1,"COL_MODULE_NAME":"caf\u00e9 \"x\"","COL_SOURCE_LINE":18446744073709551615}],
"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":0,"PARENT_ID":0,"REC_ID":1,"COL__S":123456789}],
"FUNCTION_TRACE_PROFILER_CALL_ROUTES":[{"ID":0,"PARENT_ID":0,"REC_ID":1,"COL_HIT_COUNT":3}],
"FUNCTION_TRACE_PROFILER_META_LINES":[{"ID":0,"PARENT_ID":0,"REC_ID":1,"COL_SOURCE_LINE":12}],
"FUNCTION_TRACE_PROFILER_ROUTINES":[{"ID":0,"PARENT_ID":-1,"REC_ID":1,"COL_HIT_COUNT":3}],
"FUNCTION_TRACE_PROFILER_PARAMETERS_ON_ENTER":[],
"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1,"REC_ID":0}]
}}`
	r := mustRead(t, in)
	want := []string{"begin function-trace",
		"table FUNCTION_TRACE_PROFILER_ROUTINES",
		"table FUNCTION_TRACE_PROFILER_CALL_ROUTES",
		"table FUNCTION_TRACE_PROFILER_CALL_STACK",
		"table FUNCTION_TRACE_PROFILER_THREADS",
		"table FUNCTION_TRACE_PROFILER_CALL_TRACE",
		"table FUNCTION_TRACE_PROFILER_PARAMETERS_ON_ENTER",
		"table FUNCTION_TRACE_PROFILER_META_LINES", // its parent never comes: at the end
		"commit"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("calls\n%q\nwant\n%q", r.log, want)
	}
	set := r.mem.Sets[0]
	cs := set.Tables[functiontrace.CallStack]
	if len(cs.Rows) != 2 || cs.Value(1, "COL_MODULE_NAME") != `café "x"` || cs.Value(1, "COL_SOURCE_LINE") != ddl.Dec("18446744073709551615") ||
		cs.Value(0, "COL_SOURCE_LINE") != ddl.Dec("12") || cs.Value(1, "COL_CALL_NO") != int64(1) || cs.Value(0, "COL_RECID") != nil {
		t.Errorf("CALL_STACK rows %v", cs.Rows)
	}
	if v := set.Tables[functiontrace.CallTrace].Value(0, "COL__S"); v != int64(123456789) {
		t.Errorf("CALL_TRACE COL__S %v", v)
	}
	if n := len(set.Tables[functiontrace.ParametersOnEnter].Rows); n != 0 {
		t.Errorf("PARAMETERS_ON_ENTER has %d rows", n)
	}
	if left := readDir(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// A spooled row the Target rejects is reported at its line in the file,
	// and the spool is removed all the same.
	bad := strings.Replace(in, `"COL_CALL_NO":1,`, `"COL_CALL_NO":"one",`, 1)
	r, _, err := read(t, bad)
	want2 := `x.json:4: write: table FUNCTION_TRACE_PROFILER_CALL_STACK, column COL_CALL_NO, row 2: want an integer, got text "one"`
	if err == nil || err.Error() != want2 {
		t.Errorf("error %v, want %s", err, want2)
	}
	if len(r.mem.Sets) != 0 || r.log[len(r.log)-1] != "rollback" {
		t.Errorf("calls %q", r.log)
	}
	if left := readDir(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestReadGrandchildBeforeParents(t *testing.T) {
	// REFERENCES -> OBJECTS; ADDREF_RELEASE_CALL_STACK -> REFERENCES.
	r := mustRead(t, `{"tables":{
"REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK":[{"ID":0,"PARENT_ID":0}],
"REFERENCE_COUNT_PROFILER_REFERENCES":[{"ID":0,"PARENT_ID":0}],
"REFERENCE_COUNT_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1}],
"REFERENCE_COUNT_PROFILER_OBJECTS":[{"ID":0,"PARENT_ID":-1}]}}`)
	want := []string{"begin reference-count",
		"table REFERENCE_COUNT_PROFILER_THREADS",
		"table REFERENCE_COUNT_PROFILER_OBJECTS",
		"table REFERENCE_COUNT_PROFILER_REFERENCES",
		"table REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK",
		"commit"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("calls\n%q\nwant\n%q", r.log, want)
	}
}

func TestReadContainers(t *testing.T) {
	one := `{"profiler":"resource","caption":"%d"}`
	for _, tc := range []struct {
		name, in string
		sets     int
	}{
		{"object", fmt.Sprintf(one, 1), 1},
		{"array", "[" + fmt.Sprintf(one, 1) + ",\n" + fmt.Sprintf(one, 2) + "]", 2},
		{"empty array", " [ ] ", 0},
		{"concatenated", fmt.Sprintf(one, 1) + fmt.Sprintf(one, 2) + "\n\n" + fmt.Sprintf(one, 3) + "\n", 3},
		{"arrays and objects", "[" + fmt.Sprintf(one, 1) + "]\n" + fmt.Sprintf(one, 2), 2},
		{"byte order mark", "\xEF\xBB\xBF" + fmt.Sprintf(one, 1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, res, err := read(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != tc.sets {
				t.Fatalf("%d results, want %d", len(res), tc.sets)
			}
			for i, s := range r.mem.Sets {
				if s.Header.Caption != fmt.Sprint(i+1) || res[i].InstID != int64(i+1) {
					t.Errorf("set %d: caption %q, result %+v", i, s.Header.Caption, res[i])
				}
			}
		})
	}
}

// TestReadErrors: every bad input gives a specific error at its place, and
// the result set it is in is not committed (those before it are).
func TestReadErrors(t *testing.T) {
	const ft = `{"profiler":"function-trace","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[`
	const good = `{"profiler":"resource"}` + "\n"
	for _, tc := range []struct {
		name, in, want string
		commits        int
	}{
		{"empty", "  \n ", "x.json:2:1: empty file", 0},
		{"not json", "hello", "x.json:1:1: invalid character 'h': want a result set object or an array of them", 0},
		{"missing colon", `{"profiler" "x"}`, `x.json:1:13: invalid character '"' after object key: want ':'`, 0},
		{"missing comma", `{"profiler":"resource" "caption":"x"}`, `x.json:1:24: invalid character '"' after result set object element: want ',' or '}'`, 0},
		{"unknown profiler", "\n" + `{"caption": "c", "profiler": "nope"}`, `x.json:2:30: unknown profiler "nope" (registered: function-trace, light-coverage, reference-count, resource)`, 0},
		{"profiler not a string", `{"profiler": 1}`, `x.json:1:14: "profiler": want the profiler's name as a string`, 0},
		{"unknown key", `{"profiler":"resource","captions":"x"}`, `x.json:1:24: unknown key "captions" in result set object`, 0},
		{"key twice", `{"profiler":"resource","caption":"a","Caption":"b"}`, `x.json:1:38: key "caption" given twice`, 0},
		{"no profiler", `{"caption":"x"}`, `x.json:1: result set without "profiler"`, 0},
		{"unknown table", `{"tables":{"NOPE":[]}}`, `x.json:1:12: unknown table "NOPE": no registered profiler`, 0},
		{"table of another profiler", `{"profiler":"resource","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[]}}`, `x.json:1:34: profiler resource has no table "FUNCTION_TRACE_PROFILER_THREADS"`, 0},
		{"profiler mismatch", `{"tables":{"FUNCTION_TRACE_PROFILER_THREADS":[]},"profiler":"resource"}`, `x.json:1:61: profiler "resource" does not match table FUNCTION_TRACE_PROFILER_THREADS, which belongs to profiler function-trace`, 0},
		{"table twice", `{"profiler":"resource","tables":{"RESOURCE_PROFILER_THREADS":[],"resource_profiler_threads":[]}}`, `x.json:1:65: table RESOURCE_PROFILER_THREADS given twice in one result set`, 0},
		{"table not an array", ft[:len(ft)-1] + `{}}}`, `x.json:1:74: table FUNCTION_TRACE_PROFILER_THREADS: want an array of row objects`, 0},
		{"row not an object", ft + `1]}}`, `x.json:1:75: table FUNCTION_TRACE_PROFILER_THREADS: want a row object, got '1'`, 0},
		{"unknown column", ft + "\n" + `{"ID":0},{"ID":1, "COL_X":2}]}}`, `x.json:2:19: table FUNCTION_TRACE_PROFILER_THREADS has no column "COL_X"`, 0},
		{"INST_ID", ft + `{"ID":0,"inst_id":2}]}}`, `x.json:1:83: table FUNCTION_TRACE_PROFILER_THREADS: INST_ID is assigned by profdb and must not be given`, 0},
		{"column twice", ft + `{"ID":0,"REC_ID":1,"id":2}]}}`, `x.json:1:94: table FUNCTION_TRACE_PROFILER_THREADS: column ID given twice in one row`, 0},
		{"column twice, cached", ft + `{"ID":0,"REC_ID":1},{"ID":0,"REC_ID":1,"ID":2}]}}`, `x.json:1:114: table FUNCTION_TRACE_PROFILER_THREADS: column ID given twice in one row`, 0},
		{"nested array", ft + `{"ID":[1]}]}}`, `x.json:1:81: column ID: want a number, string or null, got an array`, 0},
		{"nested object", ft + `{"ID":{}}]}}`, `x.json:1:81: column ID: want a number, string or null, got an object`, 0},
		{"text in Integer", good + ft + "\n" + `{"ID":0},` + "\n" + `  {"ID":"7"}]}}`, `x.json:4: write: table FUNCTION_TRACE_PROFILER_THREADS, column ID, row 2: want an integer, got text "7"`, 1},
		{"boolean in Integer", ft + `{"ID":true}]}}`, `x.json:1: write: table FUNCTION_TRACE_PROFILER_THREADS, column ID, row 1: want an integer, got boolean true`, 0},
		{"out of range", ft + `{"ID":9223372036854775808}]}}`, `x.json:1: write: table FUNCTION_TRACE_PROFILER_THREADS, column ID, row 1: "9223372036854775808" is out of range for a 64-bit integer`, 0},
		{"fraction in Integer", ft + `{"ID":1.5}]}}`, `x.json:1: write: table FUNCTION_TRACE_PROFILER_THREADS, column ID, row 1: want an integer, got "1.5"`, 0},
		{"decimal out of range", `{"tables":{"FUNCTION_TRACE_PROFILER_ROUTINES":[{"COL_ADDRESS":123456789012345678901}]}}`, `x.json:1: write: table FUNCTION_TRACE_PROFILER_ROUTINES, column COL_ADDRESS, row 1: "123456789012345678901" is out of range for a decimal (more than 20 integer digits)`, 0},
		{"float out of range", `{"tables":{"LIGHT_COVERAGE_PROFILER_MODULES_DATA":[{"COL____COVERED":1e309}]}}`, `x.json:1: write: table LIGHT_COVERAGE_PROFILER_MODULES_DATA, column COL____COVERED, row 1: "1e309" is out of range for a 64-bit float`, 0},
		{"bad frequency", `{"profiler":"resource","counter":{"frequency":"fast"}}`, `x.json:1:47: counter "frequency": want a decimal, got "fast"`, 0},
		{"unknown counter key", `{"profiler":"resource","counter":{"hz":1}}`, `x.json:1:35: unknown key "hz" in counter object`, 0},
		{"truncated in row", good + ft + `{"ID":0`, "x.json:2:82: unexpected end of file in row object", 1},
		{"truncated in string", ft + `{"ID":0,"REC`, "x.json:1:87: unexpected end of file in string", 0},
		{"truncated in number", ft + `{"ID":-`, "x.json:1:82: unexpected end of file in number", 0},
		{"truncated after table", ft + `]`, `x.json:1:76: unexpected end of file in "tables" object`, 0},
		{"truncated at end", ft + `]}`, "x.json:1:77: unexpected end of file in result set object", 0},
		{"truncated array", "[" + good, "x.json:2:1: unexpected end of file in array", 1},
		{"trailing garbage", good + "x", "x.json:2:1: invalid character 'x': want a result set object or an array of them", 1},
		{"trailing bracket", good + "]", "x.json:2:1: invalid character ']'", 1},
		{"trailing comma in array", "[" + good + ",]", "x.json:2:2: invalid character ']' in array: want a result set object", 1},
		{"trailing comma in row", ft + `{"ID":0,}]}}`, `x.json:1:83: invalid character '}' in row object: want a column name string`, 0},
		{"single quotes", ft + `{'ID':0}]}}`, `x.json:1:76: invalid character '\'' in row object: want a column name string`, 0},
		{"leading zero", ft + `{"ID":01}]}}`, `x.json:1:81: invalid number: leading zero`, 0},
		{"-01", ft + `{"ID":-01}]}}`, `x.json:1:82: invalid number: leading zero`, 0},
		{"trailing point", ft + `{"ID":1.}]}}`, `x.json:1:83: invalid number: want a digit after the decimal point, got '}'`, 0},
		{"leading point", ft + `{"ID":.5}]}}`, `x.json:1:81: invalid character '.' looking for a value`, 0},
		{"lone minus", ft + `{"ID":-}]}}`, `x.json:1:82: invalid number: want a digit after '-', got '}'`, 0},
		{"plus", ft + `{"ID":+1}]}}`, `x.json:1:81: invalid character '+' looking for a value`, 0},
		{"empty exponent", ft + `{"ID":1e}]}}`, `x.json:1:83: invalid number: want a digit in the exponent, got '}'`, 0},
		{"signed empty exponent", ft + `{"ID":1E+}]}}`, `x.json:1:84: invalid number: want a digit in the exponent, got '}'`, 0},
		{"two points", ft + `{"ID":1.5.3}]}}`, `x.json:1:84: invalid character '.' in number`, 0},
		{"hex", ft + `{"ID":0x10}]}}`, `x.json:1:82: invalid character 'x' in number`, 0},
		{"NaN", ft + `{"ID":NaN}]}}`, `x.json:1:81: invalid character 'N' looking for a value`, 0},
		{"bad literal", ft + `{"ID":nul}]}}`, `x.json:1:84: invalid character '}' in literal null`, 0},
		{"literal too long", ft + `{"ID":truex}]}}`, `x.json:1:85: invalid character 'x' after literal true`, 0},
		{"invalid UTF-8", ft + `{"ID":0,"COL_WIN32THREADID":"ab` + "\xff" + `"}]}}`, `x.json:1:106: invalid UTF-8 in string (byte 0xff)`, 0},
		{"invalid UTF-8 in key", ft + `{"I` + "\xc3\x28" + `":0}]}}`, `x.json:1:78: invalid UTF-8 in string (byte 0xc3)`, 0},
		{"invalid UTF-8 after escape", ft + `{"ID":0,"COL_WIN32THREADID":"\n` + "\xed\xa0\x80" + `"}]}}`, `x.json:1:106: invalid UTF-8 in string (byte 0xed)`, 0},
		{"truncated UTF-8", `{"profiler":"resource","caption":"` + "\xe2\x82" + `"}`, "x.json:1:35: invalid UTF-8 in string (byte 0xe2)", 0},
		{"invalid escape", `{"profiler":"resource","caption":"a\qb"}`, `x.json:1:36: invalid escape "\\q" in string`, 0},
		{"invalid hex escape", `{"profiler":"resource","caption":"a\u12G4"}`, `x.json:1:36: invalid escape "\\u12G4" in string: want \u and four hex digits`, 0},
		{"short hex escape", `{"profiler":"resource","caption":"a\u12"}`, `x.json:1:36: invalid escape "\\u12" in string: want \u and four hex digits`, 0},
		{"unpaired high surrogate", `{"profiler":"resource","caption":"a\ud800b"}`, `x.json:1:36: invalid escape "\\ud800" in string: unpaired surrogate`, 0},
		{"high surrogate, then not low", `{"profiler":"resource","caption":"\ud800\u0041"}`, `x.json:1:35: invalid escape "\\ud800" in string: unpaired surrogate`, 0},
		{"unpaired low surrogate", `{"profiler":"resource","caption":"\udc00"}`, `x.json:1:35: invalid escape "\\udc00" in string: unpaired surrogate`, 0},
		{"control character", "{\"profiler\":\"resource\",\"caption\":\"a\tb\"}", `x.json:1:36: invalid control character byte 0x09 in string (escape it)`, 0},
		{"newline in string", "{\"profiler\":\"resource\",\"caption\":\"a\nb\"}", `x.json:1:36: invalid control character byte 0x0a in string (escape it)`, 0},
		{"truncated escape", `{"profiler":"resource","caption":"a\`, `x.json:1:37: unexpected end of file in string escape`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := read(t, tc.in)
			if err == nil {
				t.Fatalf("no error; want %s", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "x.json" {
				t.Errorf("error %T is not an *Error naming the file", err)
			}
			if len(r.mem.Sets) != tc.commits {
				t.Errorf("%d result sets committed, want %d; calls %q", len(r.mem.Sets), tc.commits, r.log)
			}
			if n := len(r.log); n > 0 && r.log[n-1] == "commit" && len(r.mem.Sets) == tc.commits && tc.commits == 0 {
				t.Errorf("calls %q", r.log)
			}
		})
	}
}

// TestReadWrapsTargetErrors: errors of the Target keep their identity.
func TestReadWrapsTargetErrors(t *testing.T) {
	sentinel := errors.New("disk full")
	tg := &funcTarget{write: func([]any) error { return sentinel }}
	_, err := Read(context.Background(), strings.NewReader(`{"profiler":"resource","tables":{
"RESOURCE_PROFILER_THREADS":[{"ID":1}]}}`), "f.json", tg)
	if !errors.Is(err, sentinel) || err.Error() != "f.json:2: disk full" {
		t.Errorf("error %v", err)
	}
	tg = &funcTarget{table: func(string, []string) error { return sentinel }}
	_, err = Read(context.Background(), strings.NewReader(`{"profiler":"resource","tables":{
  "RESOURCE_PROFILER_THREADS":[{"ID":1}]}}`), "f.json", tg)
	if !errors.Is(err, sentinel) || err.Error() != "f.json:2:3: disk full" {
		t.Errorf("error %v", err)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadReaderError(t *testing.T) {
	sentinel := errors.New("connection reset")
	in := `{"profiler":"resource"}` + "\n" + `{"profiler":"resource","tables":{"RESOURCE_PROFILER_THREADS":[{"ID":1},`
	r := &recorder{}
	res, err := Read(context.Background(), &failingReader{data: []byte(in), err: sentinel}, "x.json", r)
	if !errors.Is(err, sentinel) || !strings.HasPrefix(err.Error(), "x.json:2:") || len(res) != 1 || r.open != 0 {
		t.Errorf("err %v, %d results, log %q", err, len(res), r.log)
	}
	// An error after the last complete result set is still an error.
	res, err = Read(context.Background(), &failingReader{data: []byte(`{"profiler":"resource"}`), err: sentinel}, "x.json", &recorder{})
	if !errors.Is(err, sentinel) || len(res) != 1 {
		t.Errorf("err %v, %d results", err, len(res))
	}
}

func TestReadContextCanceled(t *testing.T) {
	data := callTraceFile(t, 5000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &recorder{}
	res, err := Read(ctx, bytes.NewReader(data), "x.json", r)
	if !errors.Is(err, context.Canceled) || len(res) != 0 || len(r.mem.Sets) != 0 || r.open != 0 {
		t.Errorf("err %v, %d results, log %q", err, len(res), r.log)
	}
}

func TestReadStrings(t *testing.T) {
	long := strings.Repeat("é€😀x", 100_000) // longer than the read window
	in := `{"profiler":"resource","caption":"` + `\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00 é€😀 \u0000` + `",
"counter":{"name":"` + long + `","description":"` + strings.Repeat(`\u00e9\n`, 50_000) + `"}}`
	r := mustRead(t, in)
	h := r.mem.Sets[0].Header
	if want := "\"\\/\b\f\n\r\t\u00e9\u20ac\U0001F600 é€😀 \x00"; h.Caption != want {
		t.Errorf("caption %q, want %q", h.Caption, want)
	}
	if h.Counter.Name != long || h.Counter.Description != strings.Repeat("é\n", 50_000) {
		t.Errorf("long strings differ")
	}
}

// TestReadOneByteAtATime reads inputs through a reader that returns a byte
// per call: every token crosses the window's edge somewhere.
func TestReadOneByteAtATime(t *testing.T) {
	inputs := []string{
		`{"profiler":"resource","caption":"\u00e9\ud83d\ude00é😀\n","tables":{"RESOURCE_PROFILER_THREADS":[{"ID":-1234567890123,"COL_SIZE":1.5e3,"REC_ID":null}]}}`,
	}
	files := examplesFiles(t)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	for i, in := range inputs {
		whole := &resultset.Memory{}
		if _, err := Read(context.Background(), strings.NewReader(in), "x.json", whole); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		bytewise := &resultset.Memory{}
		if _, err := Read(context.Background(), iotest.OneByteReader(strings.NewReader(in)), "x.json", bytewise); err != nil {
			t.Fatalf("input %d, a byte at a time: %v", i, err)
		}
		if !reflect.DeepEqual(whole.Sets, bytewise.Sets) {
			t.Errorf("input %d: read a byte at a time differs", i)
		}
	}
	// Errors are placed the same way.
	bad := "{\"profiler\":\"resource\",\n\"tables\":{\"RESOURCE_PROFILER_THREADS\":[{\"ID\":1},\n {\"ID\":\"\\ud800\"}]}}"
	_, err1 := Read(context.Background(), strings.NewReader(bad), "x.json", &resultset.Memory{})
	_, err2 := Read(context.Background(), iotest.OneByteReader(strings.NewReader(bad)), "x.json", &resultset.Memory{})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !strings.HasPrefix(err1.Error(), "x.json:3:9: invalid escape") {
		t.Errorf("errors %v / %v", err1, err2)
	}
}

func TestSniffAndRegistration(t *testing.T) {
	for in, want := range map[string]bool{
		`{"profiler":"x"}`: true, "  \n\t[": true, "\xEF\xBB\xBF {": true,
		"": false, "   ": false, "<?xml": false, "mode: set": false, "TN:": false,
	} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v", in, got)
		}
	}
	f, err := input.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := input.Detect([]byte("\n{")); err != nil || d.Name != "json" {
		t.Errorf("Detect: %v %v", d.Name, err)
	}
	m := &resultset.Memory{}
	res, err := input.Read(context.Background(), "", strings.NewReader(` {"profiler":"resource","caption":"via input"}`), "x.json", m, input.Options{})
	if err != nil || len(res) != 1 || m.Sets[0].Header.Caption != "via input" {
		t.Errorf("input.Read: %v %v", res, err)
	}
	if _, err := f.Read(context.Background(), strings.NewReader("{"), "y.json", m, input.Options{}); err == nil || !strings.HasPrefix(err.Error(), "y.json:1:2:") {
		t.Errorf("format Read error %v", err)
	}
}

var _ io.Reader = (*failingReader)(nil)
