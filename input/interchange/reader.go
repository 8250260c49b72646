package interchange

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under in package input.
const FormatName = "json"

func init() {
	input.Register(input.Format{
		Name:  FormatName,
		Sniff: Sniff,
		Read: func(ctx context.Context, r io.Reader, name string, t resultset.Target, _ input.Options) ([]resultset.Result, error) {
			return Read(ctx, r, name, t)
		},
	})
}

// Sniff reports whether a file starting with head looks like interchange
// JSON: its first byte other than white space (after an optional UTF-8 byte
// order mark) is '{' or '['.
func Sniff(head []byte) bool {
	head = trimBOM(head)
	for _, c := range head {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// Read decodes the interchange JSON in r, named name in messages, and
// delivers each result set to t: Begin, its tables (parents before
// children), Commit. Each result set is committed on its own; Read returns
// the Results of those committed. On an error the current result set is
// rolled back and Read returns the Results committed before it with an
// *Error naming the file, the line and, for errors in the input, the column.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target) ([]resultset.Result, error) {
	d := &decoder{ctx: ctx, s: newScanner(r, name), t: t, tables: map[string]*tableInfo{}}
	err := d.run()
	return d.results, err
}

// decoder reads a file of result sets.
type decoder struct {
	ctx     context.Context
	s       *scanner
	t       resultset.Target
	results []resultset.Result
	tables  map[string]*tableInfo // by profiler and table name
	rows    int64                 // rows read, for the context checks
}

func (d *decoder) run() error {
	s := d.s
	s.skipBOM()
	c, ok := s.peek()
	if !ok {
		if s.rerr != nil {
			return s.errEnd("")
		}
		return &Error{File: s.file, Line: s.line, Col: 1, Err: fmt.Errorf("empty file: want a result set object or an array of them")}
	}
	for ok {
		switch c {
		case '{':
			if err := d.resultSet(); err != nil {
				return err
			}
		case '[':
			s.pos++
			c, ok := s.peek()
			if !ok {
				return s.errEnd("in array")
			}
			if c == ']' {
				s.pos++
				break
			}
			for {
				c, ok := s.peek()
				if !ok {
					return s.errEnd("in array")
				}
				if c != '{' {
					return s.errAt(s.pos, "invalid character %s in array: want a result set object", describe(c))
				}
				if err := d.resultSet(); err != nil {
					return err
				}
				if sep, err := s.next(']', "array"); err != nil {
					return err
				} else if sep == ']' {
					break
				}
			}
		default:
			return s.errAt(s.pos, "invalid character %s: want a result set object or an array of them", describe(c))
		}
		c, ok = s.peek()
	}
	if s.rerr != nil {
		return s.errEnd("")
	}
	return nil
}

// setState is the result set being read.
type setState struct {
	line       int // of its opening brace
	def        profilers.Definition
	defKnown   bool
	inferred   string // the table the profiler was inferred from
	profiler   bool   // "profiler" was given
	header     resultset.Header
	headerLate bool // caption or counter came after Begin
	keys       uint8
	w          resultset.ResultWriter
	done       []bool        // per table of def: written
	given      []bool        // per table of def: named in this result set
	spools     []*tableSpool // per table of def: rows waiting for the parent
}

// The keys of a result set object, as bits of setState.keys.
var setKeys = []string{"profiler", "caption", "counter", "tables"}

func (d *decoder) wrap(line int, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{File: d.s.file, Line: line, Err: err}
}

// resultSet reads one result set object, at pos, and commits it.
func (d *decoder) resultSet() (err error) {
	s := d.s
	st := &setState{line: s.line}
	defer func() {
		for _, sp := range st.spools {
			if sp != nil {
				sp.close()
			}
		}
		if err != nil && st.w != nil {
			st.w.Rollback()
		}
	}()
	s.pos++ // '{'
	c, ok := s.peek()
	if !ok {
		return s.errEnd("in result set object")
	}
	if c == '}' {
		s.pos++
	} else {
		for {
			c, ok := s.peek()
			if !ok {
				return s.errEnd("in result set object")
			}
			if c != '"' {
				return s.errAt(s.pos, "invalid character %s in result set object: want a key string", describe(c))
			}
			kline, kcol := s.posOf(s.pos)
			key, err := s.readKey()
			if err != nil {
				return err
			}
			k := -1
			for i, name := range setKeys {
				if foldEqual(key, name) {
					k = i
				}
			}
			if k < 0 {
				return &Error{File: s.file, Line: kline, Col: kcol, Err: fmt.Errorf("unknown key %s in result set object: want %s", termtext.Short(string(key)), strings.Join(setKeys, ", "))}
			}
			if st.keys&(1<<k) != 0 {
				return &Error{File: s.file, Line: kline, Col: kcol, Err: fmt.Errorf("key %q given twice in one result set", setKeys[k])}
			}
			st.keys |= 1 << k
			if err := s.expect(':', "after object key"); err != nil {
				return err
			}
			if _, ok := s.peek(); !ok {
				return s.errEnd("after object key")
			}
			switch setKeys[k] {
			case "profiler":
				err = d.profiler(st)
			case "caption":
				err = d.caption(st)
			case "counter":
				err = d.counter(st)
			case "tables":
				err = d.tablesObject(st)
			}
			if err != nil {
				return err
			}
			if sep, err := s.next('}', "result set object"); err != nil {
				return err
			} else if sep == '}' {
				break
			}
		}
	}
	if !st.defKnown {
		return &Error{File: s.file, Line: st.line, Err: fmt.Errorf(`result set without "profiler" and without tables to tell it from`)}
	}
	if err := d.begin(st); err != nil {
		return err
	}
	for i, sp := range st.spools { // parents never given: children at the end
		if sp != nil {
			st.spools[i] = nil
			err := d.replay(st, i, sp)
			sp.close()
			if err != nil {
				return err
			}
		}
	}
	if st.headerLate {
		if err := st.w.SetHeader(st.header); err != nil {
			return d.wrap(st.line, err)
		}
	}
	res, err := st.w.Commit()
	if err != nil {
		return d.wrap(st.line, err)
	}
	d.results = append(d.results, res)
	return nil
}

// begin starts the result set in the Target once the profiler is known.
func (d *decoder) begin(st *setState) error {
	if st.w != nil {
		return nil
	}
	st.header.Profiler = st.def.Name
	w, err := d.t.Begin(d.ctx, st.header)
	if err != nil {
		return d.wrap(st.line, err)
	}
	st.w = w
	return nil
}

// setDef fixes the result set's profiler.
func (st *setState) setDef(def profilers.Definition) {
	st.def, st.defKnown = def, true
	st.done = make([]bool, len(def.Tables))
	st.given = make([]bool, len(def.Tables))
	st.spools = make([]*tableSpool, len(def.Tables))
}

func (d *decoder) profiler(st *setState) error {
	s := d.s
	if s.buf[s.pos] != '"' {
		return s.errAt(s.pos, `"profiler": want the profiler's name as a string`)
	}
	line, col := s.posOf(s.pos)
	name, err := s.readValue()
	if err != nil {
		return err
	}
	st.profiler = true
	if st.defKnown {
		if name != st.def.Name {
			return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf("profiler %s does not match table %s, which belongs to profiler %s", termtext.Short(name), st.inferred, st.def.Name)}
		}
		return nil
	}
	def, err := profilers.Lookup(name)
	if err != nil {
		return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf("unknown profiler %s (registered: %s)", termtext.Short(name), strings.Join(profilers.Names(), ", "))}
	}
	st.setDef(def)
	return nil
}

