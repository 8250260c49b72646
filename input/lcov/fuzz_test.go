package lcov

import (
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
)

// FuzzRead reads arbitrary tracefiles: it must not panic or hang, and it
// commits one result set on success (none for an input with no coverable
// line) and none on error, whose message names the file.
func FuzzRead(f *testing.F) {
	inputtest.Fuzz{
		Read: Read, Name: "fuzz.info", ErrPrefix: "fuzz.info", Glob: "*.info",
		Seeds: []string{
			"SF:x.c\nFN:1,10,outer\nFN:3,5,inner\nDA:2,1\nDA:4,2\nDA:11,1\nend_of_record\n",
			"SF:x.c\nFNL:0,1,3\nFNA:0,2,f\nFNA:0,0,g\nDA:1,-1\nend_of_record\n",
			"TN:t\nSF:a\nFNDA:1,f\nFN:9223372036854775807,f\nDA:9223372036854775807,9223372036854775807\nDA:9223372036854775807,1\nend_of_record\n",
			"SF:a\nFN:1,f\nFN:1,g\nFN:2,h\nend_of_record\nSF:a\nFN:1,f\nend_of_record\n",
		},
		Options: func([]byte) input.Options { return input.Options{Warnf: func(string, ...any) {}} },
	}.Run(f)
}
