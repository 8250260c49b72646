package gate

import "strings"

// pathParts splits a file name into its components, taking \ as a
// separator too and dropping a drive ("C:"), "." and empty components.
func pathParts(name string) []string {
	parts := strings.FieldsFunc(strings.ReplaceAll(name, `\`, "/"), func(r rune) bool { return r == '/' })
	if len(parts) > 0 && len(parts[0]) == 2 && parts[0][1] == ':' {
		parts = parts[1:]
	}
	out := parts[:0]
	for _, p := range parts {
		if p != "." {
			out = append(out, p)
		}
	}
	return out
}

// commonTail is the number of trailing path components a and b share.
func commonTail(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// matcher pairs the paths of a diff with the source file names of a result
// set by the longest common path tail: a Go coverage profile names
// "example.com/m/calc/calc.go", LCOV "/home/ci/m/calc/calc.go", Cobertura
// "calc/calc.go", and the diff "calc/calc.go". A diff path and a file name
// are paired when each is the other's unique best match, sharing at least
// the base name: two files named util.go in different folders are told
// apart by their folders, and a tie pairs nothing.
type matcher struct {
	diff   []diffPath
	byBase map[string][]int // diff paths by base name: only they can share a tail with a name
}

type diffPath struct {
	parts  []string
	best   int    // longest tail shared with a name
	name   string // the name sharing it
	tie    bool   // another name shares as long a tail
	mutual bool   // name's own best match is this path, uniquely
}

func newMatcher(paths []string) *matcher {
	m := &matcher{byBase: map[string][]int{}}
	for i, p := range paths {
		parts := pathParts(p)
		m.diff = append(m.diff, diffPath{parts: parts})
		if len(parts) > 0 {
			base := parts[len(parts)-1]
			m.byBase[base] = append(m.byBase[base], i)
		}
	}
	return m
}

// add considers one file name of the result set (each name once).
func (m *matcher) add(name string) {
	parts := pathParts(name)
	if len(parts) == 0 {
		return
	}
	cands := m.byBase[parts[len(parts)-1]]
	tails := make([]int, len(cands))
	bestLen, bestAt, tie := 0, -1, false
	for k, i := range cands {
		tails[k] = commonTail(parts, m.diff[i].parts)
		switch {
		case tails[k] > bestLen:
			bestLen, bestAt, tie = tails[k], i, false
		case tails[k] == bestLen && tails[k] > 0:
			tie = true
		}
	}
	for k, i := range cands {
		d := &m.diff[i]
		switch {
		case tails[k] == 0:
		case tails[k] > d.best:
			d.best, d.name, d.tie = tails[k], name, false
			d.mutual = bestAt == i && !tie
		case tails[k] == d.best:
			d.tie = true
		}
	}
}

// match returns the file name paired with the i-th diff path, if any.
func (m *matcher) match(i int) (string, bool) {
	d := m.diff[i]
	if d.best == 0 || d.tie || !d.mutual {
		return "", false
	}
	return d.name, true
}
