package ddl_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
)

func TestTableColumnLookup(t *testing.T) {
	tb := tbl("P_A", "", col("COL_X", ddl.String))
	if c, ok := tb.Column("col_x"); !ok || c.Name != "COL_X" || c.Type != ddl.String {
		t.Errorf("Column(col_x) = %+v, %v", c, ok)
	}
	if _, ok := tb.Column("COL_NOPE"); ok {
		t.Error("Column found a missing column")
	}
	if i := tb.ColumnIndex("Inst_Id"); i != 2 {
		t.Errorf("ColumnIndex(Inst_Id) = %d, want 2", i)
	}
	if i := tb.ColumnIndex("COL_NOPE"); i != -1 {
		t.Errorf("ColumnIndex(COL_NOPE) = %d, want -1", i)
	}
	if got, want := tb.ColumnNames(), []string{"COL_X", "ID", "INST_ID", "PARENT_ID", "REC_ID"}; !slices.Equal(got, want) {
		t.Errorf("ColumnNames() = %v, want %v", got, want)
	}
}

func TestTableCloneIsDeep(t *testing.T) {
	tb := tbl("P_A", "P_B", col("COL_X", ddl.String))
	cp := tb.Clone()
	cp.Columns[0].Name = "CHANGED"
	cp.Columns = append(cp.Columns, col("COL_Y", ddl.Integer))
	cp.Name = "CHANGED"
	if tb.Columns[0].Name != "COL_X" || len(tb.Columns) != 5 || tb.Name != "P_A" {
		t.Errorf("changing a clone changed the original: %+v", tb)
	}
}

func TestIndexes(t *testing.T) {
	shared := ddl.Table{Name: "RELATIONS", Key: ddl.ID, Columns: []ddl.Column{col(ddl.ID, ddl.Integer), col(ddl.InstID, ddl.Integer)}}
	keyedByInst := ddl.Table{Name: "INSTANCES", Key: ddl.InstID, Columns: []ddl.Column{col(ddl.InstID, ddl.Integer)}}
	top := tbl("P_TOP", "")
	child := tbl("P_CHILD", "P_TOP")
	leaf := tbl("P_LEAF", "P_TOP")
	leaf.NoParentIndex = true
	named := tbl("P_NAMED", "")
	named.RecIDIndex = true
	for _, tc := range []struct {
		t    ddl.Table
		want []ddl.Index
	}{
		// A result set's RELATIONS rows are found by INST_ID (every
		// reader, delete), not by the key.
		{shared, []ddl.Index{{Name: "PK_RELATIONS", Columns: []string{"ID"}, Primary: true},
			{Name: "IX_RELATIONS_INST", Columns: []string{"INST_ID"}}}},
		{keyedByInst, []ddl.Index{{Name: "PK_INSTANCES", Columns: []string{"INST_ID"}, Primary: true}}},
		{top, []ddl.Index{{Name: "IX_P_TOP_ID", Columns: []string{"INST_ID", "ID"}}}},
		{child, []ddl.Index{
			{Name: "IX_P_CHILD_ID", Columns: []string{"INST_ID", "ID"}},
			{Name: "IX_P_CHILD_PARENT", Columns: []string{"INST_ID", "PARENT_ID"}},
		}},
		{leaf, []ddl.Index{{Name: "IX_P_LEAF_ID", Columns: []string{"INST_ID", "ID"}}}},
		{named, []ddl.Index{
			{Name: "IX_P_NAMED_ID", Columns: []string{"INST_ID", "ID"}},
			{Name: "IX_P_NAMED_REC", Columns: []string{"INST_ID", "REC_ID"}},
		}},
	} {
		got := tc.t.Indexes()
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: Indexes() = %+v, want %+v", tc.t.Name, got, tc.want)
		}
	}
}

func TestIndexNameShort(t *testing.T) {
	if got := ddl.IndexName("IX", "P_A", "ID"); got != "IX_P_A_ID" {
		t.Errorf("IndexName = %q", got)
	}
	if got := ddl.IndexName("PK", "INSTANCES", ""); got != "PK_INSTANCES" {
		t.Errorf("IndexName = %q", got)
	}
	// Exactly MaxIndexName characters is kept as it is.
	table := strings.Repeat("T", ddl.MaxIndexName-len("IX__PARENT"))
	if got := ddl.IndexName("IX", table, "PARENT"); got != "IX_"+table+"_PARENT" {
		t.Errorf("IndexName of a name of exactly %d characters = %q", ddl.MaxIndexName, got)
	}
}

func TestIndexNameLong(t *testing.T) {
	const base = "REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK_"
	seen := map[string]string{}
	for i := range 2000 {
		// Long names that differ only at their end, where shortening cuts.
		table := fmt.Sprintf("%s%s%d", base, strings.Repeat("X", i%80), i)
		for _, sfx := range []string{"ID", "PARENT", ""} {
			prefix := "IX"
			if sfx == "" {
				prefix = "PK"
			}
			name := ddl.IndexName(prefix, table, sfx)
			if len(name) > ddl.MaxIndexName {
				t.Fatalf("IndexName(%s, %s, %s) = %q: %d characters, more than %d", prefix, table, sfx, name, len(name), ddl.MaxIndexName)
			}
			if !strings.HasPrefix(name, prefix+"_"+table[:20]) || sfx != "" && !strings.HasSuffix(name, "_"+sfx) {
				t.Errorf("IndexName(%s, %s, %s) = %q: lost its prefix or suffix", prefix, table, sfx, name)
			}
			if ddl.ValidateName(name) != nil {
				t.Errorf("IndexName = %q: %v", name, ddl.ValidateName(name))
			}
			if again := ddl.IndexName(prefix, table, sfx); again != name {
				t.Errorf("IndexName not deterministic: %q then %q", name, again)
			}
			if other, dup := seen[name]; dup {
				t.Fatalf("IndexName gives %q for both %s and %s", name, other, table+"/"+sfx)
			}
			seen[name] = table + "/" + sfx
		}
	}
}

// TestIndexNameStable pins the shortened form: index names end up in users'
// databases, and a release that shortened differently would no longer find
// its own indexes (and create them a second time).
func TestIndexNameStable(t *testing.T) {
	for _, tc := range []struct{ prefix, table, suffix, want string }{
		{"IX", "REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK_HISTORY", "PARENT", "IX_REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_C_852E5226_PARENT"},
		{"PK", "A_VERY_LONG_SHARED_TABLE_NAME_THAT_DOES_NOT_FIT_INTO_SIXTY_CHARACTERS", "", "PK_A_VERY_LONG_SHARED_TABLE_NAME_THAT_DOES_NOT_FIT__840EF149"},
	} {
		if got := ddl.IndexName(tc.prefix, tc.table, tc.suffix); got != tc.want {
			t.Errorf("IndexName(%s, %s, %s) = %q, want %q", tc.prefix, tc.table, tc.suffix, got, tc.want)
		}
	}
}

func TestIndexesOfLongTable(t *testing.T) {
	tb := tbl("REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK_HISTORY_OF_EVERYTHING", "P_A")
	ix := tb.Indexes()
	if len(ix) != 2 || ix[0].Name == ix[1].Name {
		t.Fatalf("Indexes() = %+v", ix)
	}
	for _, i := range ix {
		if len(i.Name) > ddl.MaxIndexName {
			t.Errorf("index %q is longer than %d", i.Name, ddl.MaxIndexName)
		}
	}
}
