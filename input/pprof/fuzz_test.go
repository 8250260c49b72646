package pprof_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/pprof"
	"github.com/profdb/profdb/resultset"
)

// FuzzRead: no input panics or hangs the reader; an input that fails
// writes nothing and names the file; one that succeeds writes one result
// set. Sniff must not panic either.
func FuzzRead(f *testing.F) {
	for _, types := range [][]string{
		{"samples/count", "cpu/nanoseconds"},
		{"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"},
		{"contentions/count", "delay/nanoseconds"},
	} {
		b := synthetic(f, types...)
		f.Add(b)
		f.Add(gunzip(f, b))
	}
	f.Add([]byte{})
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pprof.Sniff(data)
		m := &resultset.Memory{}
		res, err := pprof.Read(t.Context(), bytes.NewReader(data), "fuzz.pprof", m, input.Options{})
		if err != nil {
			if len(m.Sets) != 0 || res != nil {
				t.Fatalf("error %v, yet %d sets committed", err, len(m.Sets))
			}
			if !strings.HasPrefix(err.Error(), "fuzz.pprof: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(m.Sets) != 1 || len(res) != 1 {
			t.Fatalf("%d sets, %d results", len(m.Sets), len(res))
		}
	})
}
