package interchange

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Writer writes result sets in the interchange format: for each, Begin, then
// for each table Table and its rows, then End. Every row is written on a
// line of its own, as an object with one key per non-NULL value. The Writer
// checks the order of calls and the values, not the names: Target does that.
type Writer struct {
	w     *bufio.Writer
	state int
	cols  [][]byte // the columns of the current table, as JSON keys with ':'
	rows  int64    // rows of the current table
	buf   []byte
	err   error
}

// The states of a Writer.
const (
	idle    = iota // between result sets
	inSet          // after Begin, before the first Table
	inTable        // after Table
)

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Begin starts a result set with its header.
func (w *Writer) Begin(h resultset.Header) error {
	if w.err != nil {
		return w.err
	}
	if w.state != idle {
		return errors.New("interchange: Begin inside a result set")
	}
	b, err := appendHeader(w.buf[:0], h)
	if err != nil {
		return err
	}
	w.buf = b
	w.state = inSet
	return w.write(b)
}

// appendHeader appends the start of a result set object, up to and
// including the brace that opens "tables".
func appendHeader(b []byte, h resultset.Header) ([]byte, error) {
	if h.Profiler == "" {
		return b, errors.New("interchange: header without a profiler")
	}
	b = append(b, `{"profiler":`...)
	b, _ = appendString(b, h.Profiler)
	b = append(b, `,"caption":`...)
	b, err := appendText(b, h.Caption)
	if err != nil {
		return b, fmt.Errorf("interchange: caption: %w", err)
	}
	if c := h.Counter; c != nil {
		b = append(b, `,"counter":{"name":`...)
		if b, err = appendText(b, c.Name); err != nil {
			return b, fmt.Errorf("interchange: counter name: %w", err)
		}
		b = append(b, `,"description":`...)
		if b, err = appendText(b, c.Description); err != nil {
			return b, fmt.Errorf("interchange: counter description: %w", err)
		}
		b = append(b, `,"frequency":`...)
		if c.Frequency == nil {
			b = append(b, "null"...)
		} else if b, err = appendValue(b, c.Frequency); err != nil {
			return b, fmt.Errorf("interchange: counter frequency: %w", err)
		}
		b = append(b, '}')
	}
	return append(b, `,"tables":{`...), nil
}

// Table starts the rows of a table; columns name the values of each Row, in
// order.
func (w *Writer) Table(name string, columns []string) error {
	if w.err != nil {
		return w.err
	}
	if w.state == idle {
		return errors.New("interchange: Table outside a result set")
	}
	b := w.buf[:0]
	if w.state == inTable {
		b = append(b, "\n],"...)
	}
	b = append(b, '\n')
	b, err := appendString(b, name)
	if err != nil {
		return fmt.Errorf("interchange: table name: %w", err)
	}
	b = append(b, ":["...)
	w.cols = w.cols[:0]
	for _, c := range columns {
		k, err := appendString(nil, c)
		if err != nil {
			return fmt.Errorf("interchange: table %s: column name: %w", name, err)
		}
		w.cols = append(w.cols, append(k, ':'))
	}
	w.buf = b
	w.state = inTable
	w.rows = 0
	return w.write(b)
}

// Row writes a row of the current table: one value per column, nil for
// NULL. Values may be Go integers and floats, json.Number, ddl.Dec,
// strings, []byte and booleans.
func (w *Writer) Row(values ...any) error {
	if w.err != nil {
		return w.err
	}
	if w.state != inTable {
		return errors.New("interchange: Row outside a table")
	}
	if len(values) != len(w.cols) {
		return fmt.Errorf("interchange: %d values for %d columns", len(values), len(w.cols))
	}
	b := w.buf[:0]
	if w.rows > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{"...)
	first := true
	strs := 0 // bytes of the row's strings between their quotes
	for i, v := range values {
		if v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, w.cols[i]...)
		at := len(b)
		var err error
		if b, err = appendValue(b, v); err == nil {
			switch v.(type) {
			case string, []byte:
				n := len(b) - at - 2
				strs += n
				err = tooLong(n, strs)
			}
		}
		if err != nil {
			w.buf = b
			return fmt.Errorf("interchange: row %d, column %s: %w", w.rows+1, w.cols[i][1:len(w.cols[i])-2], err)
		}
	}
	b = append(b, '}')
	w.buf = b
	w.rows++
	return w.write(b)
}