// stringOrNull reads a string or null value for the key what.
func (d *decoder) stringOrNull(what string) (string, error) {
	s := d.s
	switch s.buf[s.pos] {
	case '"':
		return s.readValue()
	case 'n':
		return "", s.readLiteral("null")
	}
	return "", s.errAt(s.pos, "%s: want a string or null", what)
}

func (d *decoder) caption(st *setState) error {
	c, err := d.stringOrNull(`"caption"`)
	if err != nil {
		return err
	}
	st.header.Caption = c
	st.headerLate = st.w != nil
	return nil
}

var counterKeys = []string{"name", "description", "frequency"}

func (d *decoder) counter(st *setState) error {
	s := d.s
	st.headerLate = st.w != nil
	switch s.buf[s.pos] {
	case 'n':
		st.header.Counter = nil
		return s.readLiteral("null")
	case '{':
	default:
		return s.errAt(s.pos, `"counter": want an object or null`)
	}
	s.pos++
	cnt := &resultset.Counter{}
	st.header.Counter = cnt
	c, ok := s.peek()
	if !ok {
		return s.errEnd("in counter object")
	}
	if c == '}' {
		s.pos++
		return nil
	}
	var seen [3]bool
	for {
		c, ok := s.peek()
		if !ok {
			return s.errEnd("in counter object")
		}
		if c != '"' {
			return s.errAt(s.pos, "invalid character %s in counter object: want a key string", describe(c))
		}
		kline, kcol := s.posOf(s.pos)
		key, err := s.readKey()
		if err != nil {
			return err
		}
		k := -1
		for i, name := range counterKeys {
			if foldEqual(key, name) {
				k = i
			}
		}
		if k < 0 {
			return &Error{File: s.file, Line: kline, Col: kcol, Err: fmt.Errorf("unknown key %s in counter object: want %s", termtext.Short(string(key)), strings.Join(counterKeys, ", "))}
		}
		if seen[k] {
			return &Error{File: s.file, Line: kline, Col: kcol, Err: fmt.Errorf("key %q given twice in counter object", counterKeys[k])}
		}
		seen[k] = true
		if err := s.expect(':', "after object key"); err != nil {
			return err
		}
		c, ok = s.peek()
		if !ok {
			return s.errEnd("after object key")
		}
		switch k {
		case 0:
			cnt.Name, err = d.stringOrNull(`counter "name"`)
		case 1:
			cnt.Description, err = d.stringOrNull(`counter "description"`)
		case 2:
			line, col := s.posOf(s.pos)
			var v any
			switch {
			case c == '"':
				v, err = s.readValue()
			case c == '-' || isDigit(int(c)):
				var text []byte
				text, _, _, err = s.readNumber()
				v = json.Number(text)
			case c == 'n':
				err = s.readLiteral("null")
			default:
				return s.errAt(s.pos, `counter "frequency": want a number, a decimal string or null`)
			}
			if err == nil && v != nil {
				if _, cerr := resultset.Convert(ddl.Decimal, v); cerr != nil {
					return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf(`counter "frequency": %w`, cerr)}
				}
			}
			cnt.Frequency = v
		}
		if err != nil {
			return err
		}
		if sep, err := s.next('}', "counter object"); err != nil {
			return err
		} else if sep == '}' {
			return nil
		}
	}
}

