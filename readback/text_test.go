package readback_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// golden compares got with the file testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: got\n%s\nwant\n%s", path, got, want)
	}
}

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
				golden(t, fmt.Sprintf("show/%s-top%d-w%d.txt", profiler, top, width), b.Bytes())
			}
			var b bytes.Buffer
			if err := s.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, fmt.Sprintf("show/%s-top%d.json", profiler, top), b.Bytes())
		}
	}
}