// tooLong says why a string of n bytes as written, after which a row's
// strings take rowBytes, is more than the reader takes (maxString,
// maxRow), or nil: a file the Writer writes, the reader reads.
func tooLong(n, rowBytes int) error {
	switch {
	case n > maxString:
		return fmt.Errorf("a string of %d bytes as written, longer than %s, the most the reader takes", n, sizeText(maxString))
	case rowBytes > maxRow:
		return fmt.Errorf("the row's strings take %d bytes as written, more than %s, the most the reader takes", rowBytes, sizeText(maxRow))
	}
	return nil
}

// appendText is appendString for a string of the header: one the reader
// takes (maxString).
func appendText(b []byte, s string) ([]byte, error) {
	at := len(b)
	b, err := appendString(b, s)
	if err != nil {
		return b, err
	}
	return b, tooLong(len(b)-at-2, 0)
}

// End ends the result set and flushes it to the underlying writer.
func (w *Writer) End() error {
	if w.err != nil {
		return w.err
	}
	if w.state == idle {
		return errors.New("interchange: End outside a result set")
	}
	if err := w.endTables(); err != nil {
		return err
	}
	if err := w.write([]byte("}}\n")); err != nil {
		return err
	}
	w.state = idle
	return w.flush()
}

// endTables closes the current table, if any.
func (w *Writer) endTables() error {
	if w.state == inTable {
		w.state = inSet
		return w.write([]byte("\n]"))
	}
	return nil
}

func (w *Writer) write(b []byte) error {
	if _, err := w.w.Write(b); err != nil {
		w.err = err
	}
	return w.err
}

func (w *Writer) flush() error {
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// appendValue appends v as a JSON value.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x)
	case []byte:
		return appendString(b, string(x))
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case float64:
		return appendFloat(b, x, 64)
	case float32:
		return appendFloat(b, float64(x), 32)
	case json.Number:
		return appendNumber(b, string(x))
	case ddl.Dec:
		return appendNumber(b, string(x))
	}
	return b, fmt.Errorf("cannot write a %T", v)
}

func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("%v is not a finite number", f)
	}
	// As encoding/json: plain decimals for 1e-6 <= |f| < 1e21, else an
	// exponent without a leading zero.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, nil
}

// appendNumber appends number text, which must be a JSON number.
func appendNumber(b []byte, s string) ([]byte, error) {
	if !validNumber(s) {
		return b, fmt.Errorf("%q is not a JSON number", s)
	}
	return append(b, s...), nil
}

// validNumber reports whether s is a number per the JSON grammar.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 is an error: the
// reader would reject it.
func appendString(b []byte, s string) ([]byte, error) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return b, fmt.Errorf("text is not valid UTF-8 (byte 0x%02x at %d)", c, i)
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"'), nil
}

// Target is an resultset.Target that writes every committed result set to an
// io.Writer in the interchange format, one after another. It checks what a
// database would (known profiler, tables and columns, values of the
// documented types; see resultset.Convert) and writes values in canonical
// form. A result set is gathered in a temporary file and copied out on
// Commit, so that a rolled-back one leaves nothing and a header changed by
// SetHeader is written first.
type Target struct {
	mu  sync.Mutex
	out io.Writer
	n   int64
}

var _ resultset.Target = (*Target)(nil)

// NewTarget returns a Target writing to w.
func NewTarget(w io.Writer) *Target { return &Target{out: w} }

// Begin implements resultset.Target.
func (t *Target) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	def, err := profilers.Lookup(h.Profiler)
	if err != nil {
		return nil, err
	}
	h, err = canonicalHeader(def.Name, h)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "profdb-interchange-*.json")
	if err != nil {
		return nil, err
	}
	w := &Writer{w: bufio.NewWriterSize(f, 64<<10), state: inSet}
	return &targetSet{t: t, def: def, h: h, f: f, w: w, given: map[string]bool{}, counts: map[string]int64{}}, nil
}