// tablesObject reads the "tables" value: an object of tables, or null.
func (d *decoder) tablesObject(st *setState) error {
	s := d.s
	switch s.buf[s.pos] {
	case 'n':
		return s.readLiteral("null")
	case '{':
	default:
		return s.errAt(s.pos, `"tables": want an object mapping table names to arrays of rows`)
	}
	s.pos++
	c, ok := s.peek()
	if !ok {
		return s.errEnd(`in "tables" object`)
	}
	if c == '}' {
		s.pos++
		return nil
	}
	for {
		c, ok := s.peek()
		if !ok {
			return s.errEnd(`in "tables" object`)
		}
		if c != '"' {
			return s.errAt(s.pos, `invalid character %s in "tables" object: want a table name string`, describe(c))
		}
		line, col := s.posOf(s.pos)
		key, err := s.readKey()
		if err != nil {
			return err
		}
		idx, ti, err := d.resolveTable(st, string(key), line, col)
		if err != nil {
			return err
		}
		if err := s.expect(':', "after object key"); err != nil {
			return err
		}
		if err := d.table(st, idx, ti, line, col); err != nil {
			return err
		}
		if sep, err := s.next('}', `"tables" object`); err != nil {
			return err
		} else if sep == '}' {
			return nil
		}
	}
}

