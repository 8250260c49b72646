package interchange

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
)

// TestLongKeys: an unknown key of 200 MB, wherever keys are, is reported
// cut to its first 64 characters and "…", after reading no more than the
// window of it.
func TestLongKeys(t *testing.T) {
	key := strings.Repeat("k", 200<<20)
	const ft = `{"profiler":"function-trace","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{`
	cut := `"` + strings.Repeat("k", 64) + `…"`
	for _, tc := range []struct{ name, before, want string }{
		{"result set", `{"`, "x.json:1:2: unknown key " + cut + " in result set object"},
		{"counter", `{"profiler":"resource","counter":{"`, "x.json:1:35: unknown key " + cut + " in counter object"},
		{"table", `{"tables":{"`, "x.json:1:12: unknown table " + cut + ": no registered profiler"},
		{"column", ft + `"`, "x.json:1:76: table FUNCTION_TRACE_PROFILER_THREADS has no column " + cut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &input.CountingReader{R: io.MultiReader(strings.NewReader(tc.before), strings.NewReader(key), strings.NewReader(`": 1}]}}`))}
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
		in := &input.CountingReader{R: io.MultiReader(strings.NewReader(`{"profiler":"resource",`+"\n"+` "caption":"`+esc),
			strings.NewReader(strings.Repeat("c", 200<<20)), strings.NewReader(`"}`))}
		r := &recorder{}
		_, err := Read(context.Background(), in, "x.json", r)
		if want := `x.json:2:12: a string longer than 16 MiB, the most profdb reads`; err == nil || err.Error() != want {
			t.Errorf("escape %q: error %.300v, want %s", esc, err, want)
		}
		if in.N > 2*maxString+1<<20 {
			t.Errorf("escape %q: %d bytes read", esc, in.N)
		}
	}
}
