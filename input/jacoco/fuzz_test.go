package jacoco

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
	f.Add([]byte(`<report name="r"><group name="g"><package name="p"><class name="p/A" sourcefilename="A.java"><method name="m" desc="()V" line="3"><counter type="METHOD" missed="0" covered="1"/></method><method name="n" line="3"/></class><sourcefile name="A.java"><line nr="1" mi="0" ci="1"/><line nr="3" mi="0" ci="2"/><line nr="3" mi="1" ci="0"/></sourcefile></package></group></report>`))
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
