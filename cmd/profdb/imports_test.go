package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// importLayers puts every package of the module on a layer: a package may
// import profdb packages of lower layers only, so the import graph reads
// bottom-up as docs/architecture.md draws it (TestArchitectureLayers
// writes that drawing from this table, with each entry's note from
// layerNotes). A pattern ending in "/*" stands for the packages below it.
var importLayers = []struct {
	layer    int
	patterns []string
}{
	{0, []string{"ddl", "optionerr", "internal/spool", "internal/srcroot", "internal/termtext",
		"internal/clitest", "internal/gittest", "internal/goldentest", "internal/launchtest", "internal/pproftest", "internal/srcroottest", "internal/tdstest"}},
	{1, []string{"dialects", "profilers", "internal/xmlscan", "internal/textout", "internal/gitexec"}},
	{2, []string{"dialects/*", "resultset"}},
	{3, []string{"profilers/*", "internal/runid", "internal/dbtest", "internal/resultsettest", "internal/plantest"}},
	{4, []string{"store", "input", "dialects/dialecttest", "internal/chromiumtest"}},
	{5, []string{"exporter", "input/*", "readback", "selector", "internal/inputtest"}},
	{6, []string{"exporter/*", "compare", "gate", "merge", "trend", "internal/exampletest", "internal/trendtest"}},
	{7, []string{"report"}},
	{8, []string{"serve"}},
	{9, []string{"cmd/*", "internal/historytest", "internal/servetest"}},
}

// layerNotes says in a few words what each entry of importLayers is, for
// the layer drawing of docs/architecture.md.
var layerNotes = map[string]string{
	"ddl":                    "the neutral schema model",
	"optionerr":              "errors naming Options fields",
	"internal/spool":         "rows in memory, then in a file",
	"internal/srcroot":       "files read under --source-root",
	"internal/termtext":      "text from data made safe",
	"internal/clitest":       "test kit: builds profdb",
	"internal/gittest":       "test kit: git repositories",
	"internal/goldentest":    "test kit: golden files",
	"internal/launchtest":    "test kit: wall time and peak RSS",
	"internal/pproftest":     "test kit: go tool pprof -top read",
	"internal/srcroottest":   "test kit: a source root attacked",
	"internal/tdstest":       "test kit: a TDS server that records",
	"dialects":               "the dialect registry",
	"profilers":              "the profiler registry",
	"internal/xmlscan":       "streaming XML reading",
	"internal/textout":       "figures as text",
	"internal/gitexec":       "the one way to run git",
	"dialects/*":             "one package per database",
	"resultset":              "the result-set model",
	"internal/plantest":      "test kit: statements and plans",
	"profilers/*":            "the plugins: tables and builders",
	"internal/runid":         "a run's identity",
	"internal/dbtest":        "test kit: test databases",
	"internal/resultsettest": "test kit: edge-value result sets",
	"store":                  "the database of result sets",
	"input":                  "format detection",
	"dialects/dialecttest":   "test kit: dialect conformance",
	"internal/chromiumtest":  "test kit: headless Chromium",
	"exporter":               "the write engine",
	"input/*":                "the readers",
	"readback":               "the read side",
	"selector":               "result sets named by selector",
	"internal/inputtest":     "test kit: coverage readers",
	"exporter/*":             "--sql-out scripts",
	"compare":                "two result sets side by side",
	"gate":                   "the CI gate (check)",
	"merge":                  "several result sets as one",
	"trend":                  "figures over a history of runs",
	"internal/exampletest":   "test kit: the examples' figures",
	"internal/trendtest":     "test kit: a history of runs",
	"report":                 "the HTML report",
	"serve":                  "the web server (serve)",
	"cmd/*":                  "the CLI",
	"internal/historytest":   "the history benchmark",
	"internal/servetest":     "test kit: every route of serve read",
}

// forbiddenImports are imports the layers would allow but the design does
// not: readers deliver to any resultset.Target and know no database, and
// what reads result sets back needs the store, never the write engine.
var forbiddenImports = map[string][]string{
	"input/*":     {"store", "exporter", "exporter/*", "dialects", "dialects/*"},
	"readback":    {"exporter", "exporter/*"},
	"gate":        {"exporter", "exporter/*"},
	"compare":     {"exporter", "exporter/*"},
	"profilers/*": {"dialects", "dialects/*", "exporter", "exporter/*"},
	"resultset":   {"dialects", "dialects/*"},
}

func matchPkg(pattern, pkg string) bool {
	if p, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(pkg, p+"/")
	}
	return pkg == pattern
}