// resolveTable finds the table named name (the key at line:col), inferring
// the profiler from it when "profiler" has not been seen yet.
func (d *decoder) resolveTable(st *setState, name string, line, col int) (int, *tableInfo, error) {
	errf := func(format string, args ...any) error {
		return &Error{File: d.s.file, Line: line, Col: col, Err: fmt.Errorf(format, args...)}
	}
	if !st.defKnown {
		def, ok := profilers.ForTable(name)
		if !ok {
			return 0, nil, errf("unknown table %s: no registered profiler (%s) has it", termtext.Short(name), strings.Join(profilers.Names(), ", "))
		}
		st.setDef(def)
		st.inferred = name
		for i := range def.Tables {
			if strings.EqualFold(def.Tables[i].Name, name) {
				st.inferred = def.Tables[i].Name
			}
		}
	}
	idx := -1
	for i := range st.def.Tables {
		if strings.EqualFold(st.def.Tables[i].Name, name) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return 0, nil, errf("profiler %s has no table %s", st.def.Name, termtext.Short(name))
	}
	tbl := &st.def.Tables[idx]
	if st.given[idx] {
		return 0, nil, errf("table %s given twice in one result set", tbl.Name)
	}
	st.given[idx] = true
	key := st.def.Name + "\x00" + tbl.Name
	ti := d.tables[key]
	if ti == nil {
		ti = newTableInfo(tbl)
		d.tables[key] = ti
	}
	return idx, ti, nil
}

