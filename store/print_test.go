package store_test

import (
	"bytes"
	"testing"

	"github.com/profdb/profdb/store"
)

// What verify and delete print: a line per finding or "ok"; a line per
// result set deleted, or that would be; [] in JSON for none.
func TestPrint(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"no findings", func(b *bytes.Buffer) error { return store.Findings(nil).WriteText(b) }, "ok\n"},
		{"findings", func(b *bytes.Buffer) error {
			return store.Findings{{InstID: 3, Table: "T\x1b", Message: "dup"}, {InstID: 4, Message: "gone"}}.WriteText(b)
		}, "INST_ID 3: T\\x1b: dup\nINST_ID 4: gone\n"},
		{"no findings, JSON", func(b *bytes.Buffer) error { return store.Findings(nil).WriteJSON(b) }, "[]\n"},
		{"findings, JSON", func(b *bytes.Buffer) error {
			return store.Findings{{InstID: 3, Message: "m", IDs: []int64{1}}}.WriteJSON(b)
		},
			"[\n  {\n    \"inst_id\": 3,\n    \"message\": \"m\",\n    \"ids\": [\n      1\n    ]\n  }\n]\n"},
		{"deleted", func(b *bytes.Buffer) error {
			return store.Deletion{Deleted: []store.Deleted{{InstID: 3, Rows: 1}, {InstID: 5, Rows: 64}}}.WriteText(b)
		}, "deleted INST_ID 3 (1 row)\ndeleted INST_ID 5 (64 rows)\n"},
		{"dry run", func(b *bytes.Buffer) error {
			return store.Deletion{Deleted: []store.Deleted{{InstID: 3, Rows: 0}}, DryRun: true}.WriteText(b)
		}, "would delete INST_ID 3 (0 rows)\n"},
		{"nothing deleted, JSON", func(b *bytes.Buffer) error { return store.Deletion{}.WriteJSON(b) }, "[]\n"},
		{"deleted, JSON", func(b *bytes.Buffer) error {
			return store.Deletion{Deleted: []store.Deleted{{InstID: 3, Rows: 2}}}.WriteJSON(b)
		},
			"[\n  {\n    \"inst_id\": 3,\n    \"rows\": 2\n  }\n]\n"},
	} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil || b.String() != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, b.String(), err, c.want)
		}
	}
}
