package pprof

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// fn is one routine: a function of the profile, told apart by name, file,
// start line and module.
type fn struct {
	name, class, namespace string // COL_ROUTINE_NAME, COL_CLASS_NAME, COL_NAMESPACE
	full                   string // the name as go tool pprof prints it: COL_SYMBOL_MONIKER
	module, file           string
	start                  int64   // Function.start_line, else the first line sampled
	lines                  []int64 // the distinct lines the profile's locations name, sorted
}

type fnKey struct {
	name, file, module string
	start              int64
}

// frame is one routine on a stack, at a line (0 when unknown).
type frame struct {
	fn   int32
	line int64
}

// symtab turns locations into frames and collects the routines.
type symtab struct {
	fns  []fn
	idx  map[fnKey]int32
	locs map[uint64][]frame // by location ID: leaf (innermost inlined) first
}

func newSymtab(p *profile.Profile) *symtab {
	s := &symtab{idx: map[fnKey]int32{}, locs: make(map[uint64][]frame, len(p.Location))}
	for _, loc := range p.Location {
		s.locs[loc.ID] = s.frames(loc)
	}
	for i := range s.fns {
		f := &s.fns[i]
		slices.Sort(f.lines)
		f.lines = slices.Compact(f.lines)
		if f.start == 0 && len(f.lines) > 0 && f.lines[0] > 0 {
			f.start = f.lines[0]
		}
	}
	return s
}

// frames returns the frames of a location, innermost inlined function
// first, as the location's lines are ordered. A location without lines
// (not symbolized) is one routine named by its address.
func (s *symtab) frames(loc *profile.Location) []frame {
	module := ""
	if loc.Mapping != nil {
		module = filepath.Base(loc.Mapping.File)
		if module == "." || module == string(filepath.Separator) {
			module = ""
		}
	}
	if len(loc.Line) == 0 {
		name := fmt.Sprintf("0x%x", loc.Address)
		return []frame{{fn: s.routine(name, "", 0, module)}}
	}
	out := make([]frame, 0, len(loc.Line))
	for _, l := range loc.Line {
		var name, file string
		var start int64
		if l.Function != nil {
			name, file, start = l.Function.Name, l.Function.Filename, l.Function.StartLine
		}
		id := s.routine(name, file, start, module)
		if l.Line > 0 {
			s.fns[id].lines = append(s.fns[id].lines, l.Line)
		}
		out = append(out, frame{fn: id, line: l.Line})
	}
	return out
}

func (s *symtab) routine(name, file string, start int64, module string) int32 {
	k := fnKey{name, file, module, start}
	if id, ok := s.idx[k]; ok {
		return id
	}
	id := int32(len(s.fns))
	ns, class, short := splitGoName(name)
	s.fns = append(s.fns, fn{name: short, class: class, namespace: ns, full: name, module: module, file: file, start: start})
	s.idx[k] = id
	return id
}

// stack returns the frames of sample number n (from 1), leaf first,
// appended to buf; a stack deeper than maxDepth is an error.
func (s *symtab) stack(buf []frame, smp *profile.Sample, n int) ([]frame, error) {
	buf = buf[:0]
	for _, loc := range smp.Location {
		buf = append(buf, s.locs[loc.ID]...)
	}
	if len(buf) > maxDepth {
		return buf, fmt.Errorf("sample %d: a stack of %d frames, more than %d", n, len(buf), maxDepth)
	}
	return buf, nil
}

// closure matches the name parts the Go compiler gives function literals,
// go and defer wrappers and numbered init functions.
var closure = regexp.MustCompile(`^(func|gowrap|deferwrap)?[0-9]+$`)

// splitGoName splits a Go symbol into package path, receiver type and the
// rest: "net/http.(*Server).Serve" gives "net/http", "Server", "Serve";
// "main.work.func1" gives "main", "", "work.func1". A name that is not a Go
// symbol (no package part, as for C functions) is returned whole.
func splitGoName(s string) (pkg, class, rest string) {
	head := s
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i] // type arguments may hold slashes and dots
	}
	slash := strings.LastIndexByte(head, '/')
	dot := strings.IndexByte(head[slash+1:], '.')
	if dot < 0 {
		return "", "", s
	}
	cut := slash + 1 + dot
	pkg, rest = s[:cut], s[cut+1:]
	if pkg == "" || rest == "" {
		return "", "", s
	}
	if strings.HasPrefix(rest, "(*") {
		if i := strings.Index(rest, ")."); i > 2 {
			return pkg, rest[2:i], rest[i+2:]
		}
		return pkg, "", rest
	}
	first, next, ok := cutOutside(rest)
	if !ok || first == "" || next == "" || closure.MatchString(first) {
		return pkg, "", rest
	}
	method, _, _ := strings.Cut(next, ".")
	if closure.MatchString(method) || first == "glob" || strings.HasPrefix(next, ".") {
		return pkg, "", rest // F.func1, glob..func1
	}
	return pkg, first, next
}

// cutOutside cuts s at its first dot outside square brackets (type
// arguments).
func cutOutside(s string) (before, after string, found bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}
