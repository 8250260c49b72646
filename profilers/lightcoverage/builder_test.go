package lightcoverage_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

func export(t *testing.T, b *lightcoverage.Builder) resultset.MemorySet {
	t.Helper()
	var mem resultset.Memory
	if _, err := b.Export(context.Background(), &mem, "cap"); err != nil {
		t.Fatal(err)
	}
	if len(mem.Sets) != 1 {
		t.Fatalf("%d result sets, want 1", len(mem.Sets))
	}
	return mem.Sets[0]
}

func want(t *testing.T, tb *resultset.MemoryTable, name string, row int, col string, v any) {
	t.Helper()
	if row >= len(tb.Rows) {
		t.Errorf("%s: row %d missing (%d rows)", name, row, len(tb.Rows))
		return
	}
	got := tb.Value(row, col)
	switch x := v.(type) {
	case int:
		v = int64(x)
	case string:
		if _, isDec := got.(ddl.Dec); isDec {
			v = ddl.Dec(x)
		}
	}
	if got != v {
		t.Errorf("%s row %d %s = %#v, want %#v", name, row, col, got, v)
	}
}

func TestBuilderTables(t *testing.T) {
	b := lightcoverage.NewBuilder()
	r0 := b.AddRoutine(lightcoverage.RoutineInfo{Name: "a", Class: "C", Namespace: "ns", Module: "m1",
		SourceFile: "f1.java", SourceLine: 10, CodeType: "Byte-code", Count: 4, LineLevel: true,
		Address: 1 << 63, Token: 7, UnitName: "u", SymbolMoniker: "ns.C.a()V", AnalysisResult: "No line info"})
	r0.AddLine(10, 4)
	r0.AddLine(11, 0)
	r0.AddLine(13, 2)
	r0.AddLine(11, 3) // same line again: one row, larger count
	r0.AddLine(10, 1) // smaller count does not lower it
	r1 := b.AddRoutine(lightcoverage.RoutineInfo{Name: "b", Module: "m2", SourceFile: "f1.java", SourceLine: 20})
	r1.AddLine(20, 0)
	r1.AddLine(21, 0)
	r2 := b.AddRoutine(lightcoverage.RoutineInfo{Name: "c", Module: "m1", SourceFile: "f2.java", Count: 1})
	r3 := b.AddRoutine(lightcoverage.RoutineInfo{Name: "d"}) // no module, no file
	r3.AddLine(1, 9)
	if r0.ID() != 0 || r1.ID() != 1 || r2.ID() != 2 || r3.ID() != 3 {
		t.Fatalf("routine IDs %d %d %d %d", r0.ID(), r1.ID(), r2.ID(), r3.ID())
	}
	set := export(t, b)
	if set.Header.Profiler != lightcoverage.Name || set.Header.Caption != "cap" {
		t.Errorf("header %+v", set.Header)
	}
	def := profilers.MustLookup(lightcoverage.Name)
	for _, td := range def.Tables {
		if _, ok := set.Tables[td.Name]; !ok {
			t.Errorf("table %s not written", td.Name)
		}
	}
	// Parents before children.
	pos := map[string]int{}
	for i, n := range set.Order {
		pos[n] = i
	}
	if pos[lightcoverage.Lines] < pos[lightcoverage.RoutinesData] || pos[lightcoverage.MetaLines] < pos[lightcoverage.MetaRoutines] {
		t.Errorf("order %v", set.Order)
	}

	mm := set.Tables[lightcoverage.MetaModules]
	md := set.Tables[lightcoverage.ModulesData]
	if len(mm.Rows) != 2 || len(md.Rows) != 2 {
		t.Fatalf("modules: %d meta, %d data rows", len(mm.Rows), len(md.Rows))
	}
	for i, n := range []string{"m1", "m2"} {
		for _, tb := range []*resultset.MemoryTable{mm, md} {
			want(t, tb, "modules", i, "COL_MODULE_NAME", n)
			want(t, tb, "modules", i, "ID", i)
			want(t, tb, "modules", i, "REC_ID", i)
			want(t, tb, "modules", i, "PARENT_ID", -1)
		}
		want(t, md, "MODULES_DATA", i, "COL_CALCULATED", -1)
		want(t, md, "MODULES_DATA", i, "COL_SKIP_COUNT", 0)
	}
	// m1: r0 (3 lines, 3 covered after merging) + r2 (no lines, ran) = 100%.
	want(t, md, "MODULES_DATA", 0, "COL____COVERED", 100.0)
	want(t, md, "MODULES_DATA", 0, "COL_MARK", "1")
	// m2: r1, 2 lines, none covered, never ran.
	want(t, md, "MODULES_DATA", 1, "COL____COVERED", 0.0)
	want(t, md, "MODULES_DATA", 1, "COL_MARK", "0")

	sd := set.Tables[lightcoverage.SourceFilesData]
	ms := set.Tables[lightcoverage.MetaSourceFiles]
	if len(sd.Rows) != 2 || len(ms.Rows) != 2 {
		t.Fatalf("files: %d meta, %d data rows", len(ms.Rows), len(sd.Rows))
	}
	// f1.java: r0 3/3 + r1 0/2 = 60%, 3 covered lines.
	want(t, sd, "SOURCE_FILES_DATA", 0, "COL_FILE_NAME", "f1.java")
	want(t, sd, "SOURCE_FILES_DATA", 0, "COL____COVERED", 60.0)
	want(t, sd, "SOURCE_FILES_DATA", 0, "COL_HIT_COUNT", "3")
	want(t, sd, "SOURCE_FILES_DATA", 0, "COL_CALCULATED", -1)
	want(t, sd, "SOURCE_FILES_DATA", 0, "COL_SKIP_COUNT", 0)
	// f2.java: a routine without lines: 0%.
	want(t, sd, "SOURCE_FILES_DATA", 1, "COL_FILE_NAME", "f2.java")
	want(t, sd, "SOURCE_FILES_DATA", 1, "COL____COVERED", 0.0)
	want(t, ms, "META_SOURCE_FILES", 1, "COL_FILE_NAME", "f2.java")
	want(t, ms, "META_SOURCE_FILES", 1, "ID", 1)

	mr := set.Tables[lightcoverage.MetaRoutines]
	rd := set.Tables[lightcoverage.RoutinesData]
	if len(mr.Rows) != 4 || len(rd.Rows) != 4 {
		t.Fatalf("routines: %d meta, %d data", len(mr.Rows), len(rd.Rows))
	}
	want(t, mr, "META_ROUTINES", 0, "COL_ADDRESS", "9223372036854775808")
	want(t, mr, "META_ROUTINES", 0, "COL_ANALYSIS_RESULT", "No line info")
	want(t, mr, "META_ROUTINES", 0, "COL_CLASS_NAME", "C")
	want(t, mr, "META_ROUTINES", 0, "COL_CODE_TYPE", "Byte-code")
	want(t, mr, "META_ROUTINES", 0, "COL_MODULE_NAME", "m1")
	want(t, mr, "META_ROUTINES", 0, "COL_NAMESPACE", "ns")
	want(t, mr, "META_ROUTINES", 0, "COL_PROFILELINES", -1)
	want(t, mr, "META_ROUTINES", 1, "COL_PROFILELINES", 0)
	want(t, mr, "META_ROUTINES", 0, "COL_ROUTINE_NAME", "a")
	want(t, mr, "META_ROUTINES", 0, "COL_SOURCE_FILE", "f1.java")
	want(t, mr, "META_ROUTINES", 0, "COL_SOURCE_LINE", 10)
	want(t, mr, "META_ROUTINES", 0, "COL_SYMBOL_MONIKER", "ns.C.a()V")
	want(t, mr, "META_ROUTINES", 0, "COL_TOKEN", 7)
	want(t, mr, "META_ROUTINES", 0, "COL_UNIT_NAME", "u")
	want(t, mr, "META_ROUTINES", 3, "COL_MODULE_NAME", "")
	for i := 0; i < 4; i++ {
		for _, tb := range []*resultset.MemoryTable{mr, rd} {
			want(t, tb, "routines", i, "ID", i)
			want(t, tb, "routines", i, "REC_ID", i)
			want(t, tb, "routines", i, "PARENT_ID", -1)
		}
		want(t, rd, "ROUTINES_DATA", i, "COL_SKIP_COUNT", 0)
	}
	want(t, rd, "ROUTINES_DATA", 0, "COL_MARK", "4")
	want(t, rd, "ROUTINES_DATA", 1, "COL_MARK", "0")
	want(t, rd, "ROUTINES_DATA", 0, "COL_SOURCE_LINE", "10")
	want(t, rd, "ROUTINES_DATA", 1, "COL_MODULE_NAME", "m2")
	want(t, rd, "ROUTINES_DATA", 1, "COL_SOURCE_FILE", "f1.java")

	li := set.Tables[lightcoverage.Lines]
	ml := set.Tables[lightcoverage.MetaLines]
	type wl struct{ src, mark, parent, rec int }
	wantLines := []wl{{10, 4, 0, 0}, {11, 3, 0, 1}, {13, 2, 0, 2}, {20, 0, 1, 0}, {21, 0, 1, 1}, {1, 9, 3, 0}}
	if len(li.Rows) != len(wantLines) || len(ml.Rows) != len(wantLines) {
		t.Fatalf("lines: %d, meta lines: %d, want %d", len(li.Rows), len(ml.Rows), len(wantLines))
	}
	for i, w := range wantLines {
		want(t, li, "LINES", i, "COL_SOURCE_LINE", w.src)
		want(t, li, "LINES", i, "COL_MARK", ddl.Dec(itoa(w.mark)))
		want(t, li, "LINES", i, "PARENT_ID", w.parent)
		want(t, li, "LINES", i, "REC_ID", w.rec)
		want(t, li, "LINES", i, "ID", i)
		want(t, ml, "META_LINES", i, "COL_SOURCE_LINE", w.src)
		want(t, ml, "META_LINES", i, "PARENT_ID", w.parent)
		want(t, ml, "META_LINES", i, "REC_ID", w.rec)
		want(t, ml, "META_LINES", i, "ID", i)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestBuilderEmpty: an empty builder still yields every table, all empty.
func TestBuilderEmpty(t *testing.T) {
	set := export(t, lightcoverage.NewBuilder())
	if len(set.Order) != 8 {
		t.Errorf("%d tables written, want 8", len(set.Order))
	}
	for n, tb := range set.Tables {
		if len(tb.Rows) != 0 {
			t.Errorf("%s: %d rows", n, len(tb.Rows))
		}
	}
}

// TestBuilderPercentFraction checks % Covered is covered ÷ lines × 100
// without rounding to integers.
func TestBuilderPercentFraction(t *testing.T) {
	b := lightcoverage.NewBuilder()
	r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "x", Module: "m", SourceFile: "f"})
	r.AddLine(1, 1)
	r.AddLine(2, 0)
	r.AddLine(3, 0)
	set := export(t, b)
	got := set.Tables[lightcoverage.ModulesData].Value(0, "COL____COVERED").(float64)
	if got < 33.333 || got > 33.334 {
		t.Errorf("%% covered = %v, want 33.33…", got)
	}
	// Ran because a line ran, although Count is 0.
	want(t, set.Tables[lightcoverage.ModulesData], "MODULES_DATA", 0, "COL_MARK", "1")
}

// TestResultSetRepeatable: the iterators can run twice with the same rows.
func TestResultSetRepeatable(t *testing.T) {
	b := lightcoverage.NewBuilder()
	b.AddRoutine(lightcoverage.RoutineInfo{Name: "x", Module: "m"}).AddLine(5, 1)
	rs := b.ResultSet("c")
	for _, tr := range rs.Tables {
		n1, n2 := 0, 0
		for _, err := range tr.Rows {
			if err != nil {
				t.Fatal(err)
			}
			n1++
		}
		for range tr.Rows {
			n2++
		}
		if n1 != n2 {
			t.Errorf("%s: %d then %d rows", tr.Name, n1, n2)
		}
	}
}
