package readback_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/profdb/profdb/internal/golden"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// A Go user rendering a Summary gets the text and JSON `profdb show` prints
// (cmd/profdb's TestShowIsTheLibrarys checks the command against the
// library): every profiler's tables, at a wide and a narrow width (long
// names cut keeping their end), with lists cut short by Options.Top.
func TestSummaryTextAndJSON(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.Fresh(t, "sqlite")
	ids := exportExamples(t, dsn)
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for profiler, inst := range ids {
		for _, top := range []int{20, 2} {
			s, err := r.Summarize(ctx, inst, readback.Options{Top: top})
			if err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{100, 50} {
				var b bytes.Buffer
				if err := s.WriteText(&b, width); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, fmt.Sprintf("show/%s-top%d-w%d.txt", profiler, top, width), b.Bytes(), *update)
			}
			var b bytes.Buffer
			if err := s.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, fmt.Sprintf("show/%s-top%d.json", profiler, top), b.Bytes(), *update)
		}
	}
}
