package inputtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// Reader is a reader's Read function (input.Format.Read).
type Reader func(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error)

// Num is an integer column's value: an int64, or a ddl.Dec holding an
// integer; anything else fails the test.
func Num(t testing.TB, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case int64:
		return x
	case ddl.Dec:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			t.Fatalf("decimal %q: %v", x, err)
		}
		return n
	}
	t.Fatalf("unexpected value %#v (%T)", v, v)
	return 0
}

// Str is a text column's value, "" for NULL.
func Str(v any) string { s, _ := v.(string); return s }

// Result is what one read gave: its one result set and the notes and
// warnings the reader sent.
type Result struct {
	Set             resultset.MemorySet
	Notes, Warnings []string
}

// Read reads data, named name, with read into memory, collecting notes and
// warnings (o's own Notef and Warnf are replaced). On error it checks that
// no result set was committed; on success that exactly one was.
func Read(t testing.TB, read Reader, name string, data []byte, o input.Options) (Result, error) {
	t.Helper()
	m := &resultset.Memory{}
	var res Result
	o.Notef = func(f string, a ...any) { res.Notes = append(res.Notes, fmt.Sprintf(f, a...)) }
	o.Warnf = func(f string, a ...any) { res.Warnings = append(res.Warnings, fmt.Sprintf(f, a...)) }
	_, err := read(context.Background(), bytes.NewReader(data), name, m, o)
	if err != nil {
		if len(m.Sets) != 0 {
			t.Errorf("error %v, yet %d result sets committed", err, len(m.Sets))
		}
		return res, err
	}
	if len(m.Sets) != 1 {
		t.Fatalf("%d result sets, want 1", len(m.Sets))
	}
	res.Set = m.Sets[0]
	return res, nil
}

