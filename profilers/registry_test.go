package profilers_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// tablesFunc adapts a function to profilers.Profiler.
type tablesFunc func() []ddl.Table

func (f tablesFunc) Tables() []ddl.Table { return f() }

// fixed is a profiler whose Tables returns the same slice every time, so a
// test can change it after registering.
type fixed struct{ tables []ddl.Table }

func (p *fixed) Tables() []ddl.Table { return p.tables }

var nameSeq atomic.Int64

// uniqueName returns a profiler name not used before in this process, so the
// tests can run with -count=N (registrations are permanent).
func uniqueName(base string) string {
	return fmt.Sprintf("%s-%d", base, nameSeq.Add(1))
}

// profTable is a valid profiler table with one extra column.
func profTable(name, parent string, extra ...ddl.Column) ddl.Table {
	cols := append([]ddl.Column{}, extra...)
	cols = append(cols,
		profilers.Col(ddl.ID, ddl.Integer), profilers.Col(ddl.InstID, ddl.Integer),
		profilers.Col(ddl.ParentID, ddl.Integer), profilers.Col(ddl.RecID, ddl.Integer))
	return profilers.NewTable(name, parent, cols...)
}

// mustPanic runs f and returns the panic message; it fails if f does not panic.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic")
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

func TestRegisterPanicsOnNil(t *testing.T) {
	name := uniqueName("nil")
	msg := mustPanic(t, func() { profilers.Register(name, nil) })
	if !strings.Contains(msg, "nil") {
		t.Errorf("panic %q does not say the profiler is nil", msg)
	}
	if _, err := profilers.Lookup(name); err == nil {
		t.Error("a nil profiler was registered")
	}
}

func TestRegisterPanicsOnDuplicateName(t *testing.T) {
	name := uniqueName("dup")
	p := tablesFunc(func() []ddl.Table { return []ddl.Table{profTable("DUP_T", "")} })
	profilers.Register(name, p)
	msg := mustPanic(t, func() { profilers.Register(name, p) })
	if !strings.Contains(msg, "twice") || !strings.Contains(msg, name) {
		t.Errorf("panic %q does not name the profiler registered twice", msg)
	}
	// The shipped plugins cannot be registered again either.
	msg = mustPanic(t, func() { profilers.Register("resource", p) })
	if !strings.Contains(msg, "resource") {
		t.Errorf("panic %q does not name resource", msg)
	}
}

