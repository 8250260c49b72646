package lcov

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine is the longest tracefile line accepted.
const maxLine = 1 << 20

// function is a function of a source file: an FN record (or an FNA alias of
// an FNL record) with its FNDA counts.
type function struct {
	name       string
	start, end int64 // end 0: not given
	count      int64
	at         int // tracefile line that defined it
	order      int // definition order within its file
}

// sourceFile gathers every record of one SF path (records of the same path,
// say from several tests, are merged).
type sourceFile struct {
	name   string
	at     int // line of its first SF record
	funcs  []*function
	byName map[string]*function
	fnda   map[string]int64 // FNDA counts by function name
	fndaAt map[string]int   // line of the first FNDA per name
	lines  map[int64]int64  // DA counts by line
}

// trace is a parsed tracefile.
type trace struct {
	files     []*sourceFile // in order of first appearance
	tests     []string      // distinct non-empty TN names, in order
	negatives int           // negative counts read (taken as 0)
	negAt     int           // line of the first
	unknown   map[string]int
	unknownAt []string // unknown record types, in order of appearance
}

// hasLines reports whether the tracefile has a DA record.
func (tr *trace) hasLines() bool {
	for _, f := range tr.files {
		if len(f.lines) > 0 {
			return true
		}
	}
	return false
}

// alias is an FNA record waiting for the end of its record to be matched to
// its FNL.
type alias struct {
	index int64
	count int64
	name  string
	at    int
}

// extent is an FNL record.
type extent struct {
	start, end int64
	at         int
}

// parseTrace reads an LCOV tracefile. Error messages start with name:LINE.
func parseTrace(ctx context.Context, r io.Reader, name string) (*trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	tr := &trace{unknown: map[string]int{}}
	files := map[string]*sourceFile{}
	tests := map[string]bool{}
	var cur *sourceFile
	curAt := 0
	var fnl map[int64]extent
	var fna []alias
	lineNo := 0
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, lineNo, fmt.Sprintf(format, args...))
	}
	count := func(s, what string) (int64, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, errf("%s %s is not an integer", what, quoteShort(s))
		}
		if n < 0 {
			if tr.negatives == 0 {
				tr.negAt = lineNo
			}
			tr.negatives++
			n = 0
		}
		return n, nil
	}
	lineNum := func(s, what string) (int64, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return 0, errf("%s %s is not a line number", what, quoteShort(s))
		}
		return n, nil
	}
	for sc.Scan() {
		lineNo++
		if lineNo%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if line == "" {
			continue
		}
		if line == "end_of_record" {
			if cur == nil {
				return nil, errf("end_of_record without SF")
			}
			if err := resolveAliases(cur, fnl, fna, name); err != nil {
				return nil, err
			}
			cur, fnl, fna = nil, nil, nil
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, errf("malformed record %s: want KEY:VALUE or end_of_record", quoteShort(line))
		}
		switch key {
		case "TN":
			if val != "" && !tests[val] {
				tests[val] = true
				tr.tests = append(tr.tests, val)
			}
			continue
		case "SF":
			if cur != nil {
				return nil, errf("SF:%s before the end_of_record of SF:%s (line %d)", val, cur.name, curAt)
			}
			if val == "" {
				return nil, errf("SF without a file name")
			}
			cur, curAt = files[val], lineNo
			if cur == nil {
				cur = &sourceFile{name: val, at: lineNo, byName: map[string]*function{},
					fnda: map[string]int64{}, fndaAt: map[string]int{}, lines: map[int64]int64{}}
				files[val] = cur
				tr.files = append(tr.files, cur)
			}
			fnl = map[int64]extent{}
			continue
		}
		if cur == nil {
			return nil, errf("%s record outside an SF ... end_of_record section", quoteShort(key))
		}
		switch key {
		case "FN": // FN:<start>,[<end>,]<name>
			s, rest, ok := strings.Cut(val, ",")
			if !ok {
				return nil, errf("malformed FN record %s: want FN:line,[end line,]name", quoteShort(line))
			}
			start, err := lineNum(s, "FN start line")
			if err != nil {
				return nil, err
			}
			var end int64
			if e, n, ok := strings.Cut(rest, ","); ok && isDigits(e) {
				if end, err = lineNum(e, "FN end line"); err != nil {
					return nil, err
				}
				rest = n
			}
			if err := addFunc(cur, rest, start, end, lineNo, errf); err != nil {
				return nil, err
			}
		case "FNDA": // FNDA:<count>,<name>
			c, fname, ok := strings.Cut(val, ",")
			if !ok || fname == "" {
				return nil, errf("malformed FNDA record %s: want FNDA:count,name", quoteShort(line))
			}
			n, err := count(c, "FNDA count")
			if err != nil {
				return nil, err
			}
			addCount(cur, fname, n, lineNo)
		case "FNL": // FNL:<index>,<start>[,<end>] (lcov 2.2)
			parts := strings.Split(val, ",")
			if len(parts) < 2 || len(parts) > 3 {
				return nil, errf("malformed FNL record %s: want FNL:index,line[,end line]", quoteShort(line))
			}
			idx, err := strconv.ParseInt(parts[0], 10, 64)
			if err != nil || idx < 0 {
				return nil, errf("FNL index %s is not a non-negative integer", quoteShort(parts[0]))
			}
			ext := extent{at: lineNo}
			if ext.start, err = lineNum(parts[1], "FNL start line"); err != nil {
				return nil, err
			}
			if len(parts) == 3 {
				if ext.end, err = lineNum(parts[2], "FNL end line"); err != nil {
					return nil, err
				}
				if ext.end < ext.start {
					return nil, errf("function ends (line %d) before it starts (line %d)", ext.end, ext.start)
				}
			}
			if _, dup := fnl[idx]; dup {
				return nil, errf("FNL index %d given twice", idx)
			}
			fnl[idx] = ext
		case "FNA": // FNA:<index>,<count>,<name> (lcov 2.2)
			parts := strings.SplitN(val, ",", 3)
			if len(parts) != 3 || parts[2] == "" {
				return nil, errf("malformed FNA record %s: want FNA:index,count,name", quoteShort(line))
			}
			idx, err := strconv.ParseInt(parts[0], 10, 64)
			if err != nil || idx < 0 {
				return nil, errf("FNA index %s is not a non-negative integer", quoteShort(parts[0]))
			}
			n, err := count(parts[1], "FNA count")
			if err != nil {
				return nil, err
			}
			fna = append(fna, alias{index: idx, count: n, name: parts[2], at: lineNo})
		case "DA": // DA:<line>,<count>[,<checksum>]
			parts := strings.SplitN(val, ",", 3)
			if len(parts) < 2 {
				return nil, errf("malformed DA record %s: want DA:line,count[,checksum]", quoteShort(line))
			}
			l, err := lineNum(parts[0], "DA line")
			if err != nil {
				return nil, err
			}
			n, err := count(parts[1], "DA count")
			if err != nil {
				return nil, err
			}
			cur.lines[l] = addSat(cur.lines[l], n)
		case "VER", "FNF", "FNH", "BRDA", "BRF", "BRH", "LF", "LH", "MCDC", "MCF", "MCH":
			// Versions, branch and condition coverage and the summary
			// counts: nothing in the Light Coverage tables holds them.
		default:
			if !isKey(key) {
				return nil, errf("malformed record %s: want KEY:VALUE or end_of_record", quoteShort(line))
			}
			if tr.unknown[key] == 0 {
				tr.unknownAt = append(tr.unknownAt, key)
			}
			tr.unknown[key]++
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, lineNo+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the file ends inside the record of SF:%s (line %d): end_of_record missing (file cut short?)",
			name, lineNo, cur.name, curAt)
	}
	return tr, nil
}