// table reads the rows of table idx (value at pos): into the Target when its
// parent has been written, else into a spool.
func (d *decoder) table(st *setState, idx int, ti *tableInfo, line, col int) error {
	s := d.s
	c, ok := s.peek()
	if !ok {
		return s.errEnd("after object key")
	}
	isNull := c == 'n'
	if !isNull && c != '[' {
		return s.errAt(s.pos, "table %s: want an array of row objects", ti.name)
	}
	if p := d.parentIndex(st, idx); p >= 0 && !st.done[p] {
		sp, err := newSpool(ti, line, col)
		if err != nil {
			return &Error{File: s.file, Line: line, Col: col, Err: err}
		}
		st.spools[idx] = sp
		if isNull {
			return s.readLiteral("null")
		}
		return d.readRows(ti, sp.add)
	}
	if err := d.begin(st); err != nil {
		return err
	}
	tw, err := st.w.Table(ti.name, ti.cols)
	if err != nil {
		return &Error{File: s.file, Line: line, Col: col, Err: err}
	}
	if isNull {
		err = s.readLiteral("null")
	} else {
		err = d.readRows(ti, func(row []any, line int) error {
			if err := tw.Write(row); err != nil {
				return &Error{File: s.file, Line: line, Err: err}
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	st.done[idx] = true
	return d.replayReady(st)
}

// parentIndex returns the index of table idx's parent in the profiler, or
// -1 for a top-level table.
func (d *decoder) parentIndex(st *setState, idx int) int {
	parent := st.def.Tables[idx].Parent
	if parent == "" {
		return -1
	}
	for i := range st.def.Tables {
		if st.def.Tables[i].Name == parent {
			return i
		}
	}
	return -1
}

// replayReady writes the spooled tables whose parent has been written, and
// then theirs, and so on.
func (d *decoder) replayReady(st *setState) error {
	for again := true; again; {
		again = false
		for i, sp := range st.spools {
			if sp == nil {
				continue
			}
			if p := d.parentIndex(st, i); p >= 0 && !st.done[p] {
				continue
			}
			st.spools[i] = nil
			err := d.replay(st, i, sp)
			sp.close()
			if err != nil {
				return err
			}
			again = true
		}
	}
	return nil
}

// replay writes spooled table idx to the Target.
func (d *decoder) replay(st *setState, idx int, sp *tableSpool) error {
	if err := d.begin(st); err != nil {
		return err
	}
	tw, err := st.w.Table(sp.ti.name, sp.ti.cols)
	if err != nil {
		return &Error{File: d.s.file, Line: sp.line, Col: sp.col, Err: err}
	}
	err = sp.replay(func(row []any, line int) error {
		if err := tw.Write(row); err != nil {
			return &Error{File: d.s.file, Line: line, Err: err}
		}
		d.rows++
		if d.rows&1023 == 0 {
			return d.ctx.Err()
		}
		return nil
	})
	if err != nil {
		return d.wrap(sp.line, err)
	}
	st.done[idx] = true
	return nil
}

// tableInfo is what the decoder keeps per table: the columns it gives the
// Target and a cache mapping the k-th key of a row to its column.
type tableInfo struct {
	name  string
	cols  []string // the documented columns but INST_ID, in order
	cache []keyCol // by key position in the row object
	row   []any
	seen  []uint32 // per column: the generation of the row that set it
	gen   uint32
}

type keyCol struct {
	key   string
	col   int
	plain bool // key has only bytes that stand for themselves in a JSON string
}

func plainKey(key []byte) bool {
	for _, c := range key {
		if !strPlain[c] {
			return false
		}
	}
	return true
}

const (
	colUnknown = -1
	colInstID  = -2
)

func newTableInfo(t *ddl.Table) *tableInfo {
	ti := &tableInfo{name: t.Name}
	for _, c := range t.Columns {
		if c.Name != ddl.InstID {
			ti.cols = append(ti.cols, c.Name)
		}
	}
	ti.row = make([]any, len(ti.cols))
	ti.seen = make([]uint32, len(ti.cols))
	return ti
}

// column returns the column of key, the k-th key of a row object, or
// colUnknown or colInstID. Rows usually repeat the key order of the row
// before: the cache answers without comparing names.
func (ti *tableInfo) column(k int, key []byte) int {
	if k < len(ti.cache) && ti.cache[k].key == string(key) {
		return ti.cache[k].col
	}
	return ti.columnSlow(k, key)
}

func (ti *tableInfo) columnSlow(k int, key []byte) int {
	col := colUnknown
	for i, c := range ti.cols {
		if foldEqual(key, c) {
			col = i
			break
		}
	}
	if col < 0 {
		if foldEqual(key, ddl.InstID) {
			return colInstID
		}
		return colUnknown
	}
	switch {
	case k < len(ti.cache):
		ti.cache[k] = keyCol{string(key), col, plainKey(key)}
	case k == len(ti.cache) && k < 4*len(ti.cols):
		ti.cache = append(ti.cache, keyCol{string(key), col, plainKey(key)})
	}
	return col
}

// foldEqual reports whether b equals s, ASCII letters matched without regard
// to case (names are ASCII; no Unicode folding lets a non-ASCII key match).
func foldEqual(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}

// smallInts holds -1 to 1023 boxed, so that the common small values of ID,
// PARENT_ID and flags need no allocation.
var smallInts = func() (t [1025]any) {
	for i := range t {
		t[i] = int64(i - 1)
	}
	return
}()

func boxInt(v int64) any {
	if v >= -1 && v < 1024 {
		return smallInts[v+1]
	}
	return v
}

// readRows reads the array of row objects at pos and hands each row to
// sink, in one reused slice, with the line of its object.
func (d *decoder) readRows(ti *tableInfo, sink func(row []any, line int) error) error {
	s := d.s
	s.pos++ // '['
	c, ok := s.peek()
	if !ok {
		return s.errEnd("in table " + ti.name)
	}
	if c == ']' {
		s.pos++
		return nil
	}
	row := ti.row
	for {
		c, ok := s.peek()
		if !ok {
			return s.errEnd("in table " + ti.name)
		}
		if c != '{' {
			return s.errAt(s.pos, "table %s: want a row object, got %s", ti.name, describe(c))
		}
		line := s.line
		s.pos++
		clear(row)
		left := maxRow // bytes the row's strings may still take
		ti.gen++
		if ti.gen == 0 {
			clear(ti.seen)
			ti.gen = 1
		}
		c, ok = s.peek()
		if !ok {
			return s.errEnd("in row object")
		}
		if c == '}' {
			s.pos++
		} else {
			for k := 0; ; k++ {
				if c != '"' {
					return s.errAt(s.pos, "invalid character %s in row object: want a column name string", describe(c))
				}
				kpos := s.base + int64(s.pos)
				col := -1
				// Fast path: the key the row before had here, plain ASCII,
				// compared in place.
				if k < len(ti.cache) && ti.cache[k].plain {
					kc := &ti.cache[k]
					p := s.pos + 1
					e := p + len(kc.key)
					if e < s.end && s.buf[e] == '"' && string(s.buf[p:e]) == kc.key {
						s.pos = e + 1
						col = kc.col
					}
				}
				if col < 0 {
					key, err := s.readKey()
					if err != nil {
						return err
					}
					col = ti.column(k, key)
					if col < 0 {
						return d.keyErr(ti, col, key, kpos)
					}
				}
				if ti.seen[col] == ti.gen {
					return d.keyErr(ti, col, nil, kpos)
				}
				ti.seen[col] = ti.gen
				if s.pos < s.end && s.buf[s.pos] == ':' {
					s.pos++
				} else if err := s.expect(':', "after object key"); err != nil {
					return err
				}
				c, ok = s.peek()
				if !ok {
					return s.errEnd("after object key")
				}
				switch {
				case c == '-' || c >= '0' && c <= '9':
					text, v, isInt, err := s.readNumber()
					if err != nil {
						return err
					}
					if isInt {
						row[col] = boxInt(v)
					} else {
						row[col] = json.Number(text)
					}
				case c == '"':
					start := s.base + int64(s.pos)
					s.limit = min(maxString, left)
					v, err := s.readValue()
					s.limit = maxString
					if err != nil {
						return err
					}
					left -= int(s.base + int64(s.pos) - start - 2) // its bytes between the quotes
					row[col] = v
				case c == 'n':
					if err := s.readLiteral("null"); err != nil {
						return err
					}
				case c == 't':
					if err := s.readLiteral("true"); err != nil {
						return err
					}
					row[col] = true
				case c == 'f':
					if err := s.readLiteral("false"); err != nil {
						return err
					}
					row[col] = false
				case c == '{' || c == '[':
					kind := "an object"
					if c == '[' {
						kind = "an array"
					}
					return s.errAt(s.pos, "column %s: want a number, string or null, got %s", ti.cols[col], kind)
				default:
					return s.errNotValue(c)
				}
				c, ok = s.peek()
				if !ok {
					return s.errEnd("in row object")
				}
				if c == ',' {
					s.pos++
					if c, ok = s.peek(); !ok {
						return s.errEnd("in row object")
					}
					continue
				}
				if c == '}' {
					s.pos++
					break
				}
				return s.errAt(s.pos, "invalid character %s after row object element: want ',' or '}'", describe(c))
			}
		}
		if err := sink(row, line); err != nil {
			return err
		}
		d.rows++
		if d.rows&1023 == 0 {
			if err := d.ctx.Err(); err != nil {
				return &Error{File: s.file, Line: line, Err: err}
			}
		}
		c, ok = s.peek()
		if !ok {
			return s.errEnd("in table " + ti.name)
		}
		s.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.errAt(s.pos, "invalid character %s after row of table %s: want ',' or ']'", describe(c), ti.name)
		}
	}
}

// keyErr reports a bad column key that starts at file offset off on the
// current line.
func (d *decoder) keyErr(ti *tableInfo, col int, key []byte, off int64) error {
	s := d.s
	e := &Error{File: s.file, Line: s.line, Col: int(off-s.lineStart) + 1}
	switch col {
	case colInstID:
		e.Err = fmt.Errorf("table %s: INST_ID is assigned by profdb and must not be given", ti.name)
	case colUnknown:
		e.Err = fmt.Errorf("table %s has no column %s", ti.name, termtext.Short(string(key)))
	default:
		e.Err = fmt.Errorf("table %s: column %s given twice in one row", ti.name, ti.cols[col])
	}
	return e
}