func TestRegisterPanicsOnInvalidDefinition(t *testing.T) {
	for _, tc := range []struct {
		what   string
		name   string // "" for a unique valid name
		tables []ddl.Table
		want   []string
	}{
		{"bad profiler name", "Bad Name", []ddl.Table{profTable("T_A", "")}, []string{"Bad Name"}},
		{"leading hyphen", "-allocation", []ddl.Table{profTable("T_A", "")}, []string{"profiler name"}},
		{"no tables", "", nil, []string{"no tables"}},
		{"unknown parent", "", []ddl.Table{profTable("T_CHILD", "T_NOWHERE")}, []string{"T_CHILD", "T_NOWHERE"}},
		{"duplicate table", "", []ddl.Table{profTable("T_A", ""), profTable("T_A", "")}, []string{"duplicate table T_A"}},
		{"shared table", "", []ddl.Table{profTable("RELATIONS", "")}, []string{"RELATIONS", "shared"}},
		{"missing REC_ID", "", []ddl.Table{profilers.NewTable("T_A", "",
			profilers.Col("ID", ddl.Integer), profilers.Col("INST_ID", ddl.Integer), profilers.Col("PARENT_ID", ddl.Integer))},
			[]string{"T_A", "REC_ID"}},
		{"invalid type", "", []ddl.Table{profTable("T_A", "", profilers.Col("COL_X", 0))}, []string{"T_A", "COL_X", "type"}},
		{"cycle", "", []ddl.Table{profTable("T_A", "T_B"), profTable("T_B", "T_A")}, []string{"cycle", "T_A", "T_B"}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			name := tc.name
			if name == "" {
				name = uniqueName("invalid")
			}
			msg := mustPanic(t, func() { profilers.Register(name, tablesFunc(func() []ddl.Table { return tc.tables })) })
			if !strings.HasPrefix(msg, "profilers: Register") {
				t.Errorf("panic %q does not say where it comes from", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("panic %q does not contain %q", msg, w)
				}
			}
			if slices.Contains(profilers.Names(), name) {
				t.Errorf("invalid profiler %s was registered", name)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := profilers.Lookup("no-such-profiler")
	if err == nil {
		t.Fatal("Lookup of an unknown profiler succeeded")
	}
	msg := err.Error()
	for _, w := range []string{`"no-such-profiler"`, "forgotten import?", "light-coverage", "resource", "function-trace", "reference-count"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}

func TestNamesSorted(t *testing.T) {
	names := profilers.Names()
	if !sort.StringsAreSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	for _, w := range []string{"function-trace", "light-coverage", "reference-count", "resource"} {
		if !slices.Contains(names, w) {
			t.Errorf("Names() = %v, lacks %s", names, w)
		}
	}
	var all []string
	for _, d := range profilers.All() {
		all = append(all, d.Name)
	}
	if !slices.Equal(all, profilers.Names()) {
		t.Errorf("All() names %v, Names() %v", all, profilers.Names())
	}
}

func TestLookupReturnsCopies(t *testing.T) {
	d1, err := profilers.Lookup("light-coverage")
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprint(d1.Tables)
	d1.Tables[0].Name = "CHANGED"
	d1.Tables[0].Parent = "CHANGED"
	d1.Tables[0].Columns[0].Name = "CHANGED"
	d1.Tables[0].Columns[0].Type = ddl.Float
	d1.Tables = d1.Tables[:1]
	d2, err := profilers.Lookup("light-coverage")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(d2.Tables); got != before {
		t.Errorf("changing a Lookup result changed the registry:\nbefore %s\nafter  %s", before, got)
	}
	// All and ForTable hand out copies too.
	all := profilers.All()
	all[0].Tables[0].Columns[0].Name = "CHANGED"
	if d := profilers.MustLookup(all[0].Name); d.Tables[0].Columns[0].Name == "CHANGED" {
		t.Error("changing an All result changed the registry")
	}
}

func TestRegisterCopiesTheDefinition(t *testing.T) {
	name := uniqueName("copy")
	p := &fixed{tables: []ddl.Table{
		profTable("COPY_CHILD", "COPY_TOP", profilers.Col("COL_A", ddl.String)),
		profTable("COPY_TOP", ""),
	}}
	profilers.Register(name, p)
	p.tables[0].Columns[0].Name = "CHANGED"
	p.tables[1].Name = "CHANGED"
	d, err := profilers.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	// Parents first: COPY_TOP is listed second but comes first.
	if got := d.TableNames(); !slices.Equal(got, []string{"COPY_TOP", "COPY_CHILD"}) {
		t.Errorf("TableNames() = %v, want [COPY_TOP COPY_CHILD]", got)
	}
	child, ok := d.Table("copy_child")
	if !ok {
		t.Fatal("Table is not case-insensitive")
	}
	if child.Columns[0].Name != "COL_A" || child.Parent != "COPY_TOP" {
		t.Errorf("changing the plugin's slice after Register changed the registry: %+v", child)
	}
	if c, ok := child.Column("INST_ID"); !ok || !c.NotNull {
		t.Errorf("INST_ID made by Col is not NOT NULL: %+v", c)
	}
	if c, _ := child.Column("COL_A"); c.NotNull {
		t.Error("Col made a non-INST_ID column NOT NULL")
	}
}

func TestRegisteredTablesParentsFirst(t *testing.T) {
	for _, d := range profilers.All() {
		for i, tb := range d.Tables {
			if tb.Parent == "" {
				continue
			}
			j := slices.IndexFunc(d.Tables, func(p ddl.Table) bool { return p.Name == tb.Parent })
			if j < 0 || j > i {
				t.Errorf("profiler %s: table %s comes before its parent %s", d.Name, tb.Name, tb.Parent)
			}
		}
	}
}

func TestForTable(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{"LIGHT_COVERAGE_PROFILER_LINES", "light-coverage"},
		{"light_coverage_profiler_source_files_data", "light-coverage"},
		{"Resource_Profiler_Errors", "resource"},
		{"FUNCTION_TRACE_PROFILER_METAPARAMETERS", "function-trace"},
		{"REFERENCE_COUNT_PROFILER_REFCOUNT_TREE", "reference-count"},
	} {
		d, ok := profilers.ForTable(tc.table)
		if !ok || d.Name != tc.want {
			t.Errorf("ForTable(%q) = %q, %v; want %q", tc.table, d.Name, ok, tc.want)
		}
		if _, ok := d.Table(tc.table); !ok {
			t.Errorf("ForTable(%q) returned %s, which lacks the table", tc.table, d.Name)
		}
	}
	for _, table := range []string{"INSTANCES", "RELATIONS", "NO_SUCH_TABLE", ""} {
		if d, ok := profilers.ForTable(table); ok {
			t.Errorf("ForTable(%q) = %s, want none", table, d.Name)
		}
	}
}

func TestValidateProfilerName(t *testing.T) {
	for _, ok := range []string{"a", "light-coverage", "x2", "a-b-c"} {
		if err := profilers.ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Light", "2x", "-a", "a_b", "a b", "é"} {
		if err := profilers.ValidateName(bad); err == nil {
			t.Errorf("ValidateName(%q) accepted", bad)
		}
	}
}

// TestIndexNamesUnique: index names are per schema in PostgreSQL, so the
// indexes of every table of the four shipped profilers, shared tables and
// PROFDB_RESULT_SETS included, must have distinct names, each short enough
// for every dialect.
func TestIndexNamesUnique(t *testing.T) {
	seen := map[string]string{}
	var defs []profilers.Definition
	for _, name := range []string{"light-coverage", "resource", "function-trace", "reference-count"} {
		d, err := profilers.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	tables, err := profilers.Tables(defs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		for _, ix := range tb.Indexes() {
			if len(ix.Name) > ddl.MaxIndexName {
				t.Errorf("table %s: index %s is longer than %d", tb.Name, ix.Name, ddl.MaxIndexName)
			}
			if other, dup := seen[strings.ToUpper(ix.Name)]; dup {
				t.Errorf("index %s of table %s is also an index of %s", ix.Name, tb.Name, other)
			}
			seen[strings.ToUpper(ix.Name)] = tb.Name
		}
	}
}

// TestTables: the shared tables and PROFDB_RESULT_SETS come first, then each
// definition's tables in its order; a table two definitions define alike
// (names compared case-insensitively) is listed once, and one they define
// differently is an error naming it and both owners.
func TestTables(t *testing.T) {
	names := func(tables []ddl.Table) string {
		var n []string
		for _, tb := range tables {
			n = append(n, tb.Name)
		}
		return strings.Join(n, ",")
	}
	top := profilers.NewTable("X_TOP", "", profilers.Col(ddl.InstID, ddl.Integer), profilers.Col("COL_A", ddl.String))
	child := profilers.NewTable("X_CHILD", "X_TOP", profilers.Col(ddl.InstID, ddl.Integer))
	other := profilers.NewTable("Y_ONLY", "", profilers.Col(ddl.InstID, ddl.Integer))
	sameTop := top.Clone()
	a := profilers.Definition{Name: "a", Tables: []ddl.Table{top, child}}
	b := profilers.Definition{Name: "b", Tables: []ddl.Table{other, sameTop}}

	got, err := profilers.Tables()
	if err != nil || names(got) != "INSTANCES,RELATIONS,PROFDB_RESULT_SETS,PROFDB_LABELS,PROFDB_MERGE_SOURCES" {
		t.Errorf("Tables() = %s, %v", names(got), err)
	}
	got, err = profilers.Tables(a, b)
	if want := "INSTANCES,RELATIONS,PROFDB_RESULT_SETS,PROFDB_LABELS,PROFDB_MERGE_SOURCES,X_TOP,X_CHILD,Y_ONLY"; err != nil || names(got) != want {
		t.Errorf("Tables(a, b) = %s, %v; want %s", names(got), err, want)
	}
	if got, err = profilers.Tables(b, a); err != nil || names(got) != "INSTANCES,RELATIONS,PROFDB_RESULT_SETS,PROFDB_LABELS,PROFDB_MERGE_SOURCES,Y_ONLY,X_TOP,X_CHILD" {
		t.Errorf("Tables(b, a) = %s, %v", names(got), err)
	}

	differs := top.Clone()
	differs.Columns = append(differs.Columns, profilers.Col("COL_B", ddl.Integer))
	c := profilers.Definition{Name: "c", Tables: []ddl.Table{differs}}
	if got, err := profilers.Tables(a, c); err == nil || !strings.Contains(err.Error(), "X_TOP") ||
		!strings.Contains(err.Error(), " a ") || !strings.HasSuffix(err.Error(), " c") {
		t.Errorf("Tables(a, c) = %s, %v; want an error naming X_TOP, a and c", names(got), err)
	}
	// The same table under a name that differs in case only is another
	// definition of it.
	lower := top.Clone()
	lower.Name = "x_top"
	if got, err := profilers.Tables(a, profilers.Definition{Name: "e", Tables: []ddl.Table{lower}}); err == nil || !strings.Contains(err.Error(), "x_top") {
		t.Errorf("X_TOP and x_top: %s, %v; want an error", names(got), err)
	}
	shadow := profilers.Definition{Name: "d", Tables: []ddl.Table{profilers.NewTable("profdb_result_sets", "", profilers.Col(ddl.InstID, ddl.Integer))}}
	if _, err := profilers.Tables(shadow); err == nil || !strings.Contains(err.Error(), "profdb and d") {
		t.Errorf("a profiler's own PROFDB_RESULT_SETS: %v", err)
	}

	all, err := profilers.Tables(profilers.All()...)
	if err != nil {
		t.Fatal(err)
	}
	n := len(profilers.Shared()) + len(profilers.Own())
	for _, d := range profilers.All() {
		n += len(d.Tables)
	}
	if len(all) != n {
		t.Errorf("Tables(All()...) has %d tables, want %d", len(all), n)
	}
}
