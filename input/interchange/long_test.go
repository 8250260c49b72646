package interchange

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
)

// repeated is a reader of n copies of the byte c, made as they are read:
// a token of 200 MB without 200 MB in the test.
type repeated struct {
	c byte
	n int64
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.c
	}
	r.n -= k
	return int(k), nil
}

// huge returns a reader of before, 200 MB of c, then after, counting what
// is read of it.
func huge(before string, c byte, after string) *input.CountingReader {
	return &input.CountingReader{R: io.MultiReader(strings.NewReader(before), &repeated{c, 200 << 20}, strings.NewReader(after))}
}

// TestLongKeys: an unknown key of 200 MB, wherever keys are, is reported
// cut to its first 64 characters and "…", after reading no more than the
// window of it.
func TestLongKeys(t *testing.T) {
	const ft = `{"profiler":"function-trace","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{`
	cut := `"` + strings.Repeat("k", 64) + `…"`
	for _, tc := range []struct{ name, before, want string }{
		{"result set", `{"`, "x.json:1:2: unknown key " + cut + " in result set object"},
		{"counter", `{"profiler":"resource","counter":{"`, "x.json:1:35: unknown key " + cut + " in counter object"},
		{"table", `{"tables":{"`, "x.json:1:12: unknown table " + cut + ": no registered profiler"},
		{"column", ft + `"`, "x.json:1:76: table FUNCTION_TRACE_PROFILER_THREADS has no column " + cut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := huge(tc.before, 'k', `": 1}]}}`)
			r := &recorder{}
			_, err := Read(context.Background(), in, "x.json", r)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %.300v, want %s", err, tc.want)
			}
			if in.N > 1<<20 {
				t.Errorf("%d bytes read to report the key", in.N)
			}
		})
	}
}

// TestLongString: a string longer than maxString (a caption of 200 MB) is
// an error naming where it starts.
func TestLongString(t *testing.T) {
	for _, esc := range []string{"", `\n`} {
		in := huge(`{"profiler":"resource",`+"\n"+` "caption":"`+esc, 'c', `"}`)
		r := &recorder{}
		_, err := Read(context.Background(), in, "x.json", r)
		if want := `x.json:2:12: a string longer than 8 MiB, the most profdb reads`; err == nil || err.Error() != want {
			t.Errorf("escape %q: error %.300v, want %s", esc, err, want)
		}
		if in.N > 2*maxString+1<<20 {
			t.Errorf("escape %q: %d bytes read", esc, in.N)
		}
	}
}

// TestLongNumbers: a number of 200 MB, in a row or as the counter's
// frequency, in its digits, its fraction or its exponent, is an error at
// its start once maxNumber bytes of it are read: the reader held all of it
// (900 MB and 3 s to read a 200 MB number before the error).
func TestLongNumbers(t *testing.T) {
	const row = `{"profiler":"function-trace","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[` + "\n" + `{"ID":0,"PARENT_ID":-1,"COL_WIN32THREADID":`
	const freq = `{"profiler":"function-trace",` + "\n" + `"counter":{"name":"Time","frequency":`
	for _, tc := range []struct{ name, before, want string }{
		{"digits", row + "1", "x.json:2:44: "},
		{"negative", row + "-", "x.json:2:44: "},
		{"fraction", row + "0.", "x.json:2:44: "},
		{"exponent", row + "1e+", "x.json:2:44: "},
		{"frequency", freq + "2", "x.json:2:38: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := huge(tc.before, '7', "}]}}")
			_, err := Read(context.Background(), in, "x.json", &recorder{})
			if want := tc.want + "a number longer than 4 KiB, the most profdb reads"; err == nil || err.Error() != want {
				t.Errorf("error %.300v, want %s", err, want)
			}
			// What comes before the number, then one window.
			if limit := int64(len(tc.before) + bufSize); in.N > limit {
				t.Errorf("%d bytes read to refuse the number, more than the %d before it and the window of %d", in.N, len(tc.before), bufSize)
			}
		})
	}

	// What the scanner holds: a number of maxNumber bytes is read, one
	// byte more is refused, and the window never grows for either.
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"-0." + strings.Repeat("4", maxNumber-3), true},
		{"-0." + strings.Repeat("4", maxNumber-2), false},
		{strings.Repeat("9", maxNumber), true},
		{strings.Repeat("9", maxNumber+1), false},
		{"1e" + strings.Repeat("0", maxNumber-2), true},
		{"1e" + strings.Repeat("0", maxNumber-1), false},
	} {
		s := newScanner(io.MultiReader(strings.NewReader(tc.text), &repeated{' ', 1 << 20}), "x.json")
		text, _, _, err := s.readNumber()
		if tc.ok && (err != nil || string(text) != tc.text) || !tc.ok && err == nil {
			t.Errorf("a number of %d bytes: %d bytes read, %v", len(tc.text), len(text), err)
		}
		if len(s.buf) != bufSize {
			t.Errorf("a number of %d bytes: the window grew to %d bytes", len(tc.text), len(s.buf))
		}
	}
}

// TestLongWhiteSpaceAndNesting: 200 MB of white space between tokens is
// read through in the window, and 200 MB of nested arrays is refused at
// the second one.
func TestLongWhiteSpaceAndNesting(t *testing.T) {
	in := huge(`{"profiler":"resource",`, ' ', "\n"+`"caption":"c"}`)
	s := newScanner(in, "x.json")
	d := &decoder{ctx: context.Background(), s: s, t: &recorder{}, tables: map[string]*tableInfo{}}
	if err := d.run(); err != nil || len(d.results) != 1 {
		t.Errorf("200 MB of white space: %d results, %v", len(d.results), err)
	}
	if len(s.buf) != bufSize {
		t.Errorf("200 MB of white space: the window grew to %d bytes", len(s.buf))
	}

	in = huge("", '[', "")
	_, err := Read(context.Background(), in, "x.json", &recorder{})
	if want := "x.json:1:2: invalid character '[' in array: want a result set object"; err == nil || err.Error() != want {
		t.Errorf("200 MB of '[': %v, want %s", err, want)
	}
	if in.N > bufSize {
		t.Errorf("200 MB of '[': %d bytes read", in.N)
	}
}

