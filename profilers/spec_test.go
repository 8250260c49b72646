package profilers_test

// Spec conformance: the four AQTime "Database Structure" documents, in
// ../shared/spec beside the repository when it is there, are parsed at test
// time and, with the decisions of docs/layout.md, are the oracle; the
// registered plugins are compared with what they say.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
)

// ---------------------------------------------------------------------------
// Locating the spec

// specDocuments are the four AQTime table documents in the spec directory,
// each with its profiler's name as the documents and docs/layout.md write
// it (docs/layout.md, "Where the layout comes from").
var specDocuments = [][2]string{
	{"aqtime-light-coverage-db.txt", "Light Coverage"},
	{"aqtime-resource-db.txt", "Resource"},
	{"aqtime-function-trace-db.txt", "Function Trace"},
	{"aqtime-reference-count-db.txt", "Reference Count"},
}

// specDir returns ../shared/spec relative to the repository root (the
// directory holding go.mod, found by walking up from the package directory)
// when it holds the specDocuments. Without them the test is skipped, except
// under CI=true, where it fails.
func specDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("spec documents not found: %s (CI=true: CI must provide ../shared/spec beside the repository)", why)
		}
		t.Skipf("spec documents not found: %s; the spec conformance test needs ../shared/spec beside the repository root", why)
	}
	if root == "" {
		missing("no go.mod above " + dir)
	}
	spec := filepath.Join(root, "..", "shared", "spec")
	for _, d := range specDocuments {
		if _, err := os.Stat(filepath.Join(spec, d[0])); err != nil {
			missing(err.Error())
		}
	}
	return spec
}

// ---------------------------------------------------------------------------
// Parsing docs/layout.md

// mdTable is one markdown table: its header cells and its rows.
type mdTable struct {
	header []string
	rows   [][]string
}

var mdSeparatorCell = regexp.MustCompile(`^:?-{3,}:?$`)

// parseMarkdownTables returns every table (a run of lines starting with '|').
func parseMarkdownTables(text string) []mdTable {
	var out []mdTable
	var cur *mdTable
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cur == nil {
			out = append(out, mdTable{header: cells})
			cur = &out[len(out)-1]
			continue
		}
		if mdSeparatorCell.MatchString(cells[0]) {
			continue
		}
		cur.rows = append(cur.rows, cells)
	}
	return out
}

func findMarkdownTable(tables []mdTable, header ...string) (mdTable, bool) {
	for _, tb := range tables {
		if slices.EqualFunc(tb.header, header, strings.EqualFold) {
			return tb, true
		}
	}
	return mdTable{}, false
}

// layoutPath is docs/layout.md, relative to this package's directory.
var layoutPath = filepath.Join("..", "docs", "layout.md")

// layout is what the tests read from docs/layout.md.
type layout struct {
	// parents maps profiler display name -> child table -> parent table, both
	// short (without the profiler prefix), from the table of "The
	// parent-child graph".
	parents map[string]map[string]string
}

func parseLayout(text string) (layout, error) {
	var l layout
	graph, ok := findMarkdownTable(parseMarkdownTables(text), "profiler", "child table", "parent table")
	if !ok {
		return l, fmt.Errorf(`%s: no "| profiler | child table | parent table |" table`, layoutPath)
	}
	l.parents = map[string]map[string]string{}
	for _, r := range graph.rows {
		if len(r) != 3 {
			return l, fmt.Errorf("%s: parent table row %q: want 3 cells", layoutPath, r)
		}
		if l.parents[r[0]] == nil {
			l.parents[r[0]] = map[string]string{}
		}
		if _, dup := l.parents[r[0]][r[1]]; dup {
			return l, fmt.Errorf("%s: %s %s listed twice in the parent table", layoutPath, r[0], r[1])
		}
		l.parents[r[0]][r[1]] = r[2]
	}
	return l, nil
}

