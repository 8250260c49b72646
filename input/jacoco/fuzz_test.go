package jacoco

import (
	"testing"

	"github.com/profdb/profdb/internal/inputtest"
)

// FuzzRead reads arbitrary reports: it must not panic or hang, and it
// commits one result set on success (none for an input with no coverable
// line) and none on error, whose message names the file and line.
func FuzzRead(f *testing.F) {
	inputtest.Fuzz{
		Read: Read, Name: "fuzz.xml", ErrPrefix: "fuzz.xml:", Glob: "*.xml",
		Seeds: []string{`<report name="r"><group name="g"><package name="p"><class name="p/A" sourcefilename="A.java"><method name="m" desc="()V" line="3"><counter type="METHOD" missed="0" covered="1"/></method><method name="n" line="3"/></class><sourcefile name="A.java"><line nr="1" mi="0" ci="1"/><line nr="3" mi="0" ci="2"/><line nr="3" mi="1" ci="0"/></sourcefile></package></group></report>`},
	}.Run(f)
}