// addFunc records a function of f. A name defined again (another record of
// the same file) keeps its first definition, and gains an end line if it had
// none; a different start line is an error.
func addFunc(f *sourceFile, fname string, start, end int64, at int, errf func(string, ...any) error) error {
	if fname == "" {
		return errf("function without a name")
	}
	if end != 0 && end < start {
		return errf("function %s ends (line %d) before it starts (line %d)", fname, end, start)
	}
	if old, ok := f.byName[fname]; ok {
		if old.start != start {
			return errf("function %s starts on line %d here but on line %d at line %d", fname, start, old.start, old.at)
		}
		if old.end == 0 {
			old.end = end
		}
		return nil
	}
	fn := &function{name: fname, start: start, end: end, at: at, order: len(f.funcs)}
	f.funcs = append(f.funcs, fn)
	f.byName[fname] = fn
	return nil
}

// addCount adds an FNDA (or FNA) count to a function name of f.
func addCount(f *sourceFile, fname string, n int64, at int) {
	if _, seen := f.fndaAt[fname]; !seen {
		f.fndaAt[fname] = at
	}
	f.fnda[fname] = addSat(f.fnda[fname], n)
}

// resolveAliases turns the FNA records of a record into functions, with the
// extents of their FNL records.
func resolveAliases(f *sourceFile, fnl map[int64]extent, fna []alias, name string) error {
	for _, a := range fna {
		ext, ok := fnl[a.index]
		if !ok {
			return fmt.Errorf("%s:%d: FNA for index %d, which no FNL of this record defines", name, a.at, a.index)
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, a.at, fmt.Sprintf(format, args...))
		}
		if err := addFunc(f, a.name, ext.start, ext.end, a.at, errf); err != nil {
			return err
		}
		addCount(f, a.name, a.count, a.at)
	}
	return nil
}

// addSat adds non-negative counts, saturating at the largest int64.
func addSat(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isKey reports whether s looks like a record type: upper-case letters,
// digits and underscores.
func isKey(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// quoteShort quotes s for a message, cut to 60 bytes.
func quoteShort(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
