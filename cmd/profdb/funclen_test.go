package main

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCodeLines is the most code lines a function of the command line may
// have: the command line maps flags, calls the library, words its errors
// and picks the exit status (docs/architecture.md); a longer function does
// work that belongs in a library, or wants splitting.
const maxCodeLines = 80

// codeLines are the lines of a Go file that hold code: a token other than
// a comment starts on them or spans them (a raw string's lines), and they
// are not blank.
func codeLines(fset *token.FileSet, name string, src []byte) map[int]bool {
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0) // comments are skipped
	lines := strings.Split(string(src), "\n")
	code := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end: no code of its own
		}
		from := file.Line(pos)
		to := from + strings.Count(lit, "\n")
		for l := from; l <= to; l++ {
			if strings.TrimSpace(lines[l-1]) != "" {
				code[l] = true
			}
		}
	}
	return code
}

// TestFunctionLength fails naming every function of the command line (its
// non-test files) whose body, between its braces, has more than
// maxCodeLines code lines (blank and comment lines are not counted; a
// function literal's lines count in the function that holds it).
func TestFunctionLength(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked, longest := 0, ""
	most := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		code := codeLines(token.NewFileSet(), name, src)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			n := 0
			for l := fset.Position(fn.Body.Lbrace).Line + 1; l < fset.Position(fn.Body.Rbrace).Line; l++ {
				if code[l] {
					n++
				}
			}
			if n > most {
				most, longest = n, funcName(fn)
			}
			if n > maxCodeLines {
				t.Errorf("%s: %s has %d code lines, more than %d: move its work into a library, or split it", fset.Position(fn.Pos()), funcName(fn), n, maxCodeLines)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d functions: the files of cmd/profdb were not found", checked)
	}
	t.Logf("%d functions; the longest, %s, has %d code lines", checked, longest, most)
}

// funcName is a function's name as a reader looks for it: "run",
// "(*exportOptions).run".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	if g, ok := typ.(*ast.IndexExpr); ok {
		typ = g.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return "(" + star + id.Name + ")." + fn.Name.Name
	}
	return fn.Name.Name
}
