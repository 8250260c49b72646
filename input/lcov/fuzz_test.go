package lcov

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/resultset"
)

// FuzzRead reads arbitrary tracefiles: it must not panic or hang, and it
// commits one result set on success (none for an input with no coverable
// line) and none on error.
func FuzzRead(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.info"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed tracefiles in testdata: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"SF:x.c\nFN:1,10,outer\nFN:3,5,inner\nDA:2,1\nDA:4,2\nDA:11,1\nend_of_record\n",
		"SF:x.c\nFNL:0,1,3\nFNA:0,2,f\nFNA:0,0,g\nDA:1,-1\nend_of_record\n",
		"TN:t\nSF:a\nFNDA:1,f\nFN:9223372036854775807,f\nDA:9223372036854775807,9223372036854775807\nDA:9223372036854775807,1\nend_of_record\n",
		"SF:a\nFN:1,f\nFN:1,g\nFN:2,h\nend_of_record\nSF:a\nFN:1,f\nend_of_record\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &resultset.Memory{}
		res, err := Read(context.Background(), bytes.NewReader(data), "fuzz.info", m, input.Options{Warnf: func(string, ...any) {}})
		if err != nil {
			if len(m.Sets) != 0 || res != nil {
				t.Fatalf("error %v, yet %d sets committed", err, len(m.Sets))
			}
			if !strings.HasPrefix(err.Error(), "fuzz.info") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// One result set, or none for an input with no coverable line.
		if len(m.Sets) != len(res) || len(res) > 1 {
			t.Fatalf("%d sets, %d results", len(m.Sets), len(res))
		}
	})
}