// readLayout reads and parses docs/layout.md.
func readLayout(t testing.TB) layout {
	t.Helper()
	b, err := os.ReadFile(layoutPath)
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseLayout(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// profilerName is the registry name of a profiler the documents call
// display ("Light Coverage" -> "light-coverage").
func profilerName(display string) string {
	return strings.ToLower(strings.ReplaceAll(display, " ", "-"))
}

// tablePrefix is the prefix of the tables of the profiler the documents
// call display ("Light Coverage" -> "LIGHT_COVERAGE_PROFILER_").
func tablePrefix(display string) string {
	return strings.ToUpper(strings.ReplaceAll(display, " ", "_")) + "_PROFILER_"
}

// ---------------------------------------------------------------------------
// Parsing a "Database Structure" document

type specField struct {
	name string
	desc string // description, continuation lines joined with spaces
	line int
}

type specTable struct {
	name   string
	line   int
	fields []specField
}

type specDoc struct {
	file     string
	display  string // "Light Coverage"
	profiler string // registry name, "light-coverage"
	prefix   string // "LIGHT_COVERAGE_PROFILER_"
	tables   []specTable
}

func (d *specDoc) table(name string) *specTable {
	for i := range d.tables {
		if d.tables[i].name == name {
			return &d.tables[i]
		}
	}
	return nil
}

func (d *specDoc) where(line int) string { return fmt.Sprintf("%s:%d", d.file, line) }

var (
	// "The X table" / "The X Table", the whole line.
	headingRE = regexp.MustCompile(`^The ([A-Z][A-Z0-9_]*) (?i:table)$`)
	// A documented field name: upper case, digits, underscores.
	fieldNameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
	// The type word a description starts with.
	typeWordRE = regexp.MustCompile(`^(String|Integer|Decimal|Floating-point)\.(\s|$)`)
)

// isHeaderRow reports whether line is a field table header ("Field Name
// Description", "Table Field Name | Description |").
func isHeaderRow(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasPrefix(s, "Field Name") || strings.HasPrefix(s, "Table Field Name")
}

// fieldRow splits a field row: in the '|'-separated document the name is the
// first cell and the description the second; elsewhere the name is the
// first token of an unindented line. Bullets, prose and continuation lines
// do not start with an upper-case identifier and are not rows.
func fieldRow(line string) (name, desc string, ok bool) {
	if strings.Contains(line, "|") {
		cells := strings.Split(line, "|")
		if len(cells) < 2 {
			return "", "", false
		}
		name = strings.TrimSpace(cells[0])
		if !fieldNameRE.MatchString(name) {
			return "", "", false
		}
		return name, strings.TrimSpace(cells[1]), true
	}
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return "", "", false
	}
	name, desc, _ = strings.Cut(line, " ")
	if !fieldNameRE.MatchString(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(desc), true
}

// parseSpecDoc extracts every table section and its field rows in order.
func parseSpecDoc(file, text string) (*specDoc, error) {
	doc := &specDoc{file: file}
	var cur *specTable
	sawHeader := false
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		line := strings.TrimRight(raw, " \t\r")
		bare := strings.TrimSpace(strings.TrimRight(line, "| "))
		if m := headingRE.FindStringSubmatch(bare); m != nil {
			if doc.table(m[1]) != nil {
				return nil, fmt.Errorf("%s:%d: table %s described twice", file, lineNo, m[1])
			}
			doc.tables = append(doc.tables, specTable{name: m[1], line: lineNo})
			cur = &doc.tables[len(doc.tables)-1]
			sawHeader = false
			continue
		}
		if bare == "See Also" {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		if isHeaderRow(line) {
			sawHeader = true
			continue
		}
		if !sawHeader {
			continue // the section's introduction
		}
		if name, desc, ok := fieldRow(line); ok {
			cur.fields = append(cur.fields, specField{name: name, desc: desc, line: lineNo})
			continue
		}
		if n := len(cur.fields); n > 0 {
			if s := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "|-•")); s != "" {
				cur.fields[n-1].desc += " " + s
			}
		}
	}
	for _, tb := range doc.tables {
		if len(tb.fields) == 0 {
			return nil, fmt.Errorf("%s:%d: table %s: no field rows found", file, tb.line, tb.name)
		}
	}
	return doc, nil
}

// documentedType returns the type word the field's description starts with.
func documentedType(f specField) (ddl.Type, bool) {
	m := typeWordRE.FindStringSubmatch(f.desc)
	if m == nil {
		return 0, false
	}
	switch m[1] {
	case "String":
		return ddl.String, true
	case "Integer":
		return ddl.Integer, true
	case "Decimal":
		return ddl.Decimal, true
	case "Floating-point":
		return ddl.Float, true
	}
	return 0, false
}

// spec is everything read from the spec directory, and docs/layout.md.
type spec struct {
	layout layout
	docs   []*specDoc
}

func loadSpec(t testing.TB) *spec {
	t.Helper()
	dir := specDir(t)
	s := &spec{layout: readLayout(t)}
	for _, fd := range specDocuments {
		text, err := os.ReadFile(filepath.Join(dir, fd[0]))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseSpecDoc(fd[0], string(text))
		if err != nil {
			t.Fatal(err)
		}
		doc.display = fd[1]
		doc.profiler = profilerName(fd[1])
		doc.prefix = tablePrefix(fd[1])
		s.docs = append(s.docs, doc)
	}
	return s
}

// ---------------------------------------------------------------------------
// The decisions of docs/layout.md, one function each

// ruled names one column of one table of one profiler (the table short,
// without the profiler prefix, as docs/layout.md writes it).
type ruled struct{ profiler, table, column string }

