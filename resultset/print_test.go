package resultset_test

import (
	"bytes"
	"testing"

	"github.com/profdb/profdb/resultset"
)

// The line profdb prints for a result set it wrote, and the JSON of
// several: names escaped, counts in English, [] for none.
func TestResultsPrint(t *testing.T) {
	r := resultset.Result{InstID: 3, Profiler: "light-coverage", Caption: "run\x1b", Rows: 1}
	if got, want := r.Line(), `INST_ID 3  light-coverage  1 row  "run\x1b"`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	r.Rows = 64
	if got, want := r.LineAs("result set 2"), `result set 2  light-coverage  64 rows  "run\x1b"`; got != want {
		t.Errorf("LineAs = %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := (resultset.Results{r, {InstID: 4, Profiler: "resource"}}).WriteText(&b); err != nil ||
		b.String() != "INST_ID 3  light-coverage  64 rows  \"run\\x1b\"\nINST_ID 4  resource  0 rows  \"\"\n" {
		t.Errorf("WriteText: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := resultset.Results(nil).WriteJSON(&b); err != nil || b.String() != "[]\n" {
		t.Errorf("WriteJSON of none: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := (resultset.Results{{InstID: 3, Profiler: "resource", Rows: 2}}).WriteJSON(&b); err != nil ||
		b.String() != "[\n  {\n    \"inst_id\": 3,\n    \"profiler\": \"resource\",\n    \"caption\": \"\",\n    \"rows\": 2,\n    \"tables\": null\n  }\n]\n" {
		t.Errorf("WriteJSON: %q, %v", b.String(), err)
	}
}
