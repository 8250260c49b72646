package readback_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
)

// What profdb list prints: the columns of what was recorded, and of a
// run's identity when any result set has one; "-" for what one lacks;
// names escaped; [] in JSON for none.
func TestListing(t *testing.T) {
	dirty := true
	l := readback.Listing{
		{InstID: 1, Profiler: "light-coverage", Rows: 10, Caption: "a\x1b", ExportedAt: "2026-01-31T10:00:00Z", Host: "h", Version: "v1.2 (go)", Input: "in.json",
			Run: &resultset.Run{Commit: "0123456789abcdef", Dirty: &dirty, Branch: "main", Labels: map[string]string{"suite": "unit", "os": "linux"}}},
		{InstID: 2, Rows: 1, Caption: "b"},
	}
	var b bytes.Buffer
	if err := l.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := [][]string{
		{"INST_ID", "PROFILER", "ROWS", "EXPORTED", "(UTC)", "HOST", "VERSION", "INPUT", "COMMIT", "BRANCH", "LABELS", "CAPTION"},
		{"1", "light-coverage", "10", "2026-01-31", "10:00:00", "h", "v1.2", "in.json", "0123456789ab+", "main", "os=linux,suite=unit", `"a\x1b"`},
		{"2", "?", "1", "-", "-", "-", "-", "-", "-", "-", `"b"`},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want the fields %q", i, lines[i], w)
		}
	}
	b.Reset()
	if err := readback.Listing(nil).WriteJSON(&b); err != nil || b.String() != "[]\n" {
		t.Errorf("no result set as JSON: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := (readback.Listing{{InstID: 7, Caption: "c"}}).WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"inst_id": 7`) {
		t.Errorf("a result set as JSON: %q, %v", b.String(), err)
	}
}
