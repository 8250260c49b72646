package interchange

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// Error is an error at a place in an interchange file. Line and Col are
// 1-based; Col counts bytes from the start of the line and is 0 when only
// the line is known (errors of the Target, reported at the line of the row
// or result set they concern).
type Error struct {
	File string
	Line int
	Col  int
	Err  error
}

// Error formats the error as FILE:LINE:COL: message (FILE:LINE: message
// without a column).
func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

const (
	bufSize  = 256 << 10 // the read window; it grows only for longer tokens
	minAhead = 32        // bytes a number or literal scan wants in the window
	// maxWindow is the largest window the longest token takes: a string
	// of maxString bytes, its quotes and the lookahead of an escape.
	maxWindow = maxString + 4<<10
)

// strPlain marks the bytes a string holds without special handling: neither
// a quote, a backslash, a control character nor a non-ASCII byte.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// scanner tokenizes JSON from a reader through a window buf[pos:end]. The
// token being scanned starts at pos and stays in the window until it is
// consumed (pos moves past it), so that a token is always contiguous: fill
// keeps buf[pos:] and grows the window when a token outgrows it. Lines are
// counted in white space, the only place JSON allows a newline.
type scanner struct {
	r         io.Reader
	file      string
	buf       []byte
	pos, end  int
	base      int64 // file offset of buf[0]
	line      int   // line of buf[pos], 1-based
	lineStart int64 // file offset of the first byte of that line
	eof       bool  // the reader has nothing more
	rerr      error // the read error, other than io.EOF
	scratch   []byte
	long      []byte // the text of a long string value (readValue), or a buffer kept for the next one
	longOut   int    // bytes of long values returned since the last collection (see keepLong)
	limit     int    // the most bytes, as written, of the string being read: maxString, or less in a row (see maxRow)
}

func newScanner(r io.Reader, file string) *scanner {
	size := bufSize
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		size = max(l.Len()+1, 512) // a small input in memory: a small window
	}
	return &scanner{r: r, file: file, buf: make([]byte, size), line: 1, limit: maxString}
}

// fill reads more input, keeping buf[pos:end]; pos becomes 0. It reports
// whether bytes arrived.
func (s *scanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.end = n
		s.pos = 0
	}
	if s.end == len(s.buf) {
		// Doubled, but no larger than the longest token needs.
		size := 2 * len(s.buf)
		if len(s.buf) < maxWindow {
			size = min(size, maxWindow)
		}
		nb := make([]byte, size)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.eof, s.rerr = true, io.ErrNoProgress
	return false
}

// ensure tries to have n bytes from pos in the window.
func (s *scanner) ensure(n int) {
	for s.end-s.pos < n && s.fill() {
	}
}

// posOf returns the line and column of buf[p]; p must be on the line of pos.
func (s *scanner) posOf(p int) (line, col int) {
	return s.line, int(s.base+int64(p)-s.lineStart) + 1
}

// errAt returns an Error at buf[p].
func (s *scanner) errAt(p int, format string, args ...any) *Error {
	line, col := s.posOf(p)
	return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf(format, args...)}
}

// errEnd reports the end of the input where more was needed, or the read
// error that ended it.
func (s *scanner) errEnd(what string) *Error {
	line, col := s.posOf(s.end)
	if s.rerr != nil {
		return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf("reading: %w", s.rerr)}
	}
	return &Error{File: s.file, Line: line, Col: col, Err: fmt.Errorf("unexpected end of file %s", what)}
}

// peek skips white space and returns the next byte without consuming it;
// ok is false at the end of the input.
func (s *scanner) peek() (c byte, ok bool) {
	if s.pos < s.end {
		if c := s.buf[s.pos]; c > ' ' {
			return c, true
		}
	}
	return s.peekSlow()
}

func (s *scanner) peekSlow() (byte, bool) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\r':
				s.pos++
			case '\n':
				s.pos++
				s.line++
				s.lineStart = s.base + int64(s.pos)
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// describe names a byte for a message.
func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// expect skips white space and consumes the byte want; what says where
// (for example "after object key").
func (s *scanner) expect(want byte, what string) error {
	c, ok := s.peek()
	if !ok {
		return s.errEnd(what)
	}
	if c != want {
		return s.errAt(s.pos, "invalid character %s %s: want %q", describe(c), what, rune(want))
	}
	s.pos++
	return nil
}

