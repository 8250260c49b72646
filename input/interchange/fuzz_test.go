package interchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/profdb/profdb/resultset"
)

// fuzzSeeds are inputs for the fuzz targets: the examples and bad inputs.
func fuzzSeeds(f *testing.F) [][]byte {
	files := examplesFiles(f)
	var seeds [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	const ft = `{"profiler":"function-trace","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[`
	for _, s := range []string{
		ft + `{"ID":0,"PARENT_ID":-1,"REC_ID":0,"COL_WIN32THREADID":4711}]}}`,
		`[{"profiler":"resource"},{"profiler":"resource","caption":"\u00e9\ud83d\ude00"}]`,
		`{"tables":{"FUNCTION_TRACE_PROFILER_CALL_STACK":[{"ID":1,"PARENT_ID":0}],"FUNCTION_TRACE_PROFILER_CALL_ROUTES":[{"ID":0}]},"caption":"x","profiler":"function-trace"}`,
		`{"tables":{"LIGHT_COVERAGE_PROFILER_MODULES_DATA":[{"COL____COVERED":1e308,"COL_MARK":"18446744073709551615"}]}}`,
		ft + `{"ID":01}]}}`, ft + `{"ID":1.}]}}`, ft + `{"ID":-}]}}`, ft + `{"ID":[1]}]}}`,
		ft + `{"INST_ID":1}]}}`, ft + `{"ID":"x"}]}}`, ft + `{"ID":9223372036854775808}]}}`,
		`{"profiler":"resource","caption":"\ud800"}`, `{"profiler":"resource","caption":"\q"}`,
		"{\"profiler\":\"resource\",\"caption\":\"\xff\"}", `{"profiler":"nope"}`, `{"profiler":"resource"} x`,
		`{"profiler":"resource","tables":{"RESOURCE_PROFILER_THREADS":[{"ID":1}`, "", "[", "[]", "\xEF\xBB\xBF{}",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzRead: Read never panics or hangs; it commits only complete result
// sets, reports every error with its place, and accepts only valid JSON.
func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &resultset.Memory{}
		res, err := Read(context.Background(), bytes.NewReader(data), "fuzz.json", m)
		if len(res) != len(m.Sets) {
			t.Fatalf("%d results for %d committed result sets", len(res), len(m.Sets))
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz.json" || pe.Line < 1 {
				t.Fatalf("error without its place: %v", err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(trimBOM(data)))
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("Read accepted what encoding/json rejects (%v): %q", err, data)
			}
		}
	})
}

// scanValue decodes any JSON value with the scanner, as encoding/json does
// with UseNumber: its strings with readValue, its keys with readString.
func scanValue(s *scanner, depth int) (any, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.errEnd("looking for a value")
	}
	if depth > 1000 {
		return nil, s.errAt(s.pos, "too deep")
	}
	switch {
	case c == '{':
		s.pos++
		m := map[string]any{}
		if c, ok := s.peek(); ok && c == '}' {
			s.pos++
			return m, nil
		}
		for {
			c, ok := s.peek()
			if !ok {
				return nil, s.errEnd("in object")
			}
			if c != '"' {
				return nil, s.errAt(s.pos, "want a key")
			}
			k, err := s.readString()
			if err != nil {
				return nil, err
			}
			key := string(k)
			if err := s.expect(':', "after object key"); err != nil {
				return nil, err
			}
			v, err := scanValue(s, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
			sep, err := s.next('}', "object")
			if err != nil {
				return nil, err
			}
			if sep == '}' {
				return m, nil
			}
		}
	case c == '[':
		s.pos++
		a := []any{}
		if c, ok := s.peek(); ok && c == ']' {
			s.pos++
			return a, nil
		}
		for {
			v, err := scanValue(s, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			sep, err := s.next(']', "array")
			if err != nil {
				return nil, err
			}
			if sep == ']' {
				return a, nil
			}
		}
	case c == '"':
		return s.readValue()
	case c == '-' || isDigit(int(c)):
		text, v, isInt, err := s.readNumber()
		if err == nil && isInt && json.Number(text) != json.Number(fmtInt(v)) {
			return nil, s.errAt(s.pos, "integer %s read as %d", text, v)
		}
		return json.Number(text), err
	case c == 't':
		return true, s.readLiteral("true")
	case c == 'f':
		return false, s.readLiteral("false")
	case c == 'n':
		return nil, s.readLiteral("null")
	}
	return nil, s.errNotValue(c)
}

func fmtInt(v int64) string {
	b, _ := appendValue(nil, v)
	return string(b)
}

// scanDocument decodes data, one JSON value, with the scanner; a window
// of window bytes, if not 0, stands for the usual one.
func scanDocument(data []byte, r io.Reader, window int) (any, error) {
	s := newScanner(r, "f")
	if window > 0 {
		s.buf = make([]byte, window)
	}
	v, err := scanValue(s, 0)
	if err != nil {
		return nil, err
	}
	if c, ok := s.peek(); ok {
		return nil, s.errAt(s.pos, "trailing %q", c)
	}
	return v, nil
}

// FuzzScanner compares the scanner with encoding/json on any JSON value:
// the same inputs are valid and decode to the same value. The scanner is
// stricter in these ways only: it rejects invalid UTF-8 and unpaired
// surrogate escapes, which encoding/json replaces with U+FFFD, and tokens
// longer than its bounds (maxString, maxNumber).
func FuzzScanner(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{`"\u0041\n\/"`, `-0.0e+00`, `[1,[2,{"a":null}],true,false]`, `{"a":1,"a":2}`, " 1 ", `"\ud83d\ude00"`, `1e`, `[1,]`, `"\u00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := scanDocument(data, bytes.NewReader(data), 0)
		for _, window := range []int{0, 16, 17} {
			// A byte at a time, and through windows that string values
			// fill, whose text then moves out of the window (readValue).
			got1, err1 := scanDocument(data, &oneByte{data}, window)
			if (err == nil) != (err1 == nil) || !reflect.DeepEqual(got, got1) || err != nil && err.Error() != err1.Error() {
				t.Fatalf("read whole: %v %v; a byte at a time, window %d: %v %v", got, err, window, got1, err1)
			}
		}
		valid := json.Valid(data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error without a place: %v", err)
			}
			stricter := !utf8.Valid(data) || strings.Contains(err.Error(), "unpaired surrogate") || strings.Contains(err.Error(), "too deep") || strings.Contains(err.Error(), "longer than")
			if valid && !stricter {
				t.Fatalf("scanner rejects valid JSON %q: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("scanner accepts invalid JSON %q", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanner: %#v\nencoding/json: %#v", got, want)
		}
	})
}

// oneByte is a reader that returns one byte per Read.
type oneByte struct{ b []byte }

func (r *oneByte) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}