func (d *specDoc) ref(table, column string) ruled {
	return ruled{d.profiler, strings.TrimPrefix(table, d.prefix), column}
}

// docs/layout.md, "Types", rule 1: a column whose description gives no
// type is Integer, unless the description says it holds a name or text;
// these are the String ones.
var untypedTextColumns = []ruled{
	{"resource", "META_ROUTINES", "COL_COMPILER"},
	{"resource", "CLASSES_DATA", "COL_CLASS_NAME"},
	{"resource", "CLASSES_DATA", "COL_MODULE_NAME"},
}

func untypedColumnType(r ruled) (ddl.Type, string) {
	if slices.Contains(untypedTextColumns, r) {
		return ddl.String, "no type word, holds text: String (docs/layout.md, Types)"
	}
	return ddl.Integer, "no type word: Integer (docs/layout.md, Types)"
}

// docs/layout.md, "Types", rule 2: a column documented Integer that holds
// a name, with no note that it stores an identifier, is String.
var integerNameColumns = []ruled{
	{"function-trace", "METAPARAMETERS", "COL_TYPENAME"},
	{"reference-count", "CLASSES_DATA", "COL_CLASS_NAME"},
	{"reference-count", "CLASSES_DATA", "COL_MODULE_NAME"},
}

// docs/layout.md, "Types", rule 2: "name" columns the document says store
// an identifier stay Integer.
var integerIdentifierNameColumns = []ruled{
	{"function-trace", "CALL_TRACE", "COL_ROUTINE_NAME"},
	{"function-trace", "CALL_STACK", "COL_ROUTINE_NAME"},
	{"reference-count", "ADDREF_RELEASE_CALL_STACK", "COL_ROUTINE_NAME"},
	{"reference-count", "REFCOUNT_TREE", "COL_ROUTINE_NAME"},
}

func integerColumnType(r ruled) (ddl.Type, string) {
	if slices.Contains(integerNameColumns, r) {
		return ddl.String, "documented Integer but holds a name: String (docs/layout.md, Types)"
	}
	return ddl.Integer, "documented Integer"
}

// docs/layout.md, "Names": Function Trace META_ROUTINES lists
// COL_UNIT_NAME twice, first String, then Integer; it is one String column
// at its first position.
var mergedDuplicateColumns = []ruled{
	{"function-trace", "META_ROUTINES", "COL_UNIT_NAME"},
}

func mergeDuplicateColumn(r ruled) (ddl.Type, string, bool) {
	if slices.Contains(mergedDuplicateColumns, r) {
		return ddl.String, "listed twice: one String column at its first place (docs/layout.md, Names)", true
	}
	return 0, "", false
}

// docs/layout.md, "INSTANCES and RELATIONS": only the Function Trace
// document types every column of INSTANCES, so its types count.
const instancesTypedBy = "function-trace"

// docs/layout.md, "The parent-child graph": the PARENT_ID texts of
// Function Trace PARAMETERS_ON_ENTER / PARAMETERS_ON_EXIT (which name
// CALL_ROUTES; the parent is CALL_TRACE) and of Resource META_LINES (which
// names META_LINES; the parent is META_ROUTINES) are slips: they do not
// name the parent docs/layout.md gives.
var parentTextSlips = []ruled{
	{"function-trace", "PARAMETERS_ON_ENTER", "PARENT_ID"},
	{"function-trace", "PARAMETERS_ON_EXIT", "PARENT_ID"},
	{"resource", "META_LINES", "PARENT_ID"},
}

// sharedTables are described in every document but defined once by profdb
// (docs/layout.md, "INSTANCES and RELATIONS": one of each per database,
// shared by every profiler).
var sharedTables = []string{profilers.InstancesTable, profilers.RelationsTable}

// ---------------------------------------------------------------------------
// The expected model

type wantColumn struct {
	name string
	typ  ddl.Type
	why  string
	line int
}

type wantTable struct {
	name   string
	parent string
	line   int
	cols   []wantColumn
}

// expectColumns applies the rulings to one documented table.
func expectColumns(doc *specDoc, tb *specTable) ([]wantColumn, []string) {
	var cols []wantColumn
	var problems []string
	for _, f := range tb.fields {
		r := doc.ref(tb.name, f.name)
		if i := slices.IndexFunc(cols, func(c wantColumn) bool { return c.name == f.name }); i >= 0 {
			typ, why, ok := mergeDuplicateColumn(r)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: %s: table %s lists column %s twice (lines %d, %d) and docs/layout.md has no ruling for it",
					doc.where(f.line), doc.profiler, tb.name, f.name, cols[i].line, f.line))
				continue
			}
			cols[i].typ, cols[i].why = typ, why
			continue
		}
		c := wantColumn{name: f.name, line: f.line}
		switch typ, ok := documentedType(f); {
		case !ok:
			c.typ, c.why = untypedColumnType(r)
		case typ == ddl.Integer:
			c.typ, c.why = integerColumnType(r)
		default:
			c.typ, c.why = typ, "documented "+typ.String()
		}
		cols = append(cols, c)
	}
	return cols, problems
}

