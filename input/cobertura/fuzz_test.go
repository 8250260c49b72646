package cobertura

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

// FuzzRead reads arbitrary reports: it must not panic or hang, and it
// commits one result set on success (none for an input with no coverable
// line) and none on error.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<coverage><packages><package name="p"><classes><class name="c" filename="a"><methods><method name="m"><lines><line number="2" hits="3"/><line number="2" hits="9"/></lines></method></methods><lines><line number="1" hits="0"/><line number="2" hits="1"/></lines></class></classes></package></packages></coverage>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &resultset.Memory{}
		res, err := Read(context.Background(), bytes.NewReader(data), "fuzz.xml", m, input.Options{})
		if err != nil {
			if len(m.Sets) != 0 || res != nil {
				t.Fatalf("error %v, yet %d sets committed", err, len(m.Sets))
			}
			if !strings.HasPrefix(err.Error(), "fuzz.xml:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		// One result set, or none for an input with no coverable line.
		if len(m.Sets) != len(res) || len(res) > 1 {
			t.Fatalf("%d sets, %d results", len(m.Sets), len(res))
		}
	})
}
