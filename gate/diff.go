package gate

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Patch is what a unified diff changes: per file of the new side, the lines
// it adds.
type Patch struct {
	Files []ChangedFile
}

// ChangedFile is a file of a diff's new side and the lines the diff adds to
// it (added or modified lines; the new side's line numbers), as runs of
// consecutive lines: ascending, disjoint and not adjacent, so that a file
// of a million new lines is one run.
type ChangedFile struct {
	Path string `json:"path"`
	Runs []Span `json:"runs"`
}

// Span is the lines From to To, both included.
type Span struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Lines returns the number of changed lines in the file.
func (f ChangedFile) Lines() int64 {
	var n int64
	for _, r := range f.Runs {
		n += r.To - r.From + 1
	}
	return n
}

// All yields the file's changed lines, ascending.
func (f ChangedFile) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for _, r := range f.Runs {
			for l := r.From; ; l++ {
				if !yield(l) {
					return
				}
				if l == r.To {
					break
				}
			}
		}
	}
}

// Lines returns the number of changed lines in the patch.
func (p *Patch) Lines() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Lines()
	}
	return n
}

// maxHeaderLine is the longest file header line (a "diff --git", ---, +++,
// rename or hunk header line) read; only the first bytes of other lines
// are looked at, so a diff's memory does not grow with its lines' length.
const maxHeaderLine = 64 << 10

// ParseDiff reads a unified diff as `git diff` prints it (plain unified
// diffs too, as `diff -u` prints them). The changed lines are those it adds
// in its new files: the lines of a new file, the added lines of a modified
// or renamed one. A deleted file (+++ /dev/null), a binary file and a file
// whose diff adds no line (a pure rename, a mode change, only deletions)
// change no line and are left out. A file named twice has its lines
// merged. A plain unified diff (no "diff --git" lines) whose old names
// carry git's "a/" prefix has "b/" removed from its new names, as git
// removes it. Quoted names ("b/caf\303\251.go") are unquoted, and
// "\ No newline at end of file" markers are allowed anywhere in a hunk.
//
// Text before the first file header and between files (a commit message,
// "Only in" lines of diff -r, a binary patch's data) is skipped, as git
// apply skips it, but input of one byte or more in which no file header is
// found is no diff at all, and an error: that is what a failed `git diff`
// writes when its standard error is captured too. An empty input (zero
// bytes) is an error wrapping ErrEmptyDiff: it is what `git diff` prints
// when nothing changed, but also all that a `git diff` that failed in a
// pipeline leaves its reader, and a gate fails closed; a caller that
// expects no change may take it for an empty Patch.
//
// The diff is read as a stream, one line at a time: memory grows with the
// number of files and runs of changed lines, not with the diff's size.
// Errors name the diff's line. ParseDiff stops when ctx is done.
func ParseDiff(ctx context.Context, r io.Reader) (*Patch, error) {
	d := &diffParser{ctx: ctx, r: bufio.NewReaderSize(r, 64<<10), p: &Patch{}, index: map[string]int{}}
	if err := d.parse(); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	if d.read == 0 {
		return nil, fmt.Errorf("diff: %w", ErrEmptyDiff)
	}
	return d.p, nil
}

// ErrEmptyDiff is the error of an empty input: no diff, but possibly the
// empty output of a `git diff` that failed in a pipeline.
var ErrEmptyDiff = errors.New("the input is empty: a git diff that fails in a pipeline hands on nothing, " +
	"so run the pipeline under set -o pipefail")

// errNoDiff is the error of input with no file header.
var errNoDiff = errors.New("no file header (diff --git, or --- and +++ followed by @@) in it: this is not a diff " +
	"(the error of a git diff that failed?); when git diff feeds profdb through a pipe, run the pipeline under set -o pipefail, " +
	"so that a git diff that fails fails the job instead of handing on an empty diff")

type diffParser struct {
	ctx context.Context
	r   *bufio.Reader
	p   *Patch

	line  []byte // the current line, without its line end, cut at maxHeaderLine
	long  bool   // the line was longer than maxHeaderLine
	ok    bool   // there is a current line (false at the end)
	n     int64  // the current line's number, from 1
	read  int64  // bytes read
	first string // the first line, for the error of a diff with none

	headers   int            // file headers read
	git       bool           // a "diff --git" header was read
	aPrefixed bool           // a plain header's old name starts with "a/"
	index     map[string]int // p.Files by path
	sorted    []bool         // p.Files[i].Runs is in order
}

