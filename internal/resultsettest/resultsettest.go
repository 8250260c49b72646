package resultsettest

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Fixture is a result set whose rows are kept, so that it can be exported
// any number of times and compared with what a database returns.
type Fixture struct {
	Header resultset.Header
	Tables []Table
}

// Table is one table of a Fixture: its columns (INST_ID never among them)
// and rows of values in that order.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// ResultSet returns the fixture as a resultset.ResultSet, whose tables
// yield the rows the fixture holds when ResultSet is called.
func (f *Fixture) ResultSet() *resultset.ResultSet {
	rs := &resultset.ResultSet{Header: f.Header}
	for _, t := range f.Tables {
		rows := t.Rows
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: t.Name, Columns: t.Columns,
			Rows: resultset.IndexedRows(len(rows), func(i int) []any { return rows[i] })})
	}
	return rs
}

// Table returns the fixture's table name, or nil.
func (f *Fixture) Table(name string) *Table {
	for i := range f.Tables {
		if f.Tables[i].Name == name {
			return &f.Tables[i]
		}
	}
	return nil
}

// Set sets the value of column col in row r; it panics when the table has
// no column col.
func (t *Table) Set(r int, col string, v any) {
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

// bigText is over 1 MiB of non-ASCII text.
var bigText = strings.Repeat("ж€😀a", 1<<20/10)

// NUL is a text with U+0000 inside, which some databases cannot hold
// (PostgreSQL's text); Full uses it only when asked.
const NUL = "nul\x00inside"

// Strings are texts that break naive quoting or encoding in some client:
// quotes, backslashes (a trailing one too), line breaks, lines that
// clients take for commands (sqlite3 dot commands, psql and mysql
// backslash commands, sqlcmd's GO, :setvar and $(var)), comment and
// statement delimiters, and non-ASCII text.
var Strings = []string{
	"",
	`it's a "quote" ''`,
	`C:\src\new\table\`,
	"\\",
	"line1\nline2\r\nline3\ttab\rcr",
	"\nGO\ngo\n",
	"$(PATH) $(x",
	"-- not a comment; /* nor this */ ;",
	".quit\n.bail off\n",
	"\\q\n\\! echo no\n:setvar x 1\n",
	"delimiter //\nsource /etc/passwd\n\\G",
	"E'\\x41' \\x41 \\n",
	"'; DROP TABLE INSTANCES; --",
	"naïve Ünïcödé 中文 ж€😀 \u00a0\u2028\u2029",
	"line1\nline2\r\nline3\ttab",
	"naïve Ünïcödé 中文 ж€😀 \u00a0\u2028",
	"$(PATH) \nGO\n",
}

// Ints are the edges of a 64-bit integer, and values just outside 32 bits.
var Ints = []int64{1, -1, math.MaxInt64, math.MinInt64, 42, 2147483648, -2147483649, 0}

// Decimals are decimals at the edges of DECIMAL(28,8) and of 64-bit
// integers: the largest uint64, 20 integer digits with 8 decimals, the
// smallest fraction, just outside int64.
var Decimals = []ddl.Dec{"18446744073709551615", "0.12345678", "-123.45", "99999999999999999999.99999999",
	"-0.00000001", "0", "9223372036854775808", "-99999999999999999999.99999999", "0.5", "3", "-9223372036854775809"}

// KeepsSubnormals reports whether the dialect is given subnormal floats
// (dialects.Facts.NoSubnormals). It panics for a dialect that is not
// registered.
func KeepsSubnormals(dialect string) bool {
	d, err := dialects.Lookup(dialect)
	if err != nil {
		panic("resultsettest: " + err.Error())
	}
	return !d.Facts().NoSubnormals
}

// minNormal is the smallest positive normal double.
const minNormal = 2.2250738585072014e-308

// Floats are doubles at the edges of the range, subnormals where the
// dialect keeps them (KeepsSubnormals), and two samples of random bit
// patterns (SQLite's literal parser is not exact for all of them): 107
// values drawn with seed 7 and 49 with seed 11.
func Floats(dialect string) []float64 {
	f := []float64{0.1, 1.0 / 3, math.MaxFloat64, -math.MaxFloat64, minNormal, 1e-300, -2.5, 0,
		123456789.125, 9007199254740993, 1e22, -1.6903227171100861e-307, 2.607178989110452e-299}
	subnormal := KeepsSubnormals(dialect)
	if subnormal {
		f = append(f, math.SmallestNonzeroFloat64, 4.9e-322)
	}
	for _, s := range []struct {
		seed int64
		n    int
	}{{7, 107}, {11, 49}} {
		r := rand.New(rand.NewSource(s.seed))
		for drawn := 0; drawn < s.n; {
			v := math.Float64frombits(r.Uint64())
			if math.IsNaN(v) || math.IsInf(v, 0) || !subnormal && v != 0 && math.Abs(v) < minNormal {
				continue
			}
			f = append(f, v)
			drawn++
		}
	}
	return f
}

// Full builds a result set of profiler with every table and every column:
// rows rows per table (row 0 NULL but for ID, PARENT_ID and REC_ID), IDs
// counting from 0, each child's PARENT_ID naming one of the first rows
// rows of its parent, and the other columns cycling through the edge
// values of their type (Strings, Ints, Decimals). The first String column
// of the first table holds bigText in row 1; withNUL adds NUL to the
// strings. A table with a Float column has as many more rows as it takes
// for rows 1 on to hold every value of Floats(dialect), in order, in each
// Float column. The counter's description holds a quote, a backslash and
// non-ASCII text.
func Full(t testing.TB, profiler, caption, dialect string, rows int, withNUL bool) *Fixture {
	t.Helper()
	def, err := profilers.Lookup(profiler)
	if err != nil {
		t.Fatal(err)
	}
	strs := Strings
	if withNUL {
		strs = append(strs[:len(strs):len(strs)], NUL)
	}
	floats := Floats(dialect)
	f := &Fixture{Header: resultset.Header{Profiler: profiler, Caption: caption,
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed 'time' \\ ✓", Frequency: ddl.Dec("18446744073709551615")}}}
	for ti, tb := range def.Tables {
		ft := Table{Name: tb.Name}
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
					row[ci], bigDone = bigText, true
				case col.Type == ddl.String:
					row[ci] = strs[k%len(strs)]
				case col.Type == ddl.Integer:
					row[ci] = Ints[k%len(Ints)]
				case col.Type == ddl.Decimal:
					row[ci] = Decimals[k%len(Decimals)]
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