// next returns, after white space, ',' or the closing byte of a container
// (consumed), or an error.
func (s *scanner) next(closing byte, what string) (byte, error) {
	c, ok := s.peek()
	if !ok {
		return 0, s.errEnd("in " + what)
	}
	if c == ',' || c == closing {
		s.pos++
		return c, nil
	}
	return 0, s.errAt(s.pos, "invalid character %s after %s element: want ',' or %q", describe(c), what, rune(closing))
}

// maxString is the longest string, in bytes as the file writes it, that
// the reader takes: the window holds a whole string, and no name or
// caption of a profiler's results comes near it.
const maxString = 8 << 20

// longJump is the capacity of a long string's buffer from which it grows
// to maxString at once (see keepLong).
const longJump = 512 << 10

// maxRow is the most bytes, as the file writes them, that the strings of
// one row may take together: a row is held whole until it is written, so
// this, not maxString, bounds what a row holds. No profiler's row comes
// near it; a row of one string of maxString fits.
const maxRow = maxString

// collectAfter is how many bytes of long values (longer than the window)
// the reader returns before it runs a collection, as the next one starts.
// What a long value costs is garbage once its row is written: the value,
// and what the drivers made of it (lib/pq's copies, go-sql-driver/mysql's
// buffer, up to three times its size), of which the collector's pacing
// would let three times the live heap pile up (GOGC=200, cmd/profdb)
// before its next cycle. Collecting after every 4 MiB of long values keeps
// that garbage to a few rows' worth; each collection finds little live
// (a row's strings hold no pointers), and it runs at most once per 4 MiB
// of input. Inputs without values over the window never collect.
const collectAfter = 4 << 20

// maxKey is the longest object key readKey reads whole: no known key
// (a result set's, a table's or a column's name) comes near it.
const maxKey = 4 << 10

// maxNumber is the longest number, in bytes, that the reader takes: the
// window holds a whole number, and no value of the layout needs more. A
// float64 written exactly in plain decimal takes at most 1,077 bytes (the
// smallest subnormal, -0.000…4940656458412465…, has 1,074 decimals), a
// DECIMAL(28,8) or a 64-bit integer some 30.
const maxNumber = 4 << 10

// errLongAt reports a string, starting at file offset off on the current
// line, longer than s.limit: maxString, or what is left of maxRow.
func (s *scanner) errLongAt(off int64) error {
	err := fmt.Errorf("a string longer than %s, the most profdb reads", sizeText(maxString))
	if s.limit < maxString {
		err = fmt.Errorf("a row whose strings take more than %s, the most profdb reads", sizeText(maxRow))
	}
	return &Error{File: s.file, Line: s.line, Col: int(off-s.lineStart) + 1, Err: err}
}

// errLongNumber reports the number at pos, longer than maxNumber.
func (s *scanner) errLongNumber() error {
	return s.errAt(s.pos, "a number longer than %s, the most profdb reads", sizeText(maxNumber))
}

// sizeText is a size in MiB or KiB for a message.
func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// readKey reads an object key as readString does, but only the first
// maxKey bytes of one longer than that, which is no key profdb knows: it
// returns them (cut at a character) and the caller reports the key
// unknown, without the rest of it in memory.
func (s *scanner) readKey() ([]byte, error) {
	s.ensure(maxKey + 2)
	if s.end-s.pos < maxKey+2 || bytes.IndexByte(s.buf[s.pos+1:s.pos+maxKey+2], '"') >= 0 {
		return s.readString()
	}
	k := s.buf[s.pos+1 : s.pos+1+maxKey]
	for len(k) > 0 && !utf8.Valid(k) {
		k = k[:len(k)-1]
	}
	return append(s.scratch[:0], k...), nil
}

// readString scans the string starting at pos (at its opening quote) and
// returns its content decoded, in place in the window (see scanString),
// which grows to hold the whole string. The result is valid until the next
// scanner call. Invalid UTF-8, control characters and invalid escapes are
// errors. It reads object keys, which readKey bounds.
func (s *scanner) readString() ([]byte, error) { return s.scanString(false) }