func canonicalHeader(profiler string, h resultset.Header) (resultset.Header, error) {
	h.Profiler = profiler
	if h.Counter != nil && h.Counter.Frequency != nil {
		f, err := resultset.Convert(ddl.Decimal, h.Counter.Frequency)
		if err != nil {
			return h, fmt.Errorf("INSTANCES, column COUNTER_FREQUENCY: %w", err)
		}
		c := *h.Counter
		c.Frequency = f
		h.Counter = &c
	}
	return h, nil
}

type targetSet struct {
	t      *Target
	def    profilers.Definition
	h      resultset.Header
	f      *os.File
	w      *Writer
	given  map[string]bool
	counts map[string]int64
	done   bool
}

func (s *targetSet) SetHeader(h resultset.Header) error {
	if s.done {
		return errors.New("interchange: result set already ended")
	}
	if h.Profiler != "" && h.Profiler != s.def.Name {
		return fmt.Errorf("result set of profiler %s cannot become %s", s.def.Name, h.Profiler)
	}
	h, err := canonicalHeader(s.def.Name, h)
	if err != nil {
		return err
	}
	s.h = h
	return nil
}

func (s *targetSet) Table(name string, columns []string) (resultset.TableWriter, error) {
	if s.done {
		return nil, errors.New("interchange: result set already ended")
	}
	def, ok := s.def.Table(name)
	if !ok {
		return nil, fmt.Errorf("profiler %s has no table %s", s.def.Name, name)
	}
	if s.given[def.Name] {
		return nil, fmt.Errorf("table %s given twice in one result set", def.Name)
	}
	tw := &targetTable{s: s, name: def.Name}
	for _, c := range columns {
		col, ok := def.Column(c)
		if !ok {
			return nil, fmt.Errorf("table %s has no column %s", def.Name, c)
		}
		if col.Name == ddl.InstID {
			return nil, fmt.Errorf("table %s: INST_ID is assigned by profdb and must not be given", def.Name)
		}
		tw.cols = append(tw.cols, col.Name)
		tw.types = append(tw.types, col.Type)
	}
	s.given[def.Name] = true
	if err := s.w.Table(def.Name, tw.cols); err != nil {
		return nil, err
	}
	tw.row = make([]any, len(tw.cols))
	return tw, nil
}

func (s *targetSet) Commit() (resultset.Result, error) {
	if s.done {
		return resultset.Result{}, errors.New("interchange: result set already ended")
	}
	s.done = true
	defer s.remove()
	if err := s.w.endTables(); err != nil {
		return resultset.Result{}, err
	}
	if err := s.w.flush(); err != nil {
		return resultset.Result{}, err
	}
	head, err := appendHeader(nil, s.h)
	if err != nil {
		return resultset.Result{}, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return resultset.Result{}, err
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if _, err := s.t.out.Write(head); err != nil {
		return resultset.Result{}, err
	}
	if _, err := io.Copy(s.t.out, s.f); err != nil {
		return resultset.Result{}, err
	}
	if _, err := io.WriteString(s.t.out, "}}\n"); err != nil {
		return resultset.Result{}, err
	}
	s.t.n++
	res := resultset.Result{InstID: s.t.n, Profiler: s.def.Name, Caption: s.h.Caption, Tables: map[string]int64{}}
	for _, tb := range s.def.Tables {
		res.Tables[tb.Name] = s.counts[tb.Name]
		res.Rows += s.counts[tb.Name]
	}
	return res, nil
}

func (s *targetSet) Rollback() error {
	if !s.done {
		s.done = true
		s.remove()
	}
	return nil
}

func (s *targetSet) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

type targetTable struct {
	s     *targetSet
	name  string
	cols  []string
	types []ddl.Type
	row   []any
}

func (t *targetTable) Write(row []any) error {
	if t.s.done {
		return errors.New("interchange: result set already ended")
	}
	n := t.s.counts[t.name] + 1
	if len(row) != len(t.types) {
		return fmt.Errorf("table %s, row %d: %d values for %d columns", t.name, n, len(row), len(t.types))
	}
	for i, v := range row {
		cv, err := resultset.Convert(t.types[i], v)
		if err != nil {
			return fmt.Errorf("table %s, column %s, row %d: %w", t.name, t.cols[i], n, err)
		}
		t.row[i] = cv
	}
	if err := t.s.w.Row(t.row...); err != nil {
		return err
	}
	t.s.counts[t.name] = n
	return nil
}
