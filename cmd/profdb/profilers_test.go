package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// The documented shape of "profdb profilers --json".
type (
	jsonDoc struct {
		Shared    []jsonTable `json:"shared"`
		Profilers []struct {
			Name   string      `json:"name"`
			Tables []jsonTable `json:"tables"`
		} `json:"profilers"`
	}
	jsonTable struct {
		Name    string  `json:"name"`
		Parent  *string `json:"parent"`
		Columns []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"columns"`
	}
)

func TestProfilersJSON(t *testing.T) {
	out := mustRun(t, "profilers", "--json")
	var doc jsonDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("profilers --json does not have the documented shape: %v\n%s", err, out)
	}
	// Every key present, parent included (null, not missing, at the top).
	var raw struct {
		Shared    []map[string]json.RawMessage `json:"shared"`
		Profilers []struct {
			Tables []map[string]json.RawMessage `json:"tables"`
		} `json:"profilers"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	rawTables := raw.Shared
	for _, p := range raw.Profilers {
		rawTables = append(rawTables, p.Tables...)
	}
	for _, tb := range rawTables {
		for _, k := range []string{"name", "parent", "columns"} {
			if _, ok := tb[k]; !ok {
				t.Errorf("table %s: no %q key", tb["name"], k)
			}
		}
	}

	var shared []string
	for _, tb := range doc.Shared {
		shared = append(shared, tb.Name)
		if tb.Parent != nil {
			t.Errorf("shared table %s has parent %s", tb.Name, *tb.Parent)
		}
	}
	if !slices.Equal(shared, []string{"INSTANCES", "RELATIONS"}) {
		t.Errorf("shared = %v, want [INSTANCES RELATIONS]", shared)
	}

	var names []string
	total := 0
	parents := map[string]*string{}
	all := slices.Clone(doc.Shared)
	for _, p := range doc.Profilers {
		names = append(names, p.Name)
		total += len(p.Tables)
		seen := map[string]bool{}
		for _, tb := range p.Tables {
			parents[tb.Name] = tb.Parent
			if tb.Parent != nil && !seen[*tb.Parent] {
				t.Errorf("%s: %s is listed before its parent %s", p.Name, tb.Name, *tb.Parent)
			}
			seen[tb.Name] = true
		}
		all = append(all, p.Tables...)
	}
	if want := []string{"function-trace", "light-coverage", "reference-count", "resource"}; !slices.Equal(names, want) {
		t.Errorf("profilers = %v, want %v", names, want)
	}
	if total != 37 {
		t.Errorf("%d profiler tables, want 37", total)
	}
	types := []string{"String", "Integer", "Decimal", "Float"}
	for _, tb := range all {
		if err := ddl.ValidateName(tb.Name); err != nil {
			t.Error(err)
		}
		if len(tb.Columns) == 0 {
			t.Errorf("%s: no columns", tb.Name)
		}
		for _, c := range tb.Columns {
			if err := ddl.ValidateName(c.Name); err != nil {
				t.Errorf("%s: %v", tb.Name, err)
			}
			if !slices.Contains(types, c.Type) {
				t.Errorf("%s.%s: type %q, want one of %v", tb.Name, c.Name, c.Type, types)
			}
		}
	}
	// Every registered table is listed with its parent (the registry is
	// held to docs/layout.md's parent-child graph in package profilers).
	for _, d := range profilers.All() {
		for _, tb := range d.Tables {
			p, ok := parents[tb.Name]
			switch {
			case !ok:
				t.Errorf("%s: table %s is not listed", d.Name, tb.Name)
			case tb.Parent == "" && p != nil:
				t.Errorf("%s: parent %q, want null", tb.Name, *p)
			case tb.Parent != "" && (p == nil || *p != tb.Parent):
				t.Errorf("%s: parent %v, want %q", tb.Name, p, tb.Parent)
			}
		}
	}
	// Spot checks of documented names and types (docs/layout.md, "Names",
	// "Types").
	col := func(table, column string) string {
		for _, tb := range all {
			if tb.Name == table {
				for _, c := range tb.Columns {
					if c.Name == column {
						return c.Type
					}
				}
			}
		}
		return "missing"
	}
	for _, c := range []struct{ table, column, typ string }{
		{"INSTANCES", "COUNTER_FREQUENCY", "Decimal"},
		{"RELATIONS", "COL_PARENT_TABLE", "String"},
		{"FUNCTION_TRACE_PROFILER_META_ROUTINES", "COL_CALLINGCONVETION", "Integer"},
		{"FUNCTION_TRACE_PROFILER_METAPARAMETERS", "COL_TYPENAME", "String"},
		{"FUNCTION_TRACE_PROFILER_CALL_TRACE", "COL_ROUTINE_NAME", "Integer"},
		{"LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA", "COL____COVERED", "Float"},
		{"LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA", "COL_CALCULATED", "Integer"},
		{"REFERENCE_COUNT_PROFILER_THREADS", "COL_WIN32THREADID", "String"},
	} {
		if got := col(c.table, c.column); got != c.typ {
			t.Errorf("%s.%s: %s, want %s", c.table, c.column, got, c.typ)
		}
	}
}

func TestProfilersJSONSelected(t *testing.T) {
	var doc jsonDoc
	if err := json.Unmarshal([]byte(mustRun(t, "profilers", "--json", "resource")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Profilers) != 1 || doc.Profilers[0].Name != "resource" || len(doc.Shared) != 2 {
		t.Errorf("profilers --json resource: %d shared, profilers %+v", len(doc.Shared), doc.Profilers)
	}
	_, errOut, code := runCLI(t, "profilers", "nope")
	if code == 0 || !strings.Contains(errOut, "function-trace") {
		t.Errorf("profilers nope: exit %d, stderr %q", code, errOut)
	}
}

func TestProfilersTree(t *testing.T) {
	out := mustRun(t, "profilers")
	for _, d := range profilers.All() {
		if !strings.Contains(out, "\n"+d.Name+" (") {
			t.Errorf("no section for %s", d.Name)
		}
		for _, tb := range d.Tables {
			if !strings.Contains(out, "── "+tb.Name+"\n") {
				t.Errorf("no tree entry for %s", tb.Name)
			}
			for _, c := range tb.Columns {
				if !strings.Contains(out, c.Name+" "+c.Type.String()) {
					t.Errorf("%s: column %s not listed", tb.Name, c.Name)
				}
			}
		}
	}
	// A child sits below its parent, one level deeper.
	lines := strings.Split(out, "\n")
	level := func(table string) (int, int) {
		for i, l := range lines {
			if j := strings.Index(l, "── "+table); j >= 0 && strings.HasSuffix(l, table) {
				return i, len([]rune(l[:j]))
			}
		}
		return -1, -1
	}
	pi, pl := level("RESOURCE_PROFILER_ERRORS")
	ci, cl := level("RESOURCE_PROFILER_CALL_STACK")
	if pi < 0 || ci < pi || cl != pl+4 {
		t.Errorf("RESOURCE_PROFILER_CALL_STACK (line %d, column %d) is not under RESOURCE_PROFILER_ERRORS (line %d, column %d)", ci, cl, pi, pl)
	}
	for _, l := range lines {
		if len([]rune(l)) > profilers.LayoutWidth+30 {
			t.Errorf("line longer than %d: %q", profilers.LayoutWidth, l)
		}
	}
}

// docs/layout.md's list of tables and columns is generated from the
// registry.
const (
	layoutBegin = "<!-- BEGIN profiler tables: generated by go test ./cmd/profdb -run Golden -update -->\n"
	layoutEnd   = "<!-- END profiler tables -->\n"
)

// profilerTableMarkdown is docs/layout.md's table of profilers, their
// tables, parents and column counts, followed by every table's columns in
// order with their logical types.
func profilerTableMarkdown() string {
	var b bytes.Buffer
	b.WriteString("| profiler | table | parent (PARENT_ID points into) | columns |\n")
	b.WriteString("| --- | --- | --- | ---: |\n")
	row := func(profiler string, t ddl.Table) {
		parent := "—"
		if t.Parent != "" {
			parent = "`" + t.Parent + "`"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d |\n", profiler, t.Name, parent, len(t.Columns))
	}
	for _, t := range profilers.Shared() {
		row("(shared)", t)
	}
	for _, d := range profilers.All() {
		for _, t := range d.Tables {
			row(d.Name, t)
		}
	}
	columns := func(t ddl.Table) {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = "`" + c.Name + "` " + c.Type.String()
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, strings.Join(cols, ", "))
	}
	b.WriteString("\n### Shared\n\n")
	for _, t := range profilers.Shared() {
		columns(t)
	}
	for _, d := range profilers.All() {
		fmt.Fprintf(&b, "\n### %s\n\n", d.Name)
		for _, t := range d.Tables {
			columns(t)
		}
	}
	return b.String()
}

func TestLayoutGolden(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "layout.md")
	layout, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(layout)
	i, j := strings.Index(s, layoutBegin), strings.Index(s, layoutEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q section", path, strings.TrimSpace(layoutBegin), strings.TrimSpace(layoutEnd))
	}
	got := s[:i+len(layoutBegin)] + profilerTableMarkdown() + s[j:]
	if *update {
		if got != s {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if got != s {
		t.Errorf("%s: the list of tables and columns is out of date (run: go test ./cmd/profdb -run Golden -update)", path)
	}
}
