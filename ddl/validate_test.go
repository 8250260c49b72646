package ddl_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
)

// col returns a column; INST_ID is NOT NULL, as every definition makes it.
func col(name string, t ddl.Type) ddl.Column {
	return ddl.Column{Name: name, Type: t, NotNull: name == ddl.InstID}
}

// tbl returns a valid profiler table with the given extra columns first.
func tbl(name, parent string, extra ...ddl.Column) ddl.Table {
	cols := append(append([]ddl.Column{}, extra...),
		col(ddl.ID, ddl.Integer), col(ddl.InstID, ddl.Integer), col(ddl.ParentID, ddl.Integer), col(ddl.RecID, ddl.Integer))
	return ddl.Table{Name: name, Parent: parent, Columns: cols}
}

// without returns t without the named column.
func without(t ddl.Table, name string) ddl.Table {
	t = t.Clone()
	t.Columns = slices.DeleteFunc(t.Columns, func(c ddl.Column) bool { return c.Name == name })
	return t
}

func TestValidateProfilerAcceptsValid(t *testing.T) {
	tables := []ddl.Table{
		tbl("P_LINES", "P_ROUTINES", col("COL_MARK", ddl.Decimal)),
		tbl("P_ROUTINES", "", col("COL_NAME", ddl.String), col("COL____COVERED", ddl.Float)),
		tbl("P_ROUTINE_ARGS", "P_ROUTINES"),
	}
	if err := ddl.ValidateProfiler("p", tables); err != nil {
		t.Fatal(err)
	}
}

