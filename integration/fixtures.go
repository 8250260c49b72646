package integration

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"

	// The profiler plugins the suite exports.
	_ "github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
)

// Fixture is a result set whose rows are kept, so that it can be exported
// any number of times and compared with what a database returns.
type Fixture struct {
	Header resultset.Header
	Tables []FixtureTable
}

// FixtureTable is one table of a Fixture.
type FixtureTable struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// ResultSet returns the fixture as an resultset.ResultSet.
func (f *Fixture) ResultSet() *resultset.ResultSet {
	rs := &resultset.ResultSet{Header: f.Header}
	for _, t := range f.Tables {
		rows := t.Rows
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: t.Name, Columns: t.Columns,
			Rows: func(yield func([]any, error) bool) {
				for _, r := range rows {
					if !yield(r, nil) {
						return
					}
				}
			}})
	}
	return rs
}

// Table returns the fixture's table name.
func (f *Fixture) Table(name string) *FixtureTable {
	for i := range f.Tables {
		if f.Tables[i].Name == name {
			return &f.Tables[i]
		}
	}
	return nil
}

// Set sets the value of column col in row r.
func (t *FixtureTable) Set(r int, col string, v any) {
	for i, c := range t.Columns {
		if c == col {
			t.Rows[r][i] = v
			return
		}
	}
	panic("no column " + col)
}

// Rows counts the fixture's rows.
func (f *Fixture) Rows() int64 {
	var n int64
	for _, t := range f.Tables {
		n += int64(len(t.Rows))
	}
	return n
}

// BigText is over 1 MiB of non-ASCII text.
var BigText = strings.Repeat("ж€😀a", 1<<20/10)

