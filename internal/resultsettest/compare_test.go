package resultsettest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// stored is a Reader that gives back a fixture as a database would (every
// value in canonical form), after change has altered it.
type stored struct {
	f      *Fixture
	change func(rs *resultset.ResultSet, tables [][][]any)
}

func (s stored) Read(_ context.Context, inst int64) (*resultset.ResultSet, error) {
	def, err := profilers.Lookup(s.f.Header.Profiler)
	if err != nil {
		return nil, err
	}
	h := s.f.Header
	c := *h.Counter
	if c.Frequency, err = resultset.Convert(ddl.Decimal, c.Frequency); err != nil {
		return nil, err
	}
	h.Counter = &c
	rs := &resultset.ResultSet{Header: h}
	tables := make([][][]any, len(s.f.Tables))
	for ti, ft := range s.f.Tables {
		td, ok := def.Table(ft.Name)
		if !ok {
			return nil, fmt.Errorf("no table %s", ft.Name)
		}
		for _, r := range ft.Rows {
			row := make([]any, len(r))
			for ci, v := range r {
				col, ok := td.Column(ft.Columns[ci])
				if !ok {
					return nil, fmt.Errorf("%s: no column %s", ft.Name, ft.Columns[ci])
				}
				if row[ci], err = resultset.Convert(col.Type, v); err != nil {
					return nil, fmt.Errorf("%s %s: %w", ft.Name, col.Name, err)
				}
			}
			tables[ti] = append(tables[ti], row)
		}
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: ft.Name, Columns: slices.Clone(ft.Columns)})
	}
	if s.change != nil {
		s.change(rs, tables)
	}
	for ti := range rs.Tables {
		rows := tables[ti]
		rs.Tables[ti].Rows = resultset.IndexedRows(len(rows), func(i int) []any { return rows[i] })
	}
	return rs, nil
}

// recorder is a testing.TB that keeps the failures it is given.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// TestCompareStored: CompareStored passes a set read back exactly and
// fails every way one can differ.
func TestCompareStored(t *testing.T) {
	f := Full(t, functiontrace.Name, "c", "sqlite", 3, false)
	cases := []struct {
		name   string
		change func(rs *resultset.ResultSet, tables [][][]any)
		want   string // in a failure; "" for none
	}{
		{"exact", nil, ""},
		{"caption", func(rs *resultset.ResultSet, _ [][][]any) { rs.Caption = "d" }, "header"},
		{"counter", func(rs *resultset.ResultSet, _ [][][]any) { rs.Counter.Name = "Ticks" }, "counter"},
		{"no counter", func(rs *resultset.ResultSet, _ [][][]any) { rs.Counter = nil }, "counter"},
		{"a value", func(_ *resultset.ResultSet, tables [][][]any) { tables[0][2][1] = int64(-7) }, "row 2"},
		{"a NULL", func(_ *resultset.ResultSet, tables [][][]any) { tables[0][1][1] = nil }, "row 1"},
		{"a row less", func(_ *resultset.ResultSet, tables [][][]any) { tables[1] = tables[1][:len(tables[1])-1] }, "rows, want"},
		{"a row more", func(_ *resultset.ResultSet, tables [][][]any) { tables[1] = append(tables[1], tables[1][0]) }, "rows, want"},
		{"a table less", func(rs *resultset.ResultSet, _ [][][]any) { rs.Tables[0].Name = "NONE" }, "not read back"},
		{"a column less", func(rs *resultset.ResultSet, tables [][][]any) {
			rs.Tables[0].Columns = rs.Tables[0].Columns[1:]
			for i, r := range tables[0] {
				tables[0][i] = r[1:]
			}
		}, "not read back"},
		{"a column the fixture leaves NULL", func(rs *resultset.ResultSet, tables [][][]any) {
			rs.Tables[0].Columns = append(rs.Tables[0].Columns, ddl.InstID) // not given
			for i, r := range tables[0] {
				tables[0][i] = append(r, int64(1))
			}
		}, "want <nil>(\"<nil>\")"},
	}
	for _, tc := range cases {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			CompareStored(r, stored{f: f, change: tc.change}, 1, f)
		}()
		<-done
		switch {
		case tc.want == "" && len(r.failures) > 0:
			t.Errorf("%s: failures %q, want none", tc.name, r.failures)
		case tc.want != "" && !slices.ContainsFunc(r.failures, func(s string) bool { return strings.Contains(s, tc.want) }):
			t.Errorf("%s: failures %q, want one saying %q", tc.name, r.failures, tc.want)
		}
	}
}