// ReadFile is Read of a file, named by its path; any error fails the test.
func ReadFile(t testing.TB, read Reader, file string, o input.Options) Result {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(t, read, file, data, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Routine is one routine of a result set, joined from META_ROUTINES,
// ROUTINES_DATA and LINES.
type Routine struct {
	File, Name, Class, Namespace, Module, CodeType, Moniker string
	Line, Count, ProfileLines                               int64
	Lines                                                   map[int64]int64 // source line -> count
}

// Routines returns the routines of set in META_ROUTINES order. The tables
// must be there and agree: one ROUTINES_DATA row per routine, with its
// source line, and LINES rows of known routines, each line once.
func Routines(t testing.TB, set resultset.MemorySet) []Routine {
	t.Helper()
	meta, data, lines := set.Tables[lightcoverage.MetaRoutines], set.Tables[lightcoverage.RoutinesData], set.Tables[lightcoverage.Lines]
	if meta == nil || data == nil || lines == nil {
		t.Fatalf("tables missing: %v", set.Order)
	}
	if len(meta.Rows) != len(data.Rows) {
		t.Fatalf("%d META_ROUTINES rows, %d ROUTINES_DATA rows", len(meta.Rows), len(data.Rows))
	}
	out := make([]Routine, len(meta.Rows))
	byID := map[int64]*Routine{}
	for i := range meta.Rows {
		out[i] = Routine{
			File: Str(meta.Value(i, "COL_SOURCE_FILE")), Name: Str(meta.Value(i, "COL_ROUTINE_NAME")),
			Class: Str(meta.Value(i, "COL_CLASS_NAME")), Namespace: Str(meta.Value(i, "COL_NAMESPACE")),
			Module: Str(meta.Value(i, "COL_MODULE_NAME")), CodeType: Str(meta.Value(i, "COL_CODE_TYPE")),
			Moniker: Str(meta.Value(i, "COL_SYMBOL_MONIKER")), Line: Num(t, meta.Value(i, "COL_SOURCE_LINE")),
			ProfileLines: Num(t, meta.Value(i, "COL_PROFILELINES")), Lines: map[int64]int64{},
		}
		byID[Num(t, meta.Value(i, "ID"))] = &out[i]
	}
	for i := range data.Rows {
		r := byID[Num(t, data.Value(i, "ID"))]
		if r == nil {
			t.Fatalf("ROUTINES_DATA row %d has no META_ROUTINES row", i)
		}
		r.Count = Num(t, data.Value(i, "COL_MARK"))
		if got := Num(t, data.Value(i, "COL_SOURCE_LINE")); got != r.Line {
			t.Errorf("%s: ROUTINES_DATA source line %d, META_ROUTINES %d", r.Name, got, r.Line)
		}
	}
	for i := range lines.Rows {
		r := byID[Num(t, lines.Value(i, "PARENT_ID"))]
		if r == nil {
			t.Fatalf("LINES row %d has no routine", i)
		}
		l := Num(t, lines.Value(i, "COL_SOURCE_LINE"))
		if _, dup := r.Lines[l]; dup {
			t.Errorf("%s: line %d twice", r.Name, l)
		}
		r.Lines[l] = Num(t, lines.Value(i, "COL_MARK"))
	}
	return out
}

// Percentages returns COL____COVERED by name (the column nameCol) of a
// MODULES_DATA or SOURCE_FILES_DATA table.
func Percentages(t testing.TB, set resultset.MemorySet, table, nameCol string) map[string]float64 {
	t.Helper()
	tb := set.Tables[table]
	if tb == nil {
		t.Fatalf("no table %s", table)
	}
	out := map[string]float64{}
	for i := range tb.Rows {
		out[Str(tb.Value(i, nameCol))] = tb.Value(i, "COL____COVERED").(float64)
	}
	return out
}

// Approx reports whether got has the keys of want, each within 1e-9.
func Approx(got, want map[string]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9 {
			return false
		}
	}
	return true
}

// CheckCovered asserts that table's % covered by nameCol are want.
func CheckCovered(t testing.TB, set resultset.MemorySet, table, nameCol string, want map[string]float64) {
	t.Helper()
	if got := Percentages(t, set, table, nameCol); !Approx(got, want) {
		t.Errorf("%s %% covered %v, want %v", table, got, want)
	}
}

// Refused is a malformed input and what its error must contain.
type Refused = struct{ Doc, Want string }

// CheckRefused asserts that reading each input, named name, fails with an
// error containing its Want (and, through Read, commits nothing).
func CheckRefused(t testing.TB, read Reader, name string, o input.Options, cases []Refused) {
	t.Helper()
	for _, tc := range cases {
		_, err := Read(t, read, name, []byte(tc.Doc), o)
		if err == nil || !strings.Contains(err.Error(), tc.Want) {
			t.Errorf("%.70q: error %v, want %q", tc.Doc, err, tc.Want)
		}
	}
}

// CheckEmpty asserts that each input, named name, reads without error and
// without a result set, so that export refuses it unless --allow-empty.
func CheckEmpty(t testing.TB, read Reader, name string, docs ...string) {
	t.Helper()
	for _, doc := range docs {
		m := &resultset.Memory{}
		res, err := read(context.Background(), strings.NewReader(doc), name, m, input.Options{})
		if err != nil || len(res) != 0 || len(m.Sets) != 0 {
			t.Errorf("%q: %d results, %d sets, error %v; want none", doc, len(res), len(m.Sets), err)
		}
	}
}

// CheckRows asserts that doc, named name, reads into one result set whose
// table has want rows: the least input that is not empty.
func CheckRows(t testing.TB, read Reader, name, doc, table string, want int) {
	t.Helper()
	res, err := Read(t, read, name, []byte(doc), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Set.Tables[table].Rows); n != want {
		t.Errorf("%s: %d %s rows, want %d", name, n, table, want)
	}
}

// CheckDeep asserts that each XML document, named deep.xml, whose elements
// nest past xmlscan.MaxDepth from its line 2 on is refused with an error
// naming that line.
func CheckDeep(t testing.TB, read Reader, docs ...string) {
	t.Helper()
	cases := make([]Refused, len(docs))
	for i, doc := range docs {
		cases[i] = Refused{doc, "deep.xml:2: elements nested more than 256 deep, inside <"}
	}
	CheckRefused(t, read, "deep.xml", input.Options{}, cases)
}

// Missing fails the test under CI=true, where the comparison with a real
// tool must run (ci says what CI installs), and skips it otherwise: what
// could not be found, err, is needed.
func Missing(t testing.TB, what, ci string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (CI installs %s): %v", what, ci, err)
	}
	t.Skipf("%s is not installed: %v", what, err)
}