// expectProfiler returns the tables a document specifies for its profiler
// (INSTANCES and RELATIONS left out), with the parents of docs/layout.md.
func (s *spec) expectProfiler(doc *specDoc) ([]wantTable, []string) {
	var out []wantTable
	var problems []string
	parents := s.layout.parents[doc.display]
	for i := range doc.tables {
		tb := &doc.tables[i]
		if slices.Contains(sharedTables, tb.name) {
			continue
		}
		if !strings.HasPrefix(tb.name, doc.prefix) {
			problems = append(problems, fmt.Sprintf("%s: %s: table %s does not carry the prefix %s", doc.where(tb.line), doc.profiler, tb.name, doc.prefix))
		}
		cols, p := expectColumns(doc, tb)
		problems = append(problems, p...)
		wt := wantTable{name: tb.name, line: tb.line, cols: cols}
		if p, ok := parents[strings.TrimPrefix(tb.name, doc.prefix)]; ok {
			wt.parent = doc.prefix + p
		}
		out = append(out, wt)
	}
	for child, parent := range parents {
		for _, n := range []string{child, parent} {
			if doc.table(doc.prefix+n) == nil {
				problems = append(problems, fmt.Sprintf("docs/layout.md: %s parent table names %s, which %s does not describe", doc.display, n, doc.file))
			}
		}
	}
	return out, problems
}

// compareProfiler reports every difference between the expected tables and
// a registered definition; each message names the profiler, the table and,
// where it applies, the column.
func compareProfiler(doc *specDoc, want []wantTable, got profilers.Definition) []string {
	var msgs []string
	add := func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }
	for _, wt := range want {
		gt, ok := got.Table(wt.name)
		if !ok {
			add("profiler %s: table %s is missing (%s)", doc.profiler, wt.name, doc.where(wt.line))
			continue
		}
		if gt.Name != wt.name {
			add("profiler %s: table %s is named %s (%s)", doc.profiler, wt.name, gt.Name, doc.where(wt.line))
		}
		if gt.Parent != wt.parent {
			want := wt.parent
			if want == "" {
				want = "none (top-level)"
			}
			add("profiler %s: table %s: parent %q, want %s (docs/layout.md parent table)", doc.profiler, wt.name, gt.Parent, want)
		}
		if gt.Key != "" {
			add("profiler %s: table %s: key %s, want none (docs/layout.md: ID and REC_ID are not keys)", doc.profiler, wt.name, gt.Key)
		}
		msgs = append(msgs, compareColumns(doc, "profiler "+doc.profiler+": table "+wt.name, wt.cols, gt.Columns)...)
	}
	for _, gt := range got.Tables {
		if !slices.ContainsFunc(want, func(w wantTable) bool { return w.name == gt.Name }) {
			add("profiler %s: table %s is not in %s", doc.profiler, gt.Name, doc.file)
		}
	}
	return msgs
}

// compareColumns reports missing, extra, misplaced and mistyped columns.
func compareColumns(doc *specDoc, what string, want []wantColumn, got []ddl.Column) []string {
	var msgs []string
	add := func(format string, args ...any) { msgs = append(msgs, what+": "+fmt.Sprintf(format, args...)) }
	gotNames := make([]string, len(got))
	for i, c := range got {
		gotNames[i] = c.Name
	}
	wantNames := make([]string, len(want))
	for i, c := range want {
		wantNames[i] = c.name
	}
	for _, w := range want {
		i := slices.Index(gotNames, w.name)
		if i < 0 {
			add("column %s is missing (%s)", w.name, doc.where(w.line))
			continue
		}
		if got[i].Type != w.typ {
			add("column %s: type %v, want %v (%s: %s)", w.name, got[i].Type, w.typ, doc.where(w.line), w.why)
		}
	}
	for _, g := range gotNames {
		if !slices.Contains(wantNames, g) {
			add("column %s is not in %s", g, doc.file)
		}
	}
	// Order, on the columns both have.
	var gotCommon, wantCommon []string
	for _, n := range gotNames {
		if slices.Contains(wantNames, n) {
			gotCommon = append(gotCommon, n)
		}
	}
	for _, n := range wantNames {
		if slices.Contains(gotNames, n) {
			wantCommon = append(wantCommon, n)
		}
	}
	for i := range wantCommon {
		if gotCommon[i] != wantCommon[i] {
			add("column %s at position %d, want %s there (document order: %s)", gotCommon[i], i+1, wantCommon[i], strings.Join(wantNames, ", "))
			break
		}
	}
	return msgs
}

