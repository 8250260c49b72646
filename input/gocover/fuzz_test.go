package gocover

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
)

// FuzzRead reads arbitrary profiles against the sources of testdata/cov: it
// must not panic or hang, and it commits exactly one result set on success
// (none for a profile without a block) and none on error, whose message
// names the file.
func FuzzRead(f *testing.F) {
	root, err := filepath.Abs(filepath.Join("testdata", "cov"))
	if err != nil {
		f.Fatal(err)
	}
	inputtest.Fuzz{
		Read: Read, Name: "fuzz.out", ErrPrefix: "fuzz.out", Glob: "*.out",
		Seeds: []string{
			"mode: set\nexample.com/cov/calc.go:15.18,19.2 3 1\nmode: set\nexample.com/cov/calc.go:15.18,19.2 3 0\n",
			"mode: atomic\nexample.com/cov/calc.go:1.1,2000000000.1 1 5\n",
			"mode: count\nexample.com/cov/shapes/shapes.go:5.24,5.40 0 1\r\n\r\n",
			"mode: count\nexample.com/cov/nope.go:1.1,1.2 1 1\n",
			"mode: set\n:1.1,1.1 1 1\n",
		},
		Options: func(data []byte) input.Options {
			return input.Options{SourceRoot: root, SkipMissing: len(data)%2 == 0}
		},
		// A profile without a block holds no result set; any other
		// commits exactly one.
		Sets: func(data []byte) int {
			if p, err := parseProfile(context.Background(), strings.NewReader(string(data)), "fuzz.out"); err == nil && len(p.order) == 0 {
				return 0
			}
			return 1
		},
	}.Run(f)
}
