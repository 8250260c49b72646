package gocover

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxLine is the longest profile line accepted.
const maxLine = 1 << 20

// block is one counter block of a profile: a source range, its number of
// statements and its count.
type block struct {
	startLine, startCol int
	endLine, endCol     int
	numStmt             int64
	count               int64
	at                  int // profile line it came from (the first one, after merging)
}

// profile is a parsed coverage profile.
type profile struct {
	mode  string             // set, count or atomic
	files map[string][]block // by file name as written, sorted and merged
	order []string           // file names, sorted
	at    map[string]int     // profile line of each file's first block
}

// parseProfile reads a profile in the format `go test -coverprofile` writes:
//
//	mode: set|count|atomic
//	file:startLine.startCol,endLine.endCol numStmts count
//
// name prefixes error messages, which give FILE:LINE. Further "mode:" lines
// with the same mode (profiles concatenated by hand) are skipped; a
// different mode is an error. Blank lines and a trailing CR are ignored.
// Duplicate blocks (same file and range, as -coverpkg profiles have) are
// merged the way `go tool cover` merges them: in set mode the larger count
// wins, in count and atomic mode the counts add up; their statement counts
// must agree.
func parseProfile(ctx context.Context, r io.Reader, name string) (*profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	p := &profile{files: map[string][]block{}, at: map[string]int{}}
	lineNo := 0
	for sc.Scan() {
		lineNo++
		if lineNo%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line := strings.TrimSuffix(sc.Text(), "\r")
		if mode, ok := strings.CutPrefix(line, "mode: "); ok {
			mode = strings.TrimSpace(mode)
			switch {
			case p.mode == "" && (mode == "set" || mode == "count" || mode == "atomic"):
				p.mode = mode
			case p.mode == "":
				return nil, fmt.Errorf("%s:%d: unknown coverage mode %q (want set, count or atomic)", name, lineNo, mode)
			case mode != p.mode:
				return nil, fmt.Errorf("%s:%d: mode changes from %s to %q", name, lineNo, p.mode, mode)
			}
			continue
		}
		if p.mode == "" {
			return nil, fmt.Errorf("%s:%d: not a Go coverage profile: the first line must be \"mode: set|count|atomic\", got %s", name, lineNo, quoteShort(line))
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		file, b, err := parseBlock(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		b.at = lineNo
		if _, seen := p.files[file]; !seen {
			p.order = append(p.order, file)
			p.at[file] = lineNo
		}
		p.files[file] = append(p.files[file], b)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, lineNo+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if p.mode == "" {
		return nil, fmt.Errorf("%s:1: not a Go coverage profile: empty, no \"mode:\" line", name)
	}
	slices.Sort(p.order)
	for _, f := range p.order {
		merged, err := mergeBlocks(p.files[f], p.mode)
		if err != nil {
			return nil, fmt.Errorf("%s:%w", name, err)
		}
		p.files[f] = merged
	}
	return p, nil
}

// parseBlock parses "file:startLine.startCol,endLine.endCol numStmts count".
// It splits from the right, so file names may hold spaces and colons.
func parseBlock(line string) (string, block, error) {
	var b block
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return "", b, fmt.Errorf("malformed block %s: want file:line.col,line.col statements count", quoteShort(line))
	}
	count, err := number(line[sp+1:], "count")
	if err != nil {
		return "", b, err
	}
	rest := line[:sp]
	sp = strings.LastIndexByte(rest, ' ')
	if sp < 0 {
		return "", b, fmt.Errorf("malformed block %s: want file:line.col,line.col statements count", quoteShort(line))
	}
	nstmt, err := number(rest[sp+1:], "statement count")
	if err != nil {
		return "", b, err
	}
	rest = rest[:sp]
	colon := strings.LastIndexByte(rest, ':')
	if colon <= 0 {
		return "", b, fmt.Errorf("malformed block %s: no file name before the range", quoteShort(line))
	}
	file, rng := rest[:colon], rest[colon+1:]
	start, end, ok := strings.Cut(rng, ",")
	if !ok {
		return "", b, fmt.Errorf("malformed range %s: want line.col,line.col", quoteShort(rng))
	}
	if b.startLine, b.startCol, err = position(start); err != nil {
		return "", b, err
	}
	if b.endLine, b.endCol, err = position(end); err != nil {
		return "", b, err
	}
	if b.endLine < b.startLine || (b.endLine == b.startLine && b.endCol < b.startCol) {
		return "", b, fmt.Errorf("range %s ends before it starts", rng)
	}
	b.numStmt, b.count = nstmt, count
	return file, b, nil
}

// position parses "line.col"; both are at least 1.
func position(s string) (line, col int, err error) {
	l, c, ok := strings.Cut(s, ".")
	if !ok {
		return 0, 0, fmt.Errorf("malformed position %s: want line.col", quoteShort(s))
	}
	ln, err := number(l, "line")
	if err != nil {
		return 0, 0, err
	}
	cn, err := number(c, "column")
	if err != nil {
		return 0, 0, err
	}
	if ln < 1 || cn < 1 {
		return 0, 0, fmt.Errorf("position %s: lines and columns start at 1", s)
	}
	if ln > math.MaxInt32 || cn > math.MaxInt32 {
		return 0, 0, fmt.Errorf("position %s out of range", s)
	}
	return int(ln), int(cn), nil
}

// number parses a non-negative decimal integer (digits only).
func number(s, what string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("missing %s", what)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%s %s is not a non-negative integer", what, quoteShort(s))
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %s out of range", what, quoteShort(s))
	}
	return n, nil
}

// mergeBlocks sorts blocks by range and merges those with the same range.
// The error starts with the profile line number.
func mergeBlocks(bs []block, mode string) ([]block, error) {
	slices.SortStableFunc(bs, func(x, y block) int {
		return cmp.Or(cmp.Compare(x.startLine, y.startLine), cmp.Compare(x.startCol, y.startCol),
			cmp.Compare(x.endLine, y.endLine), cmp.Compare(x.endCol, y.endCol))
	})
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.startLine == b.startLine && last.startCol == b.startCol && last.endLine == b.endLine && last.endCol == b.endCol {
				if last.numStmt != b.numStmt {
					return nil, fmt.Errorf("%d: block %d.%d,%d.%d has %d statements here but %d on line %d",
						b.at, b.startLine, b.startCol, b.endLine, b.endCol, b.numStmt, last.numStmt, last.at)
				}
				if mode == "set" {
					last.count = max(last.count, b.count)
				} else if last.count > math.MaxInt64-b.count {
					return nil, fmt.Errorf("%d: count of block %d.%d,%d.%d overflows when added to line %d's",
						b.at, b.startLine, b.startCol, b.endLine, b.endCol, last.at)
				} else {
					last.count += b.count
				}
				continue
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// quoteShort quotes s for a message, cut to 60 bytes.
func quoteShort(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