func TestValidateProfilerErrors(t *testing.T) {
	ok := tbl("P_OK", "")
	instNullable := tbl("P_A", "")
	instNullable.Columns[instNullable.ColumnIndex(ddl.InstID)].NotNull = false
	instString := tbl("P_A", "")
	instString.Columns[instString.ColumnIndex(ddl.InstID)].Type = ddl.String
	keyed := tbl("P_A", "")
	keyed.Key = ddl.ID
	topNoParentIndex := tbl("P_A", "")
	topNoParentIndex.NoParentIndex = true
	for _, tc := range []struct {
		what   string
		tables []ddl.Table
		want   []string // each must appear in the message
	}{
		{"no tables", nil, []string{"profiler p", "no tables"}},
		{"unknown parent", []ddl.Table{ok, tbl("P_CHILD", "P_MISSING")}, []string{"profiler p", "table P_CHILD", "unknown parent P_MISSING"}},
		{"duplicate table", []ddl.Table{tbl("P_A", ""), ok, tbl("P_A", "")}, []string{"duplicate table P_A"}},
		{"top-level NoParentIndex", []ddl.Table{topNoParentIndex}, []string{"table P_A", "NoParentIndex on a top-level table"}},
		// Table names must be upper case, so a lower-case twin is refused
		// too (as a bad name, before the case-insensitive duplicate check).
		{"duplicate table other case", []ddl.Table{tbl("P_A", ""), tbl("p_a", "")}, []string{"p_a"}},
		{"duplicate column", []ddl.Table{tbl("P_A", "", col("COL_X", ddl.String), col("COL_X", ddl.Integer))}, []string{"table P_A", "duplicate column COL_X"}},
		{"missing INST_ID", []ddl.Table{without(tbl("P_A", ""), ddl.InstID)}, []string{"table P_A", "missing column INST_ID"}},
		{"missing ID", []ddl.Table{without(tbl("P_A", ""), ddl.ID)}, []string{"table P_A", "missing column ID"}},
		{"missing PARENT_ID", []ddl.Table{without(tbl("P_A", ""), ddl.ParentID)}, []string{"table P_A", "missing column PARENT_ID"}},
		{"missing REC_ID", []ddl.Table{without(tbl("P_A", ""), ddl.RecID)}, []string{"table P_A", "missing column REC_ID"}},
		{"nullable INST_ID", []ddl.Table{instNullable}, []string{"table P_A", "INST_ID", "NOT NULL"}},
		{"String INST_ID", []ddl.Table{instString}, []string{"table P_A", "INST_ID", "Integer"}},
		{"profiler table with a key", []ddl.Table{keyed}, []string{"table P_A", "no key"}},
		{"no columns", []ddl.Table{{Name: "P_EMPTY"}}, []string{"table P_EMPTY", "no columns"}},
		{"shared INSTANCES", []ddl.Table{ok, tbl("INSTANCES", "")}, []string{"INSTANCES", "shared"}},
		{"shared RELATIONS", []ddl.Table{tbl("RELATIONS", "")}, []string{"RELATIONS", "shared"}},
		{"self cycle", []ddl.Table{tbl("P_A", "P_A")}, []string{"cycle", "P_A -> P_A"}},
		{"cycle", []ddl.Table{ok, tbl("P_A", "P_C"), tbl("P_B", "P_A"), tbl("P_C", "P_B")}, []string{"profiler p", "cycle", "P_A -> P_C -> P_B -> P_A"}},
		{"invalid type", []ddl.Table{tbl("P_A", "", col("COL_X", 0))}, []string{"table P_A", "column COL_X", "invalid type"}},
		{"out-of-range type", []ddl.Table{tbl("P_A", "", col("COL_X", ddl.Float+1))}, []string{"table P_A", "column COL_X", "invalid type"}},
		{"lower-case table name", []ddl.Table{tbl("p_a", "")}, []string{`"p_a"`}},
		{"table name starting with a digit", []ddl.Table{tbl("1_A", "")}, []string{`"1_A"`}},
		{"table name starting with underscore", []ddl.Table{tbl("_A", "")}, []string{`"_A"`}},
		{"empty table name", []ddl.Table{tbl("", "")}, []string{"empty name"}},
		{"table name too long", []ddl.Table{tbl("T"+strings.Repeat("X", 128), "")}, []string{"longer than 128"}},
		{"bad column name", []ddl.Table{tbl("P_A", "", col("COL-X", ddl.String))}, []string{"table P_A", `"COL-X"`}},
		{"lower-case column name", []ddl.Table{tbl("P_A", "", col("col_x", ddl.String))}, []string{"table P_A", `"col_x"`}},
		{"empty column name", []ddl.Table{tbl("P_A", "", col("", ddl.String))}, []string{"table P_A", "column 1", "empty name"}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			err := ddl.ValidateProfiler("p", tc.tables)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidateTableShared(t *testing.T) {
	shared := ddl.Table{Name: "INSTANCES", Key: ddl.InstID, Columns: []ddl.Column{col("CAPTION", ddl.String), col(ddl.InstID, ddl.Integer)}}
	if err := ddl.ValidateTable(shared, false); err != nil {
		t.Errorf("shared table refused: %v", err)
	}
	// A shared table is not a profiler table: it has no ID/PARENT_ID/REC_ID.
	if err := ddl.ValidateTable(shared, true); err == nil || !strings.Contains(err.Error(), "missing column ID") {
		t.Errorf("as a profiler table: %v, want missing column ID", err)
	}
	bad := shared.Clone()
	bad.Key = "NOPE"
	if err := ddl.ValidateTable(bad, false); err == nil || !strings.Contains(err.Error(), "key column NOPE") {
		t.Errorf("missing key column: %v", err)
	}
	recIndexed := shared.Clone()
	recIndexed.RecIDIndex = true
	if err := ddl.ValidateTable(recIndexed, false); err == nil || !strings.Contains(err.Error(), "RecIDIndex on a table without REC_ID") {
		t.Errorf("REC_ID index without REC_ID: %v", err)
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"A", "COL____COVERED", "COL__", "COL_GET_", "X1", strings.Repeat("A", 128)} {
		if err := ddl.ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a", "Col", "1A", "_A", "A-B", "A B", "A.B", "É", strings.Repeat("A", 129)} {
		if err := ddl.ValidateName(bad); err == nil {
			t.Errorf("ValidateName(%q) accepted", bad)
		}
	}
}

func names(tables []ddl.Table) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.Name
	}
	return out
}

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		what string
		in   []ddl.Table
		want []string
	}{
		{"already ordered", []ddl.Table{tbl("A", ""), tbl("B", "A"), tbl("C", "")}, []string{"A", "B", "C"}},
		{"no parents keeps declared order", []ddl.Table{tbl("Z", ""), tbl("A", ""), tbl("M", "")}, []string{"Z", "A", "M"}},
		{"child before parent", []ddl.Table{tbl("B", "A"), tbl("A", "")}, []string{"A", "B"}},
		{"chain reversed", []ddl.Table{tbl("C", "B"), tbl("B", "A"), tbl("A", "")}, []string{"A", "B", "C"}},
		{"unrelated tables keep their places", []ddl.Table{tbl("X", ""), tbl("C", "B"), tbl("Y", ""), tbl("B", "A"), tbl("A", ""), tbl("Z", "")},
			[]string{"X", "A", "B", "C", "Y", "Z"}},
		{"siblings keep their order", []ddl.Table{tbl("S2", "P"), tbl("S1", "P"), tbl("P", "")}, []string{"P", "S2", "S1"}},
		{"parent outside the set is ignored", []ddl.Table{tbl("B", "OUTSIDE"), tbl("A", "")}, []string{"B", "A"}},
		{"parent matched case-insensitively", []ddl.Table{tbl("B", "a"), tbl("A", "")}, []string{"A", "B"}},
		{"empty", nil, []string{}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got, err := ddl.Order(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tc.want) {
				t.Errorf("Order = %v, want %v", names(got), tc.want)
			}
			if !slices.Equal(names(tc.in), names(in)) {
				t.Errorf("Order changed its input to %v", names(tc.in))
			}
		})
	}
	if _, err := ddl.Order([]ddl.Table{tbl("A", "B"), tbl("B", "A")}); err == nil || !strings.Contains(err.Error(), "A -> B -> A") {
		t.Errorf("cycle: %v, want an error naming A -> B -> A", err)
	}
}
