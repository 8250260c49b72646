package gocover

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/srcroot"
)

// sources maps the import-path file names of a profile to files on disk,
// read only under the module's folder (package srcroot).
type sources struct {
	root    string // the folder holding go.mod
	modPath string // its module path
	files   *srcroot.Root
}

// maxSource is the largest Go source read: a larger one is refused as
// srcroot refuses files (generated tables may be large, never this large).
const maxSource = 64 << 20

// findSources finds the module of dir (or of the current folder when dir
// is ""): the nearest go.mod in dir or above it.
func findSources(dir string) (*sources, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("source root: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("source root %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("source root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("source root %s is not a folder", dir)
	}
	for d := abs; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mp := modulePath(data)
			if mp == "" {
				return nil, fmt.Errorf("%s: no module directive", filepath.Join(d, "go.mod"))
			}
			files, err := srcroot.Open(d, srcroot.Options{MaxSize: maxSource})
			if err != nil {
				return nil, err
			}
			return &sources{root: d, modPath: mp, files: files}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("source root: %w", err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, input.SourceNotFound(fmt.Sprintf("no go.mod in %s or any folder above it: give the module's folder as the source root", abs))
		}
		d = parent
	}
}

// modulePath returns the path of the module directive of a go.mod file.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"' && rest[0] != '`') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if u, err := strconv.Unquote(rest); err == nil {
			return u
		}
		return rest
	}
	return ""
}

// close releases the module's folder.
func (s *sources) close() error { return s.files.Close() }

// read finds and reads the Go file of a profile file name under the module
// root: an import path under the module path there, else under vendor/; an
// absolute name (go test names files outside any module so) by its tail
// (srcroot.Root.Find). The error is fs.ErrNotExist when there is no such
// file, srcroot.ErrRefused when it is refused; looked says where it looked.
func (s *sources) read(ctx context.Context, name string) (f *srcroot.File, looked string, err error) {
	if srcroot.IsAbs(name) {
		f, err = s.files.Find(ctx, name)
		return f, "the tails of its path under " + s.root, err
	}
	var tried []string
	rels := []string{path.Join("vendor", name)}
	if rel, ok := strings.CutPrefix(name, s.modPath+"/"); ok {
		rels = append([]string{rel}, rels...)
	}
	for _, rel := range rels {
		tried = append(tried, s.files.Path(rel))
		if f, err = s.files.ReadFile(ctx, rel); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return f, strings.Join(tried, " or "), err
}

// funcExtent is a function declared in a Go file.
type funcExtent struct {
	name, class, moniker string
	startLine, startCol  int
	endLine, endCol      int
	stmts                []srcPos // where its statements start, closures' included
}

// srcPos is a line and column in a source file.
type srcPos struct{ line, col int }

// statements returns where the statements of body start, as `go tool
// cover` counts them: those of every statement list, and the if of an
// `else if`, which cover counts as a statement of a block of its own (from
// the end of the if's body to the else-if's opening brace), in source
// order.
func statements(fset *token.FileSet, body *ast.BlockStmt) []srcPos {
	var out []srcPos
	add := func(list ...ast.Stmt) {
		for _, s := range list {
			p := fset.Position(s.Pos())
			out = append(out, srcPos{p.Line, p.Column})
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BlockStmt:
			add(x.List...)
		case *ast.CaseClause:
			add(x.Body...)
		case *ast.CommClause:
			add(x.Body...)
		case *ast.IfStmt:
			if elif, ok := x.Else.(*ast.IfStmt); ok {
				add(elif)
			}
		}
		return true
	})
	slices.SortFunc(out, func(a, b srcPos) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
	return out
}

// findFuncs parses a Go file, src read from filename, and returns its
// functions with bodies (as `go tool cover -func` counts them: declarations
// without a body, that is assembly functions, are left out; function
// literals belong to the function around them), in source order, and the
// file's number of lines. A syntax error names the file, line and column,
// and nothing of its text.
func findFuncs(filename, pkg string, src []byte) ([]funcExtent, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, 0, fmt.Errorf("%s: not Go source (a syntax error)", list[0].Pos)
		}
		return nil, 0, fmt.Errorf("%s: not Go source", filename)
	}
	var out []funcExtent
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		fe := funcExtent{name: fd.Name.Name, startLine: start.Line, startCol: start.Column, endLine: end.Line, endCol: end.Column,
			stmts: statements(fset, fd.Body)}
		fe.moniker = pkg + "." + fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			var ptr, generic bool
			fe.class, ptr, generic = receiver(fd.Recv.List[0].Type)
			recv := fe.class
			if generic {
				recv += "[...]"
			}
			if ptr {
				recv = "(*" + recv + ")"
			}
			fe.moniker = pkg + "." + recv + "." + fd.Name.Name
		}
		out = append(out, fe)
	}
	return out, fset.File(file.Pos()).LineCount(), nil
}

// receiver returns the type name of a receiver, whether it is a pointer and
// whether the type is generic.
func receiver(e ast.Expr) (name string, ptr, generic bool) {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			ptr = true
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			generic = true
			e = x.X
		case *ast.IndexListExpr:
			generic = true
			e = x.X
		case *ast.Ident:
			return x.Name, ptr, generic
		default:
			return "", ptr, generic
		}
	}
}

// packageOf returns the import path of the package of a profile file name.
func packageOf(name string) string {
	return path.Dir(filepath.ToSlash(name))
}