// ---------------------------------------------------------------------------
// Tests

func TestSpecParsedEveryTable(t *testing.T) {
	s := loadSpec(t)
	total := 0
	for _, doc := range s.docs {
		for _, sh := range sharedTables {
			if doc.table(sh) == nil {
				t.Errorf("%s: no %s table section found", doc.file, sh)
			}
		}
		for _, tb := range doc.tables {
			if !slices.Contains(sharedTables, tb.name) {
				total++
			}
			for _, req := range []string{ddl.InstID} {
				if !slices.ContainsFunc(tb.fields, func(f specField) bool { return f.name == req }) {
					t.Errorf("%s: table %s: parsed no %s field; the parser is broken", doc.where(tb.line), tb.name, req)
				}
			}
		}
	}
	// "the exact set of tables per profiler (37 in total)": a guard against
	// the parser silently losing a section.
	if total != 37 {
		t.Errorf("parsed %d profiler tables from the four documents, want 37", total)
	}
}

// TestSpecRulingsMatchDocuments keeps the rulings honest: every column a
// ruling names exists, in the state the ruling describes, and every column
// whose name says "name" but that is not documented String is covered by a
// ruling.
func TestSpecRulingsMatchDocuments(t *testing.T) {
	s := loadSpec(t)
	docs := map[string]*specDoc{}
	for _, d := range s.docs {
		docs[d.profiler] = d
	}
	fields := func(r ruled) []specField {
		d := docs[r.profiler]
		if d == nil {
			t.Errorf("ruling %v: no document for profiler %s", r, r.profiler)
			return nil
		}
		tb := d.table(d.prefix + r.table)
		if tb == nil {
			t.Errorf("ruling %v: %s has no table %s%s", r, d.file, d.prefix, r.table)
			return nil
		}
		var out []specField
		for _, f := range tb.fields {
			if f.name == r.column {
				out = append(out, f)
			}
		}
		if len(out) == 0 {
			t.Errorf("ruling %v: %s table %s%s has no column %s", r, d.file, d.prefix, r.table, r.column)
		}
		return out
	}
	for _, r := range untypedTextColumns {
		for _, f := range fields(r) {
			if typ, ok := documentedType(f); ok {
				t.Errorf("ruling %v: docs/layout.md says it has no type word, the document says %v", r, typ)
			}
		}
	}
	for _, r := range integerNameColumns {
		for _, f := range fields(r) {
			if typ, _ := documentedType(f); typ != ddl.Integer || !strings.Contains(strings.ToLower(f.desc), "name") {
				t.Errorf("ruling %v: want an Integer column whose description speaks of a name, got %v %q", r, typ, f.desc)
			}
		}
	}
	for _, r := range integerIdentifierNameColumns {
		for _, f := range fields(r) {
			if typ, _ := documentedType(f); typ != ddl.Integer || !strings.Contains(f.desc, "identifier") {
				t.Errorf("ruling %v: want an Integer column whose description says it stores an identifier, got %v %q", r, typ, f.desc)
			}
		}
	}
	for _, r := range mergedDuplicateColumns {
		fs := fields(r)
		if len(fs) != 2 {
			t.Errorf("ruling %v: want the column listed twice, found %d", r, len(fs))
			continue
		}
		t1, _ := documentedType(fs[0])
		t2, _ := documentedType(fs[1])
		if t1 != ddl.String || t2 != ddl.Integer {
			t.Errorf("ruling %v: want once String then once Integer, got %v, %v", r, t1, t2)
		}
	}
	for _, r := range parentTextSlips {
		for _, f := range fields(r) {
			want := docs[r.profiler].prefix + s.layout.parents[docs[r.profiler].display][r.table]
			if strings.Contains(f.desc, want+" ") {
				t.Errorf("ruling %v: the PARENT_ID text names %s after all; the slip ruling is stale", r, want)
			}
		}
	}
	// Every Integer or untyped column whose name says NAME is covered.
	for _, d := range s.docs {
		for _, tb := range d.tables {
			if slices.Contains(sharedTables, tb.name) {
				continue
			}
			seen := map[string]bool{}
			for _, f := range tb.fields {
				dup := seen[f.name]
				seen[f.name] = true
				if !strings.Contains(f.name, "NAME") {
					continue
				}
				typ, typed := documentedType(f)
				if typed && typ != ddl.Integer {
					continue
				}
				r := d.ref(tb.name, f.name)
				covered := slices.Contains(integerNameColumns, r) || slices.Contains(integerIdentifierNameColumns, r) ||
					slices.Contains(untypedTextColumns, r) || dup && slices.Contains(mergedDuplicateColumns, r)
				if !covered {
					t.Errorf("%s: %s: table %s, column %s is documented %s and docs/layout.md has no ruling on it",
						d.where(f.line), d.profiler, tb.name, f.name, map[bool]string{true: "Integer", false: "without a type"}[typed])
				}
			}
		}
	}
}