// TestLongValues: string values from a byte to maxString as written, with
// escapes and characters of every length across the window's edges, read
// back as encoding/json reads them, and the window never grows for them.
func TestLongValues(t *testing.T) {
	units := []string{`ab\n`, `é`, `\u00e9`, `😀`, `\ud83d\ude00`, `x\"\\`, "\u20ac"}
	for _, size := range []int{1, bufSize - 3, bufSize + 1, 3*bufSize + 7, longJump + 5, 5 << 20, maxString} {
		for i, unit := range units {
			var b strings.Builder
			b.WriteString(`"`)
			for b.Len()-1+len(unit) <= size {
				b.WriteString(unit)
			}
			for b.Len()-1 < size {
				b.WriteString("z")
			}
			b.WriteString(`"`)
			var want string
			if err := json.Unmarshal([]byte(b.String()), &want); err != nil {
				t.Fatal(err)
			}
			s := newScanner(io.MultiReader(strings.NewReader(b.String()), strings.NewReader(" ")), "x.json")
			got, err := s.readValue()
			if err != nil || got != want {
				t.Errorf("%d bytes of %q: %d bytes read back, %v", size, unit, len(got), err)
			}
			if len(s.buf) != bufSize {
				t.Errorf("%d bytes of %q: the window grew to %d bytes", size, unit, len(s.buf))
			}
			if i == 0 && size == maxString {
				// One more byte is too long.
				s = newScanner(strings.NewReader(b.String()[:b.Len()-1]+`z"`), "x.json")
				if _, err := s.readValue(); err == nil || !strings.Contains(err.Error(), "x.json:1:1: a string longer than 8 MiB") {
					t.Errorf("a string of maxString+1 bytes: %v", err)
				}
			}
		}
	}
}

// TestLongValuesKept: the long values of one file, read one after another
// (past the window, short and long, copied out of the reader's buffer or
// the buffer itself), each keep their text after the reader has read the
// ones after it; a row's strings may take maxRow together and no more,
// and the error names the string that goes past it.
func TestLongValuesKept(t *testing.T) {
	const table = `RESOURCE_PROFILER_META_CLASSES_DATA`
	rows := [][2]int{ // the sizes of COL_CLASS_NAME and COL_MODULE_NAME, as written
		{bufSize + 1, 0}, {maxString, 0}, {longJump + 5, 7}, {3 << 20, bufSize * 3},
		{maxString - 1<<20, 0}, {bufSize * 3, longJump}, {maxRow / 2, maxRow / 2}, {1, maxString - 1},
	}
	// value is a string of n bytes as written, its own for each row and
	// column, with escapes across the window's edges; and its text.
	value := func(row, col, n int) (enc, dec string) {
		unit := fmt.Sprintf(`%c\n%c\"`, 'a'+row, 'A'+col)
		var b strings.Builder
		for b.Len()+len(unit) <= n {
			b.WriteString(unit)
		}
		for b.Len() < n {
			b.WriteString("z")
		}
		enc = b.String()
		if err := json.Unmarshal([]byte(`"`+enc+`"`), &dec); err != nil {
			t.Fatal(err)
		}
		return enc, dec
	}
	doc := func(rows [][2]int) (string, [][2]string) {
		var b strings.Builder
		var want [][2]string
		b.WriteString(`{"profiler":"resource","tables":{"` + table + `":[`)
		for i, r := range rows {
			if i > 0 {
				b.WriteString(",\n")
			}
			c, cd := value(i, 0, r[0])
			m, md := value(i, 1, r[1])
			fmt.Fprintf(&b, `{"ID":%d,"COL_CLASS_NAME":"%s","COL_MODULE_NAME":"%s"}`, i, c, m)
			want = append(want, [2]string{cd, md})
		}
		b.WriteString("]}}")
		return b.String(), want
	}
	in, want := doc(rows)
	r := &recorder{}
	if _, err := Read(context.Background(), strings.NewReader(in), "x.json", r); err != nil {
		t.Fatal(err)
	}
	got := r.mem.Sets[0].Tables[table]
	if len(got.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want))
	}
	for i, w := range want {
		for j, col := range []string{"COL_CLASS_NAME", "COL_MODULE_NAME"} {
			if v, _ := got.Value(i, col).(string); v != w[j] {
				t.Errorf("row %d, %s: %d bytes, %.20q…; want %d bytes, %.20q…", i, col, len(v), v, len(w[j]), w[j])
			}
		}
	}

	// One byte more than maxRow in a row, past the window in either string
	// or not.
	for _, r2 := range [][2]int{{maxRow/2 + 1, maxRow / 2}, {maxRow - 5, 6}, {10, maxRow - 9}} {
		in, _ := doc([][2]int{{3, 4}, r2})
		col := len(`{"ID":1,"COL_CLASS_NAME":"`) + r2[0] + len(`","COL_MODULE_NAME":`) + 1
		msg := fmt.Sprintf("x.json:2:%d: a row whose strings take more than 8 MiB, the most profdb reads", col)
		if _, err := Read(context.Background(), strings.NewReader(in), "x.json", &recorder{}); err == nil || err.Error() != msg {
			t.Errorf("a row of %d and %d bytes: error %v, want %s", r2[0], r2[1], err, msg)
		}
	}
}