// readValue reads a string value as readString does and returns it as a
// string of its own. A string longer than the window is decoded through
// it: its decoded text moves, whenever it fills the window, to s.long,
// so the window never grows for a value. The string returned takes at
// most twice the memory of its text: a text that fills at least half of
// s.long becomes the string itself, and s.long is let go; a shorter one is
// copied out, and s.long, which nothing else holds, is kept for the next
// long value. So a row of many values just past the window holds each at
// its size, not each in a buffer of maxString.
func (s *scanner) readValue() (string, error) {
	b, err := s.scanString(true)
	if err != nil {
		s.long = s.long[:0]
		return "", err
	}
	if len(s.long) == 0 {
		return string(b), nil
	}
	s.keepLong(b)
	s.longOut += len(s.long)
	if 2*len(s.long) < cap(s.long) {
		v := string(s.long)
		s.long = s.long[:0]
		return v, nil
	}
	// The scanner writes no more into this buffer: the string is its
	// only holder.
	v := unsafe.String(unsafe.SliceData(s.long), len(s.long))
	s.long = nil
	return v, nil
}

// keepLong appends decoded text to s.long. Its capacity doubles up to
// longJump, then goes at once to s.limit, the most the string can take:
// doubling on would hold the text so far and its new buffer at once, 4
// and 8 MiB at the last step of an 8 MiB string, and the garbage
// collector, finding that much live, would let the heap grow to three
// times that before its next cycle (GOGC=200, cmd/profdb). As a long value
// starts, a collection runs once collectAfter bytes of them were returned.
func (s *scanner) keepLong(b []byte) {
	if len(s.long) == 0 && s.longOut >= collectAfter {
		runtime.GC()
		s.longOut = 0
	}
	if cap(s.long)-len(s.long) < len(b) {
		grow := len(b)
		if cap(s.long) >= longJump {
			grow = max(s.limit-len(s.long), grow)
		}
		s.long = slices.Grow(s.long, grow)
	}
	s.long = append(s.long, b...)
}

// scanString is readString and readValue: it scans the string at pos and
// decodes it in place, into the window itself. The decoded text of the
// bytes read so far is buf[pos+1:pos+1+w], followed by the run
// buf[pos+run:pos+n] of plain bytes not yet moved to it; the decoded text
// never reaches the bytes still to read, since no escape decodes to more
// bytes than it takes. With long set, when the string fills the whole
// window, the decoded text moves out to s.long (see readValue) instead of
// the window growing.
func (s *scanner) scanString(long bool) ([]byte, error) {
	start := s.base + int64(s.pos) // of the opening quote, for errLongAt
	moved := 0                     // bytes of the string as written whose text is in s.long
	n, w, run := 1, 0, 1
	high := false // the run holds non-ASCII bytes
	for {
		buf := s.buf[s.pos:s.end]
		for n < len(buf) {
			c := buf[n]
			if strPlain[c] {
				n++
				continue
			}
			if c >= 0x80 {
				high = true
				n++
				continue
			}
			break
		}
		if moved+n-1 > s.limit { // the bytes between the quotes so far
			return nil, s.errLongAt(start)
		}
		if n >= len(buf) {
			if long && n >= len(s.buf) {
				// The window is full of the string: move its text out,
				// all but an incomplete UTF-8 sequence at its end.
				cut := n
				if high {
					cut = runeCut(buf, run, n)
				}
				if seg := buf[run:cut]; high && !utf8.Valid(seg) {
					return nil, s.badUTF8(s.pos+run, seg)
				}
				s.keepLong(buf[1 : 1+w])
				s.keepLong(buf[run:cut])
				shift := cut - 1 // the string restarts at buf[pos+cut-1]
				s.pos += shift
				moved += shift
				n -= shift
				w, run, high = 0, 1, n > 1
			}
			if !s.fill() {
				// Invalid UTF-8 before the end is reported as such,
				// whether or not the window moved the text before it out.
				if b := s.buf[s.pos:s.end]; high {
					if seg := b[run:runeCut(b, run, n)]; !utf8.Valid(seg) {
						return nil, s.badUTF8(s.pos+run, seg)
					}
				}
				return nil, s.errEnd("in string")
			}
			continue
		}
		c := buf[n]
		if c != '"' && c != '\\' {
			return nil, s.errAt(s.pos+n, "invalid control character %s in string (escape it)", describe(c))
		}
		if run < n {
			seg := buf[run:n]
			if high && !utf8.Valid(seg) {
				return nil, s.badUTF8(s.pos+run, seg)
			}
			if 1+w != run {
				copy(buf[1+w:], seg)
			}
			w += n - run
			high = false
		}
		if c == '"' {
			s.pos += n + 1
			return buf[1 : 1+w], nil
		}
		// An escape: its longest form, a surrogate pair, takes 12 bytes.
		if s.pos+n+12 > s.end {
			if long && n+12 > len(s.buf) {
				s.keepLong(buf[1 : 1+w])
				shift := n - 1
				s.pos += shift
				moved += shift
				n, w = 1, 0
			}
			s.ensure(n + 12)
			buf = s.buf[s.pos:s.end]
		}
		esc := n
		if n+1 >= len(buf) {
			return nil, s.errEnd("in string escape")
		}
		e := buf[n+1]
		n += 2
		switch e {
		case '"', '\\', '/':
		case 'b':
			e = '\b'
		case 'f':
			e = '\f'
		case 'n':
			e = '\n'
		case 'r':
			e = '\r'
		case 't':
			e = '\t'
		case 'u':
			r, ok := s.hex4(n)
			if !ok {
				return nil, s.badEscape(esc)
			}
			n += 4
			switch {
			case r >= 0xD800 && r < 0xDC00:
				// A high surrogate must be followed by a low one.
				var lo rune = -1
				if n+1 < len(buf) && buf[n] == '\\' && buf[n+1] == 'u' {
					if l, ok := s.hex4(n + 2); ok && l >= 0xDC00 && l < 0xE000 {
						lo = l
					}
				}
				if lo < 0 {
					return nil, s.errAt(s.pos+esc, "invalid escape %s in string: unpaired surrogate", s.escText(esc, 6))
				}
				n += 6
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			case r >= 0xDC00 && r < 0xE000:
				return nil, s.errAt(s.pos+esc, "invalid escape %s in string: unpaired surrogate", s.escText(esc, 6))
			}
			w += utf8.EncodeRune(buf[1+w:], r)
			run = n
			continue
		default:
			return nil, s.badEscape(esc)
		}
		buf[1+w] = e
		w++
		run = n
	}
}