// TestSpecParentsMatchDocuments checks docs/layout.md's parent table
// against the documents' PARENT_ID text: a top-level table's PARENT_ID is
// "not used", a child's PARENT_ID description names its parent (except the
// slips docs/layout.md explains).
func TestSpecParentsMatchDocuments(t *testing.T) {
	s := loadSpec(t)
	for _, d := range s.docs {
		if _, ok := s.layout.parents[d.display]; !ok {
			t.Errorf("docs/layout.md: the parent table has no row for %s", d.display)
		}
		for _, tb := range d.tables {
			if slices.Contains(sharedTables, tb.name) {
				continue
			}
			i := slices.IndexFunc(tb.fields, func(f specField) bool { return f.name == ddl.ParentID })
			if i < 0 {
				t.Errorf("%s: %s: table %s has no PARENT_ID", d.where(tb.line), d.profiler, tb.name)
				continue
			}
			f := tb.fields[i]
			unused := strings.Contains(strings.ToLower(f.desc), "not used")
			short := strings.TrimPrefix(tb.name, d.prefix)
			parent, child := s.layout.parents[d.display][short]
			switch {
			case child && unused:
				t.Errorf("%s: %s: table %s: docs/layout.md gives parent %s but PARENT_ID is %q", d.where(f.line), d.profiler, tb.name, parent, f.desc)
			case !child && !unused:
				t.Errorf("%s: %s: table %s: PARENT_ID is used (%q) but docs/layout.md makes the table top-level", d.where(f.line), d.profiler, tb.name, f.desc)
			case child && !slices.Contains(parentTextSlips, d.ref(tb.name, ddl.ParentID)) && !strings.Contains(f.desc, d.prefix+parent):
				t.Errorf("%s: %s: table %s: PARENT_ID text %q does not name %s%s", d.where(f.line), d.profiler, tb.name, f.desc, d.prefix, parent)
			}
		}
	}
}

// TestSpecProfilers compares every registered plugin with its document.
func TestSpecProfilers(t *testing.T) {
	s := loadSpec(t)
	total := 0
	for _, doc := range s.docs {
		t.Run(doc.profiler, func(t *testing.T) {
			want, problems := s.expectProfiler(doc)
			for _, p := range problems {
				t.Error(p)
			}
			def, err := profilers.Lookup(doc.profiler)
			if err != nil {
				t.Fatalf("%s describes profiler %s: %v", doc.file, doc.profiler, err)
			}
			total += len(def.Tables)
			for _, m := range compareProfiler(doc, want, def) {
				t.Error(m)
			}
		})
	}
	if !t.Failed() && total != 37 {
		t.Errorf("the four profilers register %d tables, want 37", total)
	}
}

// TestSpecSharedTables compares INSTANCES and RELATIONS with every document.
func TestSpecSharedTables(t *testing.T) {
	s := loadSpec(t)
	for _, sh := range []struct {
		got ddl.Table
		key string
	}{
		// docs/layout.md, "Keys and identifiers": INST_ID is unique in
		// INSTANCES.
		{profilers.Instances(), ddl.InstID},
		// RELATIONS' ID is unique in the whole table, not only within one
		// result set.
		{profilers.Relations(), ddl.ID},
	} {
		t.Run(sh.got.Name, func(t *testing.T) {
			if sh.got.Key != sh.key {
				t.Errorf("table %s: key %q, want %s", sh.got.Name, sh.got.Key, sh.key)
			}
			if err := ddl.ValidateTable(sh.got, false); err != nil {
				t.Error(err)
			}
			var names []string
			for _, doc := range s.docs {
				tb := doc.table(sh.got.Name)
				if tb == nil {
					t.Errorf("%s: no %s table", doc.file, sh.got.Name)
					continue
				}
				var docNames []string
				for _, f := range tb.fields {
					docNames = append(docNames, f.name)
				}
				if names == nil {
					names = docNames
				} else if !slices.Equal(names, docNames) {
					t.Errorf("%s: table %s lists %v, %s lists %v", doc.file, sh.got.Name, docNames, s.docs[0].file, names)
				}
				// INSTANCES is typed by the Function Trace document only;
				// every document types RELATIONS.
				if sh.got.Name == profilers.InstancesTable && doc.profiler != instancesTypedBy {
					continue
				}
				var want []wantColumn
				for _, f := range tb.fields {
					typ, ok := documentedType(f)
					if !ok {
						t.Errorf("%s: table %s, column %s: no type word in the document that types it", doc.where(f.line), tb.name, f.name)
					}
					want = append(want, wantColumn{name: f.name, typ: typ, why: "documented " + typ.String(), line: f.line})
				}
				for _, m := range compareColumns(doc, "shared table "+sh.got.Name, want, sh.got.Columns) {
					t.Error(m)
				}
			}
			// Shared tables are no profiler's: no registered profiler defines them.
			for _, d := range profilers.All() {
				if _, ok := d.Table(sh.got.Name); ok {
					t.Errorf("profiler %s defines the shared table %s", d.Name, sh.got.Name)
				}
			}
		})
	}
	if got := profilers.Shared(); len(got) != 2 || got[0].Name != profilers.InstancesTable || got[1].Name != profilers.RelationsTable {
		t.Errorf("Shared() = %v, want INSTANCES, RELATIONS", got)
	}
}

