package dialects_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/mysql"
	"github.com/profdb/profdb/dialects/postgres"
	"github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/dialects/sqlserver"
)

func is[T any](d dialects.Dialect) bool { _, ok := d.(T); return ok }

// capabilities are the optional interfaces a dialect may implement, by
// the name the table in doc.go gives them.
var capabilities = map[string]func(dialects.Dialect) bool{
	"AccessDSN":          is[dialects.AccessDSN],
	"BulkLoader":         is[dialects.BulkLoader],
	"Collator":           is[dialects.Collator],
	"ColumnAdder":        is[dialects.ColumnAdder],
	"Connector":          is[dialects.Connector],
	"Distributor":        is[dialects.Distributor],
	"Explainer":          is[dialects.Explainer],
	"FewSetsPlanner":     is[dialects.FewSetsPlanner],
	"IndexSplitter":      is[dialects.IndexSplitter],
	"InstReader":         is[dialects.InstReader],
	"LockWaiter":         is[dialects.LockWaiter],
	"LongRowTuner":       is[dialects.LongRowTuner],
	"Locker":             is[dialects.Locker],
	"Namespaces":         is[dialects.Namespaces],
	"NewTableCreator":    is[dialects.NewTableCreator],
	"OpenExplainer":      is[dialects.OpenExplainer],
	"QueryKiller":        is[dialects.QueryKiller],
	"ReadOnlyTeller":     is[dialects.ReadOnlyTeller],
	"Retrier":            is[dialects.Retrier],
	"RowKeyer":           is[dialects.RowKeyer],
	"RowLimiter":         is[dialects.RowLimiter],
	"Scripter":           is[dialects.Scripter],
	"StaleSnapshots":     is[dialects.StaleSnapshots],
	"StatsRefresher":     is[dialects.StatsRefresher],
	"TablesInspector":    is[dialects.TablesInspector],
	"TempSchemas":        is[dialects.TempSchemas],
	"TxProber":           is[dialects.TxProber],
	"ddl.BatchSeparator": is[ddl.BatchSeparator],
	"ddl.Preamble":       is[ddl.Preamble],
}

// notCapabilities are the interfaces of package dialects that no dialect
// implements as an option: the contract itself and the shapes it uses.
var notCapabilities = []string{"Dialect", "DBTX", "Rows", "InstRows", "ScriptForm"}

// TestCapabilities holds the table of package dialects' documentation to
// the code: Dialect has at most 12 methods; every interface of the package
// (and ddl's two) that a dialect may implement has a row; each row's marks
// are what the four dialects implement; and each capability has a caller
// outside the dialects' packages, in the product or a test kit.
func TestCapabilities(t *testing.T) {
	if n := reflect.TypeFor[dialects.Dialect]().NumMethod(); n > 12 {
		t.Errorf("dialects.Dialect has %d methods; the contract is at most 12: make what only some dialects have a capability", n)
	}

	// Every interface of the package is a capability or the contract.
	declared := interfaces(t, ".")
	for _, name := range []string{"BatchSeparator", "Preamble"} {
		if !slices.Contains(interfaces(t, "../ddl"), name) {
			t.Errorf("package ddl declares no %s", name)
		}
	}
	for _, name := range declared {
		if _, ok := capabilities[name]; !ok && !slices.Contains(notCapabilities, name) {
			t.Errorf("interface dialects.%s is neither in the capability table of doc.go nor the contract", name)
		}
	}

	// The table's marks are what the dialects implement.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^//\t(\S+)\s+([x-])\s+([x-])\s+([x-])\s+([x-])\s+\S`)
	header := regexp.MustCompile(`(?m)^//\tcapability\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s`).FindStringSubmatch(string(doc))
	if header == nil {
		t.Fatal("doc.go has no capability table")
	}
	byName := map[string]dialects.Dialect{}
	for _, d := range []dialects.Dialect{sqlite.Dialect{}, postgres.Dialect{}, mysql.Dialect{}, sqlserver.Dialect{}} {
		byName[d.Name()] = d
	}
	rows := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		name := m[1]
		has, ok := capabilities[name]
		if !ok {
			t.Errorf("doc.go's table has a row for %s, which is no capability", name)
			continue
		}
		rows[name] = true
		for i, mark := range m[2:6] {
			d, ok := byName[header[i+1]]
			if !ok {
				t.Fatalf("doc.go's table has a column %q, which is no dialect", header[i+1])
			}
			if want := has(d); (mark == "x") != want {
				t.Errorf("doc.go: %s for %s is marked %q, but the dialect implements it: %v", name, d.Name(), mark, want)
			}
		}
	}
	for name := range capabilities {
		if !rows[name] {
			t.Errorf("doc.go's table has no row for %s", name)
		}
	}

	// Each capability has a caller outside the dialects' packages.
	callers := callersOf(t, "..")
	for name := range capabilities {
		qualified := name
		if !strings.Contains(name, ".") {
			qualified = "dialects." + name
		}
		if !callers[qualified] {
			t.Errorf("%s has no caller outside the dialects' own packages: drop it, or use it", qualified)
		}
	}
}

// interfaces returns the exported interface types the package in dir
// declares.
func interfaces(t *testing.T, dir string) []string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.IsExported() {
					if _, ok := ts.Type.(*ast.InterfaceType); ok {
						names = append(names, ts.Name.Name)
					}
				}
				return true
			})
		}
	}
	return names
}

// callersOf returns the qualified names (dialects.X, ddl.X) that Go files
// under root use, leaving out the dialect packages themselves (whose
// var _ checks are no callers) and packages dialects and ddl, which
// declare them.
func callersOf(t *testing.T, root string) map[string]bool {
	t.Helper()
	own := map[string]bool{}
	for _, d := range []string{"dialects", "ddl", "dialects/sqlite", "dialects/postgres", "dialects/mysql", "dialects/sqlserver"} {
		own[filepath.Join(root, d)] = true
	}
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if name := e.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || own[filepath.Dir(path)] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "dialects" || x.Name == "ddl") {
					used[x.Name+"."+sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}
