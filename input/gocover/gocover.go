package gocover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/srcroot"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "gocover"

// CodeType is the COL_CODE_TYPE of every routine.
const CodeType = "Go"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Sniff reports whether head starts like a Go coverage profile: a first
// line starting with "mode: ".
func Sniff(head []byte) bool {
	return bytes.HasPrefix(head, []byte("mode: "))
}

// Read reads the Go coverage profile r (named name in messages), maps its
// blocks to the functions of the Go sources found through o.SourceRoot, and
// writes one light-coverage result set to t. Nothing is written when the
// profile is malformed or a source file is missing (unless o.SkipMissing,
// which skips such a file with a warning). A profile without a block (a
// "mode:" line alone, as go test writes for packages without tests) holds
// no result set: Read writes nothing and returns none.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	prof, err := parseProfile(ctx, r, name)
	if err != nil {
		return nil, err
	}
	if len(prof.order) == 0 {
		return nil, nil
	}
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, "") // addFunc adds each routine's lines with it
	defer b.Close()
	if err := build(ctx, b, prof, name, o); err != nil {
		return nil, err
	}
	res, err := b.Export(ctx, t, "go coverage: "+filepath.Base(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []resultset.Result{res}, nil
}

// build reads the sources of the profile into b.
func build(ctx context.Context, b *lightcoverage.Builder, prof *profile, name string, o input.Options) error {
	warnf := o.Warnf
	if warnf == nil {
		warnf = func(string, ...any) {}
	}
	src, err := findSources(o.SourceRoot)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer src.close()
	for _, file := range prof.order {
		if err := ctx.Err(); err != nil {
			return err
		}
		blocks := prof.files[file]
		pkg := packageOf(file)
		f, looked, err := src.read(ctx, file)
		var msg string
		var refused *srcroot.RefusedError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			msg = fmt.Sprintf("%s:%d: source file %s not found (looked for %s; module %s in %s)",
				name, prof.at[file], file, looked, src.modPath, src.root)
		case errors.As(err, &refused):
			msg = fmt.Sprintf("%s:%d: source file %s refused: %s (module %s in %s)",
				name, prof.at[file], file, refused.Reason, src.modPath, src.root)
		case err != nil:
			return err
		}
		if msg != "" {
			if o.SkipMissing {
				warnf("%s; skipped", msg)
				continue
			}
			return input.SourceNotFound(msg + "; give the module's folder as the source root, or skip missing files")
		}
		funcs, nlines, err := findFuncs(f.Path, pkg, f.Data)
		if err != nil {
			return fmt.Errorf("%s:%d: source of %s: %w", name, prof.at[file], file, err)
		}
		if end := maxEnd(blocks); end > nlines {
			warnf("%s: %s has %d lines but the profile has blocks up to line %d: the source does not match the profile",
				name, file, nlines, end)
		}
		for _, fe := range funcs {
			addFunc(b, fe, blocks, file, pkg, src.modPath)
		}
	}
	return nil
}

// addFunc adds one function and its lines to b.
//
// A block belongs to the function when its range overlaps the function's,
// by line and column, as `go tool cover -func` decides. The routine's count
// (COL_MARK) is the count of its first block by position: the block that
// starts at the function body's opening brace, whose counter runs on every
// call. Its lines are the lines that its blocks with at least one statement
// span, limited to the function's own lines; a line in several blocks gets
// the largest of their counts. Blocks without statements (the body of an
// empty function) give no lines, so an empty function has none, as it has
// no statements for `go tool cover -func`.
func addFunc(b *lightcoverage.Builder, fe funcExtent, blocks []block, file, pkg, module string) {
	var count int64
	first := true
	lines := map[int]int64{}
	for _, bl := range blocks {
		if bl.startLine > fe.endLine || (bl.startLine == fe.endLine && bl.startCol >= fe.endCol) {
			break // blocks are sorted: this and the rest start after the function
		}
		if bl.endLine < fe.startLine || (bl.endLine == fe.startLine && bl.endCol <= fe.startCol) {
			continue // ends before the function
		}
		if first {
			count, first = bl.count, false
		}
		if bl.numStmt == 0 {
			continue
		}
		// The block's lines are those where its statements start: not the
		// lines of braces, comments or a statement's continuation.
		for _, st := range fe.stmts {
			if !bl.holds(st) {
				continue
			}
			if c, ok := lines[st.line]; !ok || bl.count > c {
				lines[st.line] = bl.count
			}
		}
	}
	rt := b.AddRoutine(lightcoverage.RoutineInfo{
		Name:          fe.name,
		Class:         fe.class,
		Namespace:     pkg,
		Module:        module,
		SourceFile:    file,
		SourceLine:    int64(fe.startLine),
		CodeType:      CodeType,
		Count:         count,
		LineLevel:     true,
		SymbolMoniker: fe.moniker,
	})
	keys := make([]int, 0, len(lines))
	for l := range lines {
		keys = append(keys, l)
	}
	sort.Ints(keys)
	for _, l := range keys {
		rt.AddLine(int64(l), lines[l])
	}
}

func maxEnd(bs []block) int {
	m := 0
	for _, b := range bs {
		m = max(m, b.endLine)
	}
	return m
}

// holds reports whether a statement starting at p lies in the block.
func (bl block) holds(p srcPos) bool {
	after := p.line > bl.startLine || (p.line == bl.startLine && p.col >= bl.startCol)
	before := p.line < bl.endLine || (p.line == bl.endLine && p.col < bl.endCol)
	return after && before
}