// TestSpecComparisonFindsMismatches proves the comparison can fail: a copy of
// a registered definition, broken in several ways, is reported precisely.
func TestSpecComparisonFindsMismatches(t *testing.T) {
	s := loadSpec(t)
	var doc *specDoc
	for _, d := range s.docs {
		if d.profiler == "resource" {
			doc = d
		}
	}
	if doc == nil {
		t.Fatal("no Resource document")
	}
	want, problems := s.expectProfiler(doc)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	def, err := profilers.Lookup("resource")
	if err != nil {
		t.Fatal(err)
	}
	if msgs := compareProfiler(doc, want, def); len(msgs) > 0 {
		t.Skipf("resource plugin already differs from its document: %v", msgs)
	}
	p := doc.prefix
	var kept []ddl.Table
	for _, tb := range def.Tables {
		switch tb.Name {
		case p + "CLASSES_DATA":
			tb.Columns[tb.ColumnIndex("COL_CLASS_NAME")].Type = ddl.Integer
		case p + "THREADS":
			tb.Columns[tb.ColumnIndex("COL_WIN32THREADID")].Name = "COL_WIN32_THREADID"
		case p + "OBJECTS":
			tb.Columns[0], tb.Columns[1] = tb.Columns[1], tb.Columns[0]
		case p + "ERRORS":
			tb.Parent = ""
		case p + "META_LINES":
			tb.Parent = p + "META_LINES"
		case p + "CALL_STACK":
			continue
		}
		kept = append(kept, tb)
	}
	kept = append(kept, profilers.NewTable(p+"BOGUS", "", profilers.Col("INST_ID", ddl.Integer)))
	msgs := strings.Join(compareProfiler(doc, want, profilers.Definition{Name: "resource", Tables: kept}), "\n")
	for _, w := range []string{
		"profiler resource: table RESOURCE_PROFILER_CLASSES_DATA: column COL_CLASS_NAME: type Integer, want String",
		"profiler resource: table RESOURCE_PROFILER_THREADS: column COL_WIN32THREADID is missing",
		"profiler resource: table RESOURCE_PROFILER_THREADS: column COL_WIN32_THREADID is not in aqtime-resource-db.txt",
		"profiler resource: table RESOURCE_PROFILER_OBJECTS: column COL_ADDRESS at position 1, want COL__ there",
		`profiler resource: table RESOURCE_PROFILER_ERRORS: parent "", want RESOURCE_PROFILER_THREADS`,
		`profiler resource: table RESOURCE_PROFILER_META_LINES: parent "RESOURCE_PROFILER_META_LINES", want RESOURCE_PROFILER_META_ROUTINES`,
		"profiler resource: table RESOURCE_PROFILER_CALL_STACK is missing",
		"profiler resource: table RESOURCE_PROFILER_BOGUS is not in aqtime-resource-db.txt",
	} {
		if !strings.Contains(msgs, w) {
			t.Errorf("mismatch report lacks %q; got:\n%s", w, msgs)
		}
	}
}

