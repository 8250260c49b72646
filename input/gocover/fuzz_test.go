package gocover

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/resultset"
)

// FuzzRead reads arbitrary profiles against the sources of testdata/cov: it
// must not panic or hang, and it commits exactly one result set on success
// (none for a profile without a block) and none on error.
func FuzzRead(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.out"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed profiles in testdata: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"mode: set\nexample.com/cov/calc.go:15.18,19.2 3 1\nmode: set\nexample.com/cov/calc.go:15.18,19.2 3 0\n",
		"mode: atomic\nexample.com/cov/calc.go:1.1,2000000000.1 1 5\n",
		"mode: count\nexample.com/cov/shapes/shapes.go:5.24,5.40 0 1\r\n\r\n",
		"mode: count\nexample.com/cov/nope.go:1.1,1.2 1 1\n",
		"mode: set\n:1.1,1.1 1 1\n",
	} {
		f.Add([]byte(s))
	}
	root, err := filepath.Abs(filepath.Join("testdata", "cov"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &resultset.Memory{}
		res, err := Read(context.Background(), strings.NewReader(string(data)), "fuzz.out", m,
			input.Options{SourceRoot: root, SkipMissing: len(data)%2 == 0})
		if err != nil {
			if len(m.Sets) != 0 || res != nil {
				t.Fatalf("error %v, yet %d sets committed", err, len(m.Sets))
			}
			if !strings.HasPrefix(err.Error(), "fuzz.out") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// A profile without a block holds no result set; any other
		// commits exactly one.
		want := 1
		if p, err := parseProfile(context.Background(), strings.NewReader(string(data)), "fuzz.out"); err == nil && len(p.order) == 0 {
			want = 0
		}
		if len(m.Sets) != want || len(res) != want {
			t.Fatalf("%d sets, %d results; want %d", len(m.Sets), len(res), want)
		}
	})
}