// runeCut returns where the run buf[run:n] ends without an incomplete
// UTF-8 sequence at its end: n, or the start of that sequence.
func runeCut(buf []byte, run, n int) int {
	for k := 1; k < utf8.UTFMax && n-k >= run; k++ {
		if utf8.RuneStart(buf[n-k]) {
			if !utf8.FullRune(buf[n-k : n]) {
				return n - k
			}
			break
		}
	}
	return n
}

// badUTF8 reports the first invalid UTF-8 sequence in str, which starts at
// buf[p].
func (s *scanner) badUTF8(p int, str []byte) error {
	for i := 0; i < len(str); {
		r, size := utf8.DecodeRune(str[i:])
		if r == utf8.RuneError && size <= 1 {
			return s.errAt(p+i, "invalid UTF-8 in string (byte 0x%02x)", str[i])
		}
		i += size
	}
	return s.errAt(p, "invalid UTF-8 in string")
}

// hex4 decodes four hex digits at pos+n.
func (s *scanner) hex4(n int) (rune, bool) {
	if s.pos+n+4 > s.end {
		return 0, false
	}
	var r rune
	for _, c := range s.buf[s.pos+n : s.pos+n+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// escText quotes up to max bytes of the escape at pos+esc for a message.
func (s *scanner) escText(esc, max int) string {
	t := s.buf[s.pos+esc : min(s.pos+esc+max, s.end)]
	for i, c := range t {
		if i > 0 && (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
			t = t[:i]
			break
		}
	}
	return fmt.Sprintf("%q", t)
}

func (s *scanner) badEscape(esc int) error {
	if s.pos+esc+2 > s.end {
		return s.errEnd("in string escape")
	}
	if s.buf[s.pos+esc+1] == 'u' {
		if s.pos+esc+6 > s.end {
			return s.errEnd("in string escape")
		}
		return s.errAt(s.pos+esc, "invalid escape %s in string: want \\u and four hex digits", s.escText(esc, 6))
	}
	return s.errAt(s.pos+esc, "invalid escape %s in string", s.escText(esc, 2))
}

// byteAt returns the byte n after pos, or -1 at the end of the input.
func (s *scanner) byteAt(n int) int {
	if s.pos+n < s.end {
		return int(s.buf[s.pos+n])
	}
	return s.byteAtSlow(n)
}

func (s *scanner) byteAtSlow(n int) int {
	for s.pos+n >= s.end {
		if !s.fill() {
			return -1
		}
	}
	return int(s.buf[s.pos+n])
}

// delimiter reports whether c (a byte or -1 for the end) may follow a
// number or literal.
func delimiter(c int) bool {
	switch c {
	case -1, ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

// readNumber scans the number at pos per the JSON grammar and consumes it.
// It returns its text (valid until the next scanner call) and, when the
// number is an integer of at most 18 digits without fraction or exponent
// (and not -0), its value with isInt set. A number longer than maxNumber
// is an error as soon as its first maxNumber bytes are read.
func (s *scanner) readNumber() (text []byte, v int64, isInt bool, err error) {
	if s.end-s.pos < minAhead {
		s.ensure(minAhead)
	}
	// Fast path: an integer of up to 18 digits followed by a delimiter.
	if buf := s.buf[s.pos:s.end]; len(buf) >= minAhead {
		i := 0
		neg := buf[0] == '-'
		if neg {
			i = 1
		}
		var u uint64
		j := i
		for j < i+18 && buf[j] >= '0' && buf[j] <= '9' {
			u = u*10 + uint64(buf[j]-'0')
			j++
		}
		if j > i && (buf[i] != '0' || j == i+1) && !(neg && u == 0) {
			switch buf[j] {
			case ' ', '\t', '\n', '\r', ',', '}', ']':
				text = buf[:j]
				s.pos += j
				v = int64(u)
				if neg {
					v = -v
				}
				return text, v, true, nil
			}
		}
	}
	n := 0
	c := s.byteAt(0)
	neg := c == '-'
	if neg {
		n++
		c = s.byteAt(n)
	}
	digits := 0
	var u uint64
	switch {
	case c == '0':
		n++
		digits = 1
		c = s.byteAt(n)
		if isDigit(c) {
			return nil, 0, false, s.errAt(s.pos+n-1, "invalid number: leading zero")
		}
	case c >= '1' && c <= '9':
		for isDigit(c) {
			u = u*10 + uint64(c-'0')
			digits++
			if n++; n > maxNumber {
				return nil, 0, false, s.errLongNumber()
			}
			c = s.byteAt(n)
		}
	default:
		return nil, 0, false, s.numberErr(n, c, "after '-'")
	}
	isInt = digits <= 18 && !(neg && u == 0)
	if c == '.' {
		isInt = false
		n++
		c = s.byteAt(n)
		if !isDigit(c) {
			return nil, 0, false, s.numberErr(n, c, "after the decimal point")
		}
		for isDigit(c) {
			if n++; n > maxNumber {
				return nil, 0, false, s.errLongNumber()
			}
			c = s.byteAt(n)
		}
	}
	if c == 'e' || c == 'E' {
		isInt = false
		n++
		c = s.byteAt(n)
		if c == '+' || c == '-' {
			n++
			c = s.byteAt(n)
		}
		if !isDigit(c) {
			return nil, 0, false, s.numberErr(n, c, "in the exponent")
		}
		for isDigit(c) {
			if n++; n > maxNumber {
				return nil, 0, false, s.errLongNumber()
			}
			c = s.byteAt(n)
		}
	}
	if !delimiter(c) {
		return nil, 0, false, s.errAt(s.pos+n, "invalid character %s in number", describe(byte(c)))
	}
	text = s.buf[s.pos : s.pos+n]
	s.pos += n
	if isInt {
		v = int64(u)
		if neg {
			v = -v
		}
	}
	return text, v, isInt, nil
}

func (s *scanner) numberErr(n, c int, where string) error {
	if c < 0 {
		return s.errEnd("in number")
	}
	return s.errAt(s.pos+n, "invalid number: want a digit %s, got %s", where, describe(byte(c)))
}

// readLiteral consumes the literal word (null, true or false) at pos.
func (s *scanner) readLiteral(word string) error {
	for i := 0; i < len(word); i++ {
		c := s.byteAt(i)
		if c < 0 {
			return s.errEnd("in literal " + word)
		}
		if c != int(word[i]) {
			return s.errAt(s.pos+i, "invalid character %s in literal %s", describe(byte(c)), word)
		}
	}
	if c := s.byteAt(len(word)); !delimiter(c) {
		return s.errAt(s.pos+len(word), "invalid character %s after literal %s", describe(byte(c)), word)
	}
	s.pos += len(word)
	return nil
}

// errNotValue reports the byte at pos where a value was expected.
func (s *scanner) errNotValue(c byte) error {
	return s.errAt(s.pos, "invalid character %s looking for a value", describe(c))
}

// skipBOM drops a leading UTF-8 byte order mark.
func (s *scanner) skipBOM() {
	s.ensure(3)
	if s.end-s.pos >= 3 && s.buf[s.pos] == 0xEF && s.buf[s.pos+1] == 0xBB && s.buf[s.pos+2] == 0xBF {
		s.pos += 3
		s.lineStart = s.base + int64(s.pos)
	}
}