// NeedTools is Missing for the first of tools not on PATH.
func NeedTools(t testing.TB, ci string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, tool, ci, err)
		}
	}
}

// Fuzz is what a reader's FuzzRead runs.
type Fuzz struct {
	Read Reader
	// Name is the name the input is read under; every error must start
	// with ErrPrefix (the name, and ":" where errors name a line).
	Name, ErrPrefix string
	// Glob names the seed files under testdata ("*.xml"); there must be
	// some. Seeds are more seeds.
	Glob  string
	Seeds []string
	// Options are the options for an input (nil: none).
	Options func(data []byte) input.Options
	// Sets is how many result sets reading an input must commit when it
	// succeeds; nil: one, or none for an input with no coverable line.
	Sets func(data []byte) int
}

// Run adds the seeds and fuzzes: a read must not panic or hang, it commits
// nothing and names the input on error, and on success it commits the
// result sets it returns, as many as Sets says.
func (z Fuzz) Run(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", z.Glob))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds %s in testdata: %v", z.Glob, err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range z.Seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var o input.Options
		if z.Options != nil {
			o = z.Options(data)
		}
		m := &resultset.Memory{}
		res, err := z.Read(context.Background(), bytes.NewReader(data), z.Name, m, o)
		if err != nil {
			if len(m.Sets) != 0 || res != nil {
				t.Fatalf("error %v, yet %d sets committed", err, len(m.Sets))
			}
			if !strings.HasPrefix(err.Error(), z.ErrPrefix) {
				t.Fatalf("error does not name the input as %q: %v", z.ErrPrefix, err)
			}
			return
		}
		if z.Sets == nil {
			// One result set, or none for an input with no coverable line.
			if len(m.Sets) != len(res) || len(res) > 1 {
				t.Fatalf("%d sets, %d results", len(m.Sets), len(res))
			}
			return
		}
		if want := z.Sets(data); len(m.Sets) != want || len(res) != want {
			t.Fatalf("%d sets, %d results; want %d", len(m.Sets), len(res), want)
		}
	})
}

// CheckRegistered asserts that format is registered, that its Sniff says
// of each head what heads says and, when head > 0, recognises the file's
// first head bytes, and that input.Read of file without a
// format (detected from its head; named by its base name) gives one result
// set with the table row counts of rows.
func CheckRegistered(t testing.TB, format string, heads map[string]bool, file string, head int, o input.Options, rows map[string]int64) {
	t.Helper()
	f, err := input.Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	for head, want := range heads {
		if got := f.Sniff([]byte(head)); got != want {
			t.Errorf("Sniff(%.50q) = %v", head, got)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if head > 0 && !f.Sniff(data[:min(head, len(data))]) {
		t.Errorf("Sniff of the first %d bytes of %s = false", head, file)
	}
	m := &resultset.Memory{}
	res, err := input.Read(context.Background(), "", bytes.NewReader(data), filepath.Base(file), m, o)
	if err != nil || len(res) != 1 {
		t.Fatalf("input.Read: %v %+v", err, res)
	}
	for table, n := range rows {
		if res[0].Tables[table] != n {
			t.Errorf("input.Read: %d %s rows, want %d", res[0].Tables[table], table, n)
		}
	}
}
