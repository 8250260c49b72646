package cobertura

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
		Seeds: []string{`<coverage><packages><package name="p"><classes><class name="c" filename="a"><methods><method name="m"><lines><line number="2" hits="3"/><line number="2" hits="9"/></lines></method></methods><lines><line number="1" hits="0"/><line number="2" hits="1"/></lines></class></classes></package></packages></coverage>`},
	}.Run(f)
}