// EdgeStrings are texts that break naive quoting or encoding somewhere.
var EdgeStrings = []string{
	"", `it's a "quote" ''`, `C:\src\new\table\`, "line1\nline2\r\nline3\ttab",
	"naïve Ünïcödé 中文 ж€😀 \u00a0\u2028", "'; DROP TABLE INSTANCES; --", "$(PATH) \nGO\n",
}

// EdgeInts are the edges of a 64-bit integer, and values just outside
// 32 bits.
var EdgeInts = []int64{1, -1, math.MaxInt64, math.MinInt64, 2147483648, -2147483649, 0, 42}

// EdgeDecimals are decimals at the edges of DECIMAL(28,8): the largest
// uint64, 20 integer digits with 8 decimals, the smallest fraction.
var EdgeDecimals = []ddl.Dec{"18446744073709551615", "0.12345678", "-123.45", "99999999999999999999.99999999",
	"-0.00000001", "0", "9223372036854775808", "-99999999999999999999.99999999", "0.5", "3"}

// keepsSubnormals reports whether the suite gives the dialect subnormal
// floats: not MySQL, not SQL Server.
func keepsSubnormals(dialect string) bool { return dialect != "mysql" && dialect != "sqlserver" }

// EdgeFloats are doubles at the edges of the range and random bit
// patterns; subnormals only where the dialect keeps them (keepsSubnormals).
func EdgeFloats(dialect string) []float64 {
	f := []float64{0.1, 1.0 / 3, math.MaxFloat64, -math.MaxFloat64, 2.2250738585072014e-308, 1e-300, -2.5, 0,
		123456789.125, 9007199254740993, 1e22}
	subnormal := keepsSubnormals(dialect)
	if subnormal {
		f = append(f, math.SmallestNonzeroFloat64, 4.9e-322)
	}
	r := rand.New(rand.NewSource(11))
	for len(f) < 60 {
		v := math.Float64frombits(r.Uint64())
		if math.IsNaN(v) || math.IsInf(v, 0) || !subnormal && v != 0 && math.Abs(v) < 2.2250738585072014e-308 {
			continue
		}
		f = append(f, v)
	}
	return f
}

// FullSet builds a result set of profiler with every table and every
// column: rows rows per table (row 0 NULL but for ID, PARENT_ID and REC_ID),
// IDs 0..rows-1, each child's PARENT_ID naming a parent row, and the other
// columns cycling through the edge values of their type. The first String
// column of the first table holds BigText in row 1. Float columns get every
// value of EdgeFloats.
func FullSet(t testing.TB, profiler, caption, dialect string, rows int) *Fixture {
	t.Helper()
	def, err := profilers.Lookup(profiler)
	if err != nil {
		t.Fatal(err)
	}
	floats := EdgeFloats(dialect)
	f := &Fixture{Header: resultset.Header{Profiler: profiler, Caption: caption,
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed 'time' ✓", Frequency: ddl.Dec("18446744073709551615")}}}
	for ti, tb := range def.Tables {
		ft := FixtureTable{Name: tb.Name}
		hasFloat := false
		for _, c := range tb.Columns {
			if c.Name != ddl.InstID {
				ft.Columns = append(ft.Columns, c.Name)
			}
			hasFloat = hasFloat || c.Type == ddl.Float
		}
		n := rows
		if hasFloat {
			n = max(rows, len(floats)+1)
		}
		bigDone := ti != 0
		for r := 0; r < n; r++ {
			row := make([]any, len(ft.Columns))
			for ci, name := range ft.Columns {
				col, _ := tb.Column(name)
				k := r*7 + ci
				switch {
				case name == ddl.ID || name == ddl.RecID:
					row[ci] = int64(r)
				case name == ddl.ParentID && tb.Parent == "":
					row[ci] = int64(-1)
				case name == ddl.ParentID:
					row[ci] = int64(r % rows)
				case r == 0:
					row[ci] = nil
				case col.Type == ddl.String && !bigDone:
					row[ci], bigDone = BigText, true
				case col.Type == ddl.String:
					row[ci] = EdgeStrings[k%len(EdgeStrings)]
				case col.Type == ddl.Integer:
					row[ci] = EdgeInts[k%len(EdgeInts)]
				case col.Type == ddl.Decimal:
					row[ci] = EdgeDecimals[k%len(EdgeDecimals)]
				case col.Type == ddl.Float:
					row[ci] = floats[(r-1)%len(floats)]
				}
			}
			ft.Rows = append(ft.Rows, row)
		}
		f.Tables = append(f.Tables, ft)
	}
	return f
}

// CoverageLine is one row the Light Coverage query returns.
type CoverageLine struct {
	ID         int64
	File       string
	Mark       ddl.Dec
	SourceLine int64
	Covered    float64
}

// CoverageSet is a small Light Coverage result set for the consumer query
// (dialecttest.ConsumerQuery): files source files, each with lines lines.
// ROUTINES_DATA holds one routine per file with the same ID, so that LINES'
// PARENT_ID names both a routine (the documented parent) and a file (the
// plugin's join). It uses only the columns the query reads and a few more,
// all of them in the range of narrow DBA-made columns (INT, VARCHAR(255),
// 32-bit FLOAT, DECIMAL(20,8)). It also returns the rows the query should
// return, in its order (by COL_FILE_NAME, then ID).
func CoverageSet(caption string, files, lines int) (*Fixture, []CoverageLine) {
	f := &Fixture{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: caption}}
	sf := FixtureTable{Name: lightcoverage.SourceFilesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_FILE_NAME", "COL____COVERED", "COL_HIT_COUNT"}}
	rd := FixtureTable{Name: lightcoverage.RoutinesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_SOURCE_FILE", "COL_MARK"}}
	ln := FixtureTable{Name: lightcoverage.Lines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_MARK", "COL_SOURCE_LINE"}}
	var want []CoverageLine
	id := int64(0)
	for i := 0; i < files; i++ {
		name := fmt.Sprintf(`C:\src\fïle_%02d.cpp`, i)
		covered := float64(i%4) * 0.25 // exact in 32 bits
		sf.Rows = append(sf.Rows, []any{int64(i), int64(-1), int64(i), name, covered, ddl.Dec(fmt.Sprintf("%d.5", i))})
		rd.Rows = append(rd.Rows, []any{int64(i), int64(-1), int64(i), name, ddl.Dec("1")})
		for j := 0; j < lines; j++ {
			mark := ddl.Dec(fmt.Sprint(j % 3))
			ln.Rows = append(ln.Rows, []any{id, int64(i), int64(j), mark, int64(10 + j)})
			want = append(want, CoverageLine{ID: id, File: name, Mark: mark, SourceLine: int64(10 + j), Covered: covered})
			id++
		}
	}
	f.Tables = []FixtureTable{sf, rd, ln}
	return f, want
}

// RunCoverageQuery runs dialecttest.ConsumerQuery on dsn and returns its rows,
// sorted by file name and ID (the query orders by file name only).
func RunCoverageQuery(t testing.TB, dsn string) []CoverageLine {
	t.Helper()
	return QueryCoverage(t, Open(t, dsn), dialecttest.ConsumerQuery)
}

// QueryCoverage runs a coverage query, whose columns are those of
// dialecttest.ConsumerQuery and which orders by file name, and returns its rows
// sorted by file name and ID.
func QueryCoverage(t testing.TB, db *sql.DB, query string, args ...any) []CoverageLine {
	t.Helper()
	rows, err := db.QueryContext(Ctx(t), query, args...)
	if err != nil {
		t.Fatalf("the coverage query fails: %v\n%s", err, query)
	}
	defer rows.Close()
	var out []CoverageLine
	for rows.Next() {
		var id, line int64
		var file string
		var mark, covered any
		if err := rows.Scan(&id, &file, &mark, &line, &covered); err != nil {
			t.Fatal(err)
		}
		m, err := store.Canonical(ddl.Decimal, mark)
		if err != nil {
			t.Fatal(err)
		}
		c, err := store.Canonical(ddl.Float, covered)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, CoverageLine{ID: id, File: file, Mark: m.(ddl.Dec), SourceLine: line, Covered: c.(float64)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(out); i++ {
		if out[i].File < out[i-1].File {
			t.Errorf("the query's rows are not ordered by COL_FILE_NAME: %q after %q", out[i].File, out[i-1].File)
		}
	}
	sortLines(out)
	return out
}

func sortLines(l []CoverageLine) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && (l[j].File < l[j-1].File || l[j].File == l[j-1].File && l[j].ID < l[j-1].ID); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// CompareStored reads result set inst from db and checks that it holds
// exactly the fixture: header, and every value of every row in canonical
// form (see resultset.Convert), columns the fixture does not give NULL.
func CompareStored(t testing.TB, db *store.DB, inst int64, want *Fixture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	got, err := db.Read(ctx, inst)
	if err != nil {
		t.Fatal(err)
	}
	if got.Profiler != want.Header.Profiler || got.Caption != want.Header.Caption {
		t.Errorf("INST_ID %d: header %s %q, want %s %q", inst, got.Profiler, got.Caption, want.Header.Profiler, want.Header.Caption)
	}
	if wc := want.Header.Counter; wc != nil {
		wf, err := resultset.Convert(ddl.Decimal, wc.Frequency)
		if err != nil {
			t.Fatalf("INST_ID %d: the fixture's counter frequency: %v", inst, err)
		}
		if got.Counter == nil || got.Counter.Name != wc.Name || got.Counter.Description != wc.Description || got.Counter.Frequency != wf {
			t.Errorf("INST_ID %d: counter %+v, want %+v", inst, got.Counter, wc)
		}
	} else if got.Counter != nil {
		t.Errorf("INST_ID %d: counter %+v, want none", inst, got.Counter)
	}
	def, _ := profilers.Lookup(want.Header.Profiler)
	byName := map[string]resultset.TableRows{}
	for _, tr := range got.Tables {
		byName[tr.Name] = tr
	}
	errs := 0
	for _, wt := range want.Tables {
		td, _ := def.Table(wt.Name)
		gt, ok := byName[wt.Name]
		if !ok {
			t.Errorf("INST_ID %d: table %s not read back", inst, wt.Name)
			continue
		}
		i := 0
		for row, err := range gt.Rows {
			if err != nil {
				t.Errorf("INST_ID %d: %v", inst, err)
				break
			}
			if i < len(wt.Rows) {
				for gi, gc := range gt.Columns {
					col, _ := td.Column(gc)
					var wv any
					if wi := indexOf(wt.Columns, gc); wi >= 0 {
						if wv, err = resultset.Convert(col.Type, wt.Rows[i][wi]); err != nil {
							t.Fatal(err)
						}
					}
					if !reflect.DeepEqual(wv, row[gi]) && errs < 20 {
						errs++
						t.Errorf("INST_ID %d %s row %d %s: got %s, want %s", inst, wt.Name, i, gc, Show(row[gi]), Show(wv))
					}
				}
			}
			i++
		}
		if i != len(wt.Rows) {
			t.Errorf("INST_ID %d %s: %d rows, want %d", inst, wt.Name, i, len(wt.Rows))
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Show formats a value for a message, cut to 100 characters.
func Show(v any) string {
	s := fmt.Sprintf("%T(%q)", v, fmt.Sprint(v))
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