// next makes the next line current.
func (d *diffParser) next() error {
	d.line, d.long, d.ok = d.line[:0], false, false
	size := 0
	for {
		chunk, err := d.r.ReadSlice('\n')
		d.read += int64(len(chunk))
		size += len(chunk)
		if room := maxHeaderLine + 2 - len(d.line); room > 0 {
			d.line = append(d.line, chunk[:min(room, len(chunk))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", d.n+1, err)
		}
		if size == 0 {
			return nil // the end
		}
		break
	}
	d.n++
	d.ok = true
	if d.n%4096 == 0 {
		if err := d.ctx.Err(); err != nil {
			return fmt.Errorf("line %d: %w", d.n, err)
		}
	}
	d.line = bytes.TrimSuffix(d.line, []byte("\n"))
	d.line = bytes.TrimSuffix(d.line, []byte("\r"))
	if len(d.line) > maxHeaderLine {
		d.line, d.long = d.line[:maxHeaderLine], true
	}
	if d.n == 1 {
		d.first = string(short(d.line))
	}
	return nil
}

// short is the start of a line, for a message.
func short(line []byte) []byte { return line[:min(len(line), 80)] }

func (d *diffParser) has(prefix string) bool {
	return d.ok && bytes.HasPrefix(d.line, []byte(prefix))
}

// errf is an error at line n.
func errf(n int64, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
}

// header returns the current line as a string, or an error when it was cut.
func (d *diffParser) header(what string) (string, error) {
	if d.long {
		return "", errf(d.n, "%s longer than %d bytes", what, maxHeaderLine)
	}
	return string(d.line), nil
}

func (d *diffParser) parse() error {
	if err := d.next(); err != nil {
		return err
	}
	for d.ok {
		var err error
		switch {
		case d.has("diff --git "):
			err = d.gitFile()
		case d.has("--- "):
			err = d.plainFile()
		case d.has("@@ -"):
			// A hunk header outside a file: a corrupt diff, unless it is not
			// one (text that happens to start so).
			if _, herr := parseHunkHeader(d.line); herr == nil {
				return errf(d.n, "hunk header without a file header before it: %q", short(d.line))
			}
			err = d.next()
		default:
			err = d.next()
		}
		if err != nil {
			return err
		}
	}
	if d.headers == 0 && d.read > 0 {
		return fmt.Errorf("%d bytes starting %q: %w", d.read, d.first, errNoDiff)
	}
	d.finish()
	return nil
}

// file is a file of the diff while its hunks are read.
type file struct {
	name         string // its new name, "" for a deleted file
	isNew, isDel bool
	runs         []Span
	sorted       bool
}

func (f *file) add(line int64) {
	n := len(f.runs)
	switch {
	case n > 0 && f.runs[n-1].To+1 == line:
		f.runs[n-1].To = line
	case n > 0 && line <= f.runs[n-1].To:
		f.sorted = false
		f.runs = append(f.runs, Span{line, line})
	default:
		f.runs = append(f.runs, Span{line, line})
	}
}

// gitFile reads a file of a git diff: its "diff --git" header and header
// lines, then its hunks.
func (d *diffParser) gitFile() error {
	at := d.n
	h, err := d.header("diff --git line")
	if err != nil {
		return err
	}
	def, err := gitHeaderName(h[len("diff --git "):])
	if err != nil {
		return errf(at, "diff --git line: %v", err)
	}
	d.headers++
	d.git = true
	f := &file{sorted: true}
	var plus, to string
	var deleted bool
	for {
		if err := d.next(); err != nil {
			return err
		}
		if !d.ok || d.has("@@ -") {
			break
		}
		kind, rest, known := gitHeaderLine(d.line)
		if !known {
			break // the end of the header: a binary file's line, or the next file
		}
		switch kind {
		case "+++ ", "rename to ", "rename new ", "copy to ":
			if d.long {
				return errf(d.n, "file header longer than %d bytes", maxHeaderLine)
			}
			term, drop := byte('\t'), 1
			if kind != "+++ " {
				term, drop = 0, 0
			}
			name, err := parseName(rest, term, drop)
			if err != nil {
				return errf(d.n, "file header: %v", err)
			}
			if kind == "+++ " {
				plus = name
			} else {
				to = name
			}
		case "--- ":
			if rest == devNull {
				f.isNew = true
			}
		case "new file mode ":
			f.isNew = true
		case "deleted file mode ":
			deleted = true
		}
	}
	switch {
	case plus != "":
		f.name = plus
	case to != "":
		f.name = to
	default:
		f.name = def
	}
	if deleted || f.name == devNull {
		f.isDel, f.name = true, ""
	}
	if f.name == "" && !f.isDel {
		return errf(at, "diff --git line: no file name (the old and new names differ and no +++ or rename line names the new one)")
	}
	if err := folderName(f.name); err != nil {
		return errf(at, "diff --git line: %v", err)
	}
	return d.hunks(f)
}

// folderName is an error when name ends in a slash: a folder's name, not a
// file's, which no diff changes (and "b/", once a plain diff's b/ is taken
// off, would name nothing).
func folderName(name string) error {
	if strings.HasSuffix(name, "/") {
		return fmt.Errorf("%q names a folder, not a file", name)
	}
	return nil
}

// gitHeaderLine reports which of git's extended header lines line is, and
// what follows its keyword.
func gitHeaderLine(line []byte) (kind, rest string, ok bool) {
	for _, k := range []string{"--- ", "+++ ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
		"copy from ", "copy to ", "rename old ", "rename new ", "rename from ", "rename to ",
		"similarity index ", "dissimilarity index ", "index "} {
		if bytes.HasPrefix(line, []byte(k)) {
			return k, string(line[len(k):]), true
		}
	}
	return "", "", false
}

// plainFile reads a file of a plain unified diff: a --- line, a +++ line
// and a hunk header make its header; anything else is text between files.
func (d *diffParser) plainFile() error {
	at := d.n
	oldLine, oldLong := string(d.line), d.long
	if err := d.next(); err != nil {
		return err
	}
	if !d.has("+++ ") {
		return nil // the current line is looked at anew
	}
	newLine, newLong := string(d.line), d.long
	if err := d.next(); err != nil {
		return err
	}
	if !d.has("@@ -") || len(d.line) < len("@@ -1 +1 @@") {
		return nil
	}
	if oldLong || newLong {
		return errf(at, "file header longer than %d bytes", maxHeaderLine)
	}
	oldName, err := parseName(oldLine[len("--- "):], '\t', 0)
	if err != nil {
		return errf(at, "file header: %v", err)
	}
	newName, err := parseName(newLine[len("+++ "):], '\t', 0)
	if err != nil {
		return errf(at+1, "file header: %v", err)
	}
	d.headers++
	f := &file{sorted: true}
	switch {
	case oldName == devNull || epochTimestamp(oldLine):
		f.isNew, f.name = true, newName
	case newName == devNull || epochTimestamp(newLine):
		f.isDel = true
	case strings.HasPrefix(newName, oldName):
		// The old name when the new one only adds to it, as patch does:
		// not "x.c.orig" for x.c.
		f.name = oldName
	default:
		f.name = newName
	}
	if err := folderName(f.name); err != nil {
		return errf(at, "file header: %v", err)
	}
	if strings.HasPrefix(oldLine, "--- a/") {
		d.aPrefixed = true
	}
	return d.hunks(f)
}

// hunks reads the hunks of f, from the current line, and keeps its lines.
func (d *diffParser) hunks(f *file) error {
	for d.has("@@ -") {
		at := d.n
		h, err := parseHunkHeader(d.line)
		if err != nil {
			return errf(at, "%v: %q", err, short(d.line))
		}
		if f.isNew && h.oldLines > 0 {
			return errf(at, "hunk of a new file with old lines: %q", short(d.line))
		}
		if f.isDel && h.newLines > 0 {
			return errf(at, "hunk of a deleted file with new lines: %q", short(d.line))
		}
		if err := d.hunk(f, at, h); err != nil {
			return err
		}
	}
	if f.isDel || len(f.runs) == 0 {
		return nil
	}
	d.keep(f.name, f.runs, f.sorted)
	return nil
}

// hunk reads the lines of a hunk whose header is line at.
func (d *diffParser) hunk(f *file, at int64, h hunkHeader) error {
	old, nw, pos := h.oldLines, h.newLines, h.newStart
	changes := false
	if err := d.next(); err != nil {
		return err
	}
	for d.ok && (old > 0 || nw > 0) {
		op := byte(' ') // an empty line is an empty context line, as GNU diff writes it
		if len(d.line) > 0 {
			op = d.line[0]
		}
		switch op {
		case ' ':
			old--
			nw--
			pos++
		case '-':
			old--
			changes = true
		case '+':
			if nw > 0 {
				f.add(pos)
			}
			nw--
			pos++
			changes = true
		case '\\':
			if !bytes.HasPrefix(d.line, []byte(`\ `)) {
				return errf(d.n, "a line of a hunk starts with %q, not with a space, -, + or \\ (a \"\\ No newline at end of file\" marker)", d.line[:1])
			}
		default:
			return errf(d.n, "a line of a hunk starts with %q, not with a space, -, + or \\ (the hunk at line %d is cut short?)", d.line[:1], at)
		}
		if err := d.next(); err != nil {
			return err
		}
	}
	if old != 0 || nw != 0 {
		return errf(at, "the hunk header counts %d old and %d new lines; the hunk has %d and %d", h.oldLines, h.newLines, h.oldLines-old, h.newLines-nw)
	}
	if !changes {
		return errf(at, "hunk with no added or deleted line")
	}
	if d.has(`\ `) {
		return d.next()
	}
	return nil
}

type hunkHeader struct {
	oldLines, newStart, newLines int64
}

// parseHunkHeader parses "@@ -a,b +c,d @@ …".
func parseHunkHeader(line []byte) (hunkHeader, error) {
	var h hunkHeader
	rest, ok := bytes.CutPrefix(line, []byte("@@ -"))
	end := bytes.Index(rest, []byte(" @@"))
	if !ok || end < 0 {
		return h, errors.New("invalid hunk header")
	}
	oldR, newR, ok := strings.Cut(string(rest[:end]), " +")
	if !ok {
		return h, errors.New("invalid hunk header")
	}
	_, oldLines, err := parseRange(oldR)
	if err != nil {
		return h, err
	}
	newStart, newLines, err := parseRange(newR)
	if err != nil {
		return h, err
	}
	if newLines > 0 && (newStart < 1 || newStart-1 > math.MaxInt64-newLines) {
		return h, fmt.Errorf("invalid hunk header: new lines %d to %d", newStart, uint64(newStart)+uint64(newLines)-1)
	}
	return hunkHeader{oldLines: oldLines, newStart: newStart, newLines: newLines}, nil
}

// parseRange parses "start,count" or "start" (a count of 1).
func parseRange(s string) (start, count int64, err error) {
	a, b, comma := strings.Cut(s, ",")
	if start, err = digits(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if comma {
		if count, err = digits(b); err != nil {
			return 0, 0, err
		}
	}
	return start, count, nil
}

func digits(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("invalid hunk header: %q is not a line number", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid hunk header: %q is not a line number", s)
	}
	return n, nil
}

// keep adds a file's runs to the patch, merged with those of the same path.
func (d *diffParser) keep(name string, runs []Span, sorted bool) {
	i, ok := d.index[name]
	if !ok {
		d.index[name] = len(d.p.Files)
		d.p.Files = append(d.p.Files, ChangedFile{Path: name, Runs: runs})
		d.sorted = append(d.sorted, sorted)
		return
	}
	d.p.Files[i].Runs = append(d.p.Files[i].Runs, runs...)
	d.sorted[i] = false
}

// finish removes the "b/" of a plain diff's new names and puts every file's
// runs in order.
func (d *diffParser) finish() {
	if !d.git && d.aPrefixed {
		files := d.p.Files
		d.p.Files, d.index = nil, map[string]int{}
		sorted := d.sorted
		d.sorted = nil
		for i, f := range files {
			d.keep(strings.TrimPrefix(f.Path, "b/"), f.Runs, sorted[i])
		}
	}
	for i := range d.p.Files {
		if !d.sorted[i] {
			d.p.Files[i].Runs = normalize(d.p.Files[i].Runs)
		}
	}
}

// normalize sorts runs and merges those that overlap or touch.
func normalize(runs []Span) []Span {
	slices.SortFunc(runs, func(a, b Span) int { return cmp.Compare(a.From, b.From) })
	out := runs[:0]
	for _, r := range runs {
		if n := len(out); n > 0 && r.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

const devNull = "/dev/null"

// gitHeaderName is the name of a "diff --git a/X b/X" line when both names
// are the same (without their a/ and b/), else "".
func gitHeaderName(h string) (string, error) {
	if h == "" {
		return "", nil
	}
	var first, second string
	switch q := strings.IndexByte(h, '"'); {
	case q < 0:
		// Both unquoted: names may hold spaces, so look for the split that
		// makes the two equal.
		for i := 0; i < len(h)-1; i++ {
			if h[i] == ' ' || h[i] == '\t' {
				if name := trimTreePrefix(h[:i]); name == trimTreePrefix(h[i+1:]) {
					return name, nil
				}
			}
		}
		return "", nil
	case q > 0:
		if h[q-1] != ' ' && h[q-1] != '\t' {
			return "", errors.New("no space before the quoted name")
		}
		first = h[:q-1]
		var err error
		if second, _, err = quotedName(h[q:]); err != nil {
			return "", err
		}
	default:
		var n int
		var err error
		if first, n, err = quotedName(h); err != nil {
			return "", err
		}
		rest := strings.TrimLeft(h[n:], " \t")
		if rest == "" {
			return "", nil
		}
		second = rest
		if rest[0] == '"' {
			if second, _, err = quotedName(rest); err != nil {
				return "", err
			}
		}
	}
	if name := trimTreePrefix(first); name == trimTreePrefix(second) {
		return name, nil
	}
	return "", nil
}

// trimTreePrefix removes the first folder of a name ("a/", "b/").
func trimTreePrefix(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return ""
}

// quotedName reads a name in double quotes, with C escapes as git writes
// them, at the start of s, and returns it and the bytes it took.
func quotedName(s string) (string, int, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			name, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", 0, fmt.Errorf("quoted name %s: %v", s[:i+1], err)
			}
			if name == "" {
				return "", 0, errors.New("empty quoted name")
			}
			return name, i + 1, nil
		}
	}
	return "", 0, errors.New("quoted name without its closing quote")
}

// parseName reads the file name of a ---, +++, rename or copy line: quoted,
// or up to term (when not 0). /dev/null stays as it is; other names lose
// their first drop folders and doubled slashes.
func parseName(s string, term byte, drop int) (string, error) {
	var name string
	if strings.HasPrefix(s, `"`) {
		var err error
		if name, _, err = quotedName(s); err != nil {
			return "", err
		}
	} else {
		name = s
		if i := strings.IndexByte(s, term); term != 0 && i >= 0 {
			name = s[:i]
		}
		if name == "" {
			return "", errors.New("no file name")
		}
	}
	if name == devNull {
		return name, nil
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			if i+1 < len(name) && name[i+1] == '/' {
				continue
			}
			if drop > 0 {
				drop--
				b.Reset()
				continue
			}
		}
		b.WriteByte(name[i])
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("no file name in %q", name)
	}
	return b.String(), nil
}

// epochTimestamp reports whether a --- or +++ line ends with a tab and the
// Unix epoch, by which GNU diff marks a file created or deleted.
func epochTimestamp(line string) bool {
	i := strings.IndexByte(line, '\t')
	if i < 0 {
		return false
	}
	ts := line[i+1:]
	if len(ts) >= 3 && ts[len(ts)-3] == ':' {
		ts = ts[:len(ts)-3] + ts[len(ts)-2:]
	}
	t, err := time.Parse("2006-01-02 15:04:05.9 -0700", ts)
	return err == nil && t.Equal(time.Unix(0, 0))
}