// entryOf is the pattern of importLayers that holds pkg, and its layer: a
// package's own name wins over a pattern that covers it. It is "", -1 for
// a package of no layer.
func entryOf(pkg string) (string, int) {
	for _, exact := range []bool{true, false} {
		for _, l := range importLayers {
			for _, p := range l.patterns {
				if strings.HasSuffix(p, "/*") != exact && matchPkg(p, pkg) {
					return p, l.layer
				}
			}
		}
	}
	return "", -1
}

// modulePath is the module's path, with the slash that follows it.
const modulePath = "github.com/profdb/profdb/"

// listedPkg is a package of the module as go list sees it, its path and
// imports relative to the module.
type listedPkg struct {
	path    string
	name    string
	imports []string // the profdb packages its non-test files import
}

// listModule lists the module's packages with go list.
func listModule(t *testing.T) []listedPkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", modulePath+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		p := listedPkg{path: strings.TrimPrefix(fields[0], modulePath), name: fields[1]}
		for _, imp := range fields[2:] {
			if dep, ok := strings.CutPrefix(imp, modulePath); ok {
				p.imports = append(p.imports, dep)
			}
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list gave %d packages; want the whole module", len(pkgs))
	}
	return pkgs
}

// TestImportGraph checks the module's import graph against importLayers
// and forbiddenImports, with go list.
func TestImportGraph(t *testing.T) {
	for _, p := range listModule(t) {
		_, l := entryOf(p.path)
		if l < 0 {
			t.Errorf("package %s has no layer in importLayers", p.path)
			continue
		}
		for _, dep := range p.imports {
			if _, dl := entryOf(dep); dl >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must go down the layers", p.path, l, dep, dl)
			}
			for pat, bad := range forbiddenImports {
				if !matchPkg(pat, p.path) {
					continue
				}
				for _, b := range bad {
					if matchPkg(b, dep) {
						t.Errorf("%s imports %s, which %s must not", p.path, dep, pat)
					}
				}
			}
		}
	}
	for _, l := range importLayers {
		for _, p := range l.patterns {
			if layerNotes[p] == "" {
				t.Errorf("importLayers' %s has no note in layerNotes", p)
			}
		}
	}
}

// TestTestKitNames: a package of the module that the command does not
// need (no main package imports it, directly or not) serves tests only —
// a test kit — and says so in its name as Go's own do (httptest, iotest,
// fstest): it ends in "test". And no package the command needs is named
// so. (A library package that the command does not use would be API
// without a user in the tree; there is none, and this test keeps it so.)
func TestTestKitNames(t *testing.T) {
	pkgs := listModule(t)
	byPath := map[string]listedPkg{}
	var need []string
	for _, p := range pkgs {
		byPath[p.path] = p
		if p.name == "main" {
			need = append(need, p.path)
		}
	}
	product := map[string]bool{}
	for len(need) > 0 {
		p := need[len(need)-1]
		need = need[:len(need)-1]
		if product[p] {
			continue
		}
		product[p] = true
		need = append(need, byPath[p].imports...)
	}
	kits := 0
	for _, p := range pkgs {
		named := strings.HasSuffix(p.name, "test") && strings.HasSuffix(p.path, p.name)
		switch {
		case !product[p.path] && !named:
			t.Errorf("package %s (%s) serves tests only (no command imports it), but its name does not end in \"test\"", p.path, p.name)
		case product[p.path] && strings.HasSuffix(p.name, "test"):
			t.Errorf("package %s is a test kit by its name, but the command imports it", p.path)
		case !product[p.path]:
			kits++
		}
	}
	if kits < 10 {
		t.Errorf("%d test kits found; want the module's (dbtest, tdstest, …)", kits)
	}
}

// repoRoot is the repository's root, from cmd/profdb.
const repoRoot = "../.."

// architectureDoc reads docs/architecture.md.
func architectureDoc(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(repoRoot, "docs", "architecture.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// integrationPackages are the folders of the integration module that hold
// Go files, relative to the repository (integration, integration/galera).
func integrationPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(repoRoot, "integration"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, filepath.Dir(p))
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no package in integration/")
	}
	return out
}