// TestParseSpecDoc checks the parser on both layouts the documents use.
func TestParseSpecDoc(t *testing.T) {
	plain := `Intro naming The X_Y table in prose.

The X_A table

This table holds things. ID and friends.

Table Field Name Description
COL_ONE String. First.
  • A bullet
COL_TWO Not used. Always contains -1.
COL_THREE Floating-point. Third.
More text for three.
ID Integer. Id.

The RELATIONS Table

Field Name Description
INST_ID Integer. Instance.

See Also

NOT_A_FIELD Integer. After See Also.
`
	piped := `The X_B table
Intro.
Table Field Name | Description |
---|---|
COL_A | Decimal. A. |
COL_B | Holds the name of a thing:
|
The field is used elsewhere. |
COL_C | Reserved. |
`
	for _, tc := range []struct {
		text string
		want map[string][][3]string // table -> [name, type, desc prefix]
	}{
		{plain, map[string][][3]string{
			"X_A":       {{"COL_ONE", "String", "String. First."}, {"COL_TWO", "", "Not used."}, {"COL_THREE", "Float", "Floating-point. Third. More text for three."}, {"ID", "Integer", "Integer. Id."}},
			"RELATIONS": {{"INST_ID", "Integer", "Integer. Instance."}},
		}},
		{piped, map[string][][3]string{
			"X_B": {{"COL_A", "Decimal", "Decimal. A."}, {"COL_B", "", "Holds the name of a thing: The field is used elsewhere."}, {"COL_C", "", "Reserved."}},
		}},
	} {
		doc, err := parseSpecDoc("t.txt", tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.tables) != len(tc.want) {
			t.Errorf("parsed tables %v, want %d", doc.tables, len(tc.want))
		}
		for name, fields := range tc.want {
			tb := doc.table(name)
			if tb == nil {
				t.Errorf("table %s not parsed", name)
				continue
			}
			if len(tb.fields) != len(fields) {
				t.Errorf("table %s: fields %+v, want %v", name, tb.fields, fields)
				continue
			}
			for i, w := range fields {
				f := tb.fields[i]
				typ, ok := documentedType(f)
				gotType := ""
				if ok {
					gotType = typ.String()
				}
				if f.name != w[0] || gotType != w[1] || !strings.HasPrefix(f.desc, w[2]) {
					t.Errorf("table %s field %d: %s %q %q, want %s %q %q", name, i, f.name, gotType, f.desc, w[0], w[1], w[2])
				}
			}
		}
	}
}

func TestParseLayoutTables(t *testing.T) {
	l, err := parseLayout(`
| file | what it specifies |
| --- | --- |
| a-db.txt | tables of the Foo Bar profiler |

text

| profiler | child table | parent table |
| --- | --- | --- |
| Foo Bar | LINES | ROUTINES |
`)
	if err != nil {
		t.Fatal(err)
	}
	if l.parents["Foo Bar"]["LINES"] != "ROUTINES" || len(l.parents) != 1 {
		t.Errorf("parents = %v", l.parents)
	}
	if _, err := parseLayout("| profiler | child table | parent table |\n| --- | --- | --- |\n| Foo | A | B |\n| Foo | A | C |\n"); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a child listed twice: err = %v", err)
	}
	if _, err := parseLayout("| file | what it specifies |\n"); err == nil {
		t.Error("no parent table: no error")
	}
}

// recordTB stands in for a testing.TB to observe specDir's Skip or Fatal.
type recordTB struct {
	testing.TB
	skipped, fatal string
}

type stopped struct{}

func (r *recordTB) Helper() {}
func (r *recordTB) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(stopped{})
}
func (r *recordTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}
func (r *recordTB) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	panic(stopped{})
}

// TestSpecDirMissing: without ../shared/spec the spec tests skip, saying
// why, except under CI=true, where they fail.
func TestSpecDirMissing(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "repo", "profilers")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "repo", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	run := func() *recordTB {
		r := &recordTB{TB: t}
		func() {
			defer func() {
				if v := recover(); v != nil {
					if _, ok := v.(stopped); !ok {
						panic(v)
					}
				}
			}()
			specDir(r)
		}()
		return r
	}
	t.Setenv("CI", "")
	if r := run(); r.skipped == "" || r.fatal != "" || !strings.Contains(r.skipped, "shared/spec") {
		t.Errorf("outside CI: skipped %q, fatal %q; want a skip naming ../shared/spec", r.skipped, r.fatal)
	}
	t.Setenv("CI", "true")
	if r := run(); r.fatal == "" || r.skipped != "" || !strings.Contains(r.fatal, "CI=true") {
		t.Errorf("under CI: skipped %q, fatal %q; want a failure", r.skipped, r.fatal)
	}
	// With the spec beside the repository it is found.
	spec := filepath.Join(root, "shared", "spec")
	if err := os.MkdirAll(spec, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, d := range specDocuments {
		if err := os.WriteFile(filepath.Join(spec, d[0]), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// Until the last document is there, the spec counts as missing.
		if i < len(specDocuments)-1 {
			t.Setenv("CI", "")
			if r := run(); r.skipped == "" {
				t.Errorf("with %d of %d documents: not skipped", i+1, len(specDocuments))
			}
		}
	}
	r := &recordTB{TB: t}
	if got := specDir(r); filepath.Clean(got) != spec {
		t.Errorf("specDir = %q, want %q", got, spec)
	}
}
