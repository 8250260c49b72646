package main

import (
	"os/exec"
	"strings"
	"testing"
)

// importLayers puts every package of the module on a layer: a package may
// import profdb packages of lower layers only, so the import graph reads
// bottom-up as docs/architecture.md draws it. A pattern ending in "/*"
// stands for the packages below it.
var importLayers = []struct {
	layer    int
	patterns []string
}{
	{0, []string{"ddl", "optionerr", "internal/clitest", "internal/goldentest", "internal/launchtest", "internal/pproftest", "internal/spool", "internal/srcroot", "internal/srcroottest", "internal/gittest", "internal/tdstest", "internal/termtext"}},
	{1, []string{"dialects", "profilers", "internal/xmlscan", "internal/textout", "internal/gitexec"}},
	{2, []string{"dialects/*", "resultset", "internal/plantest"}},
	{3, []string{"profilers/*", "internal/dbtest", "internal/runid", "internal/resultsettest"}},
	{4, []string{"store", "input", "dialects/dialecttest"}},
	{5, []string{"exporter", "input/*", "readback", "selector", "internal/inputtest"}},
	{6, []string{"exporter/*", "compare", "gate", "merge", "trend", "internal/exampletest", "internal/trendtest"}},
	{7, []string{"report"}},
	{8, []string{"cmd/*", "internal/historytest"}},
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

// TestImportGraph checks the module's import graph against importLayers
// and forbiddenImports, with go list.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/profdb/profdb/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// A package's own name wins over a pattern that covers it.
	layerOf := func(pkg string) int {
		for _, exact := range []bool{true, false} {
			for _, l := range importLayers {
				for _, p := range l.patterns {
					if strings.HasSuffix(p, "/*") != exact && matchPkg(p, pkg) {
						return l.layer
					}
				}
			}
		}
		return -1
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		l := layerOf(pkg)
		if l < 0 {
			t.Errorf("package %s has no layer in importLayers", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if dl := layerOf(dep); dl >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must go down the layers", pkg, l, dep, dl)
			}
			for pat, bad := range forbiddenImports {
				if !matchPkg(pat, pkg) {
					continue
				}
				for _, b := range bad {
					if matchPkg(b, dep) {
						t.Errorf("%s imports %s, which %s must not", pkg, dep, pat)
					}
				}
			}
		}
	}
	if seen < 20 {
		t.Errorf("go list gave %d packages; want the whole module", seen)
	}
}