// codeSpan is a name in backquotes.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestArchitectureLayout: the layout tables of docs/architecture.md
// ("Repository layout", down to the next section) name every package of
// the module and of the integration module in the first cell of exactly
// one row, and every path a first cell names exists.
func TestArchitectureLayout(t *testing.T) {
	path, doc := architectureDoc(t)
	text := string(doc)
	start := strings.Index(text, "\n## Repository layout\n")
	if start < 0 {
		t.Fatalf("%s: no section \"Repository layout\"", path)
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	rows := map[string]int{} // path → rows naming it
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| path ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		first, _, ok := strings.Cut(line[2:], " | ")
		if !ok {
			t.Errorf("%s: a layout row without cells: %s", path, line)
			continue
		}
		names := codeSpan.FindAllStringSubmatch(first, -1)
		if len(names) == 0 {
			t.Errorf("%s: a layout row names no path: %s", path, line)
		}
		for _, m := range names {
			name := strings.TrimSuffix(m[1], "/")
			rows[name]++
			if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(name))); err != nil {
				t.Errorf("%s: the layout names %s, which does not exist", path, m[1])
			}
		}
	}
	var pkgs []string
	for _, p := range listModule(t) {
		pkgs = append(pkgs, p.path)
	}
	pkgs = append(pkgs, integrationPackages(t)...)
	for _, p := range pkgs {
		switch n := rows[p]; {
		case n == 0:
			t.Errorf("%s: the layout has no row for package %s", path, p)
		case n > 1:
			t.Errorf("%s: the layout names package %s in %d rows", path, p, n)
		}
	}
}

// layersMarker stands in docs/architecture.md just before the layer
// drawing that TestArchitectureLayers writes.
const layersMarker = "<!-- The drawing below is cmd/profdb's importLayers and the imports go list finds; go test ./cmd/profdb -run TestArchitectureLayers -update writes it. -->"

// layerDrawing draws importLayers, top layer first: each entry with its
// note and the entries its packages import (not in their tests).
func layerDrawing(pkgs []listedPkg) string {
	deps := map[string]map[string]bool{}
	for _, p := range pkgs {
		e, _ := entryOf(p.path)
		for _, imp := range p.imports {
			if de, _ := entryOf(imp); de != e {
				if deps[e] == nil {
					deps[e] = map[string]bool{}
				}
				deps[e][de] = true
			}
		}
	}
	// Entries in drawing order: higher layers first, in importLayers' order.
	var order []string
	for i := len(importLayers) - 1; i >= 0; i-- {
		order = append(order, importLayers[i].patterns...)
	}
	nameW, noteW := 0, 0
	for _, e := range order {
		nameW, noteW = max(nameW, len(e)), max(noteW, len([]rune(layerNotes[e])))
	}
	const width = 120
	var b strings.Builder
	for i := len(importLayers) - 1; i >= 0; i-- {
		l := importLayers[i]
		for j, e := range l.patterns {
			num := ""
			if j == 0 {
				num = fmt.Sprint(l.layer)
			}
			head := fmt.Sprintf("%-3s%-*s  %s%s  → ", num, nameW, e, layerNotes[e], strings.Repeat(" ", noteW-len([]rune(layerNotes[e]))))
			var names []string
			for _, d := range order {
				if deps[e][d] {
					names = append(names, d)
				}
			}
			if len(names) == 0 {
				names = []string{"nothing of profdb"}
			}
			line := head
			indent := strings.Repeat(" ", len([]rune(head)))
			for k, n := range names {
				sep := ""
				if k < len(names)-1 {
					sep = ","
				}
				if k > 0 && len([]rune(line))+1+len(n)+len(sep) > width {
					b.WriteString(strings.TrimRight(line, " ") + "\n")
					line = indent
				} else if k > 0 {
					line += " "
				}
				line += n + sep
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestArchitectureLayers: the layer drawing of docs/architecture.md is
// importLayers as TestImportGraph holds the module to it, with what each
// entry imports as go list finds it; -update writes it.
func TestArchitectureLayers(t *testing.T) {
	path, doc := architectureDoc(t)
	want := layerDrawing(listModule(t))
	i := bytes.Index(doc, []byte(layersMarker+"\n\n```\n"))
	if i < 0 {
		t.Fatalf("%s: no line %q followed by an empty line and a drawing in ``` before it", path, layersMarker)
	}
	start := i + len(layersMarker) + len("\n\n```\n")
	n := bytes.Index(doc[start:], []byte("```\n"))
	if n < 0 {
		t.Fatalf("%s: the layer drawing does not end", path)
	}
	got := string(doc[start : start+n])
	if got == want {
		return
	}
	if *update {
		out := slices.Concat(doc[:start], []byte(want), doc[start+n:])
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the layer drawing differs from importLayers and the imports (go test ./cmd/profdb -run TestArchitectureLayers -update writes it):\n%s\nwant\n%s", path, got, want)
}
