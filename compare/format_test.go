package compare_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/golden"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// A Go user rendering a Result gets the text and JSON `profdb compare`
// prints (cmd/profdb's TestCompareIsTheLibrarys checks the command against
// the library): each profiler's comparison in each style, at a wide and a
// narrow width, and with lists cut short by Options.Top.
func TestResultTextAndJSON(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.Fresh(t, "sqlite")
	f := export(t, dsn)
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		name string
		a, b int64
	}{{"coverage", f.covA, f.covB}, {"trace", f.ftA, f.ftB}, {"resource", f.rsA, f.rsB}, {"reference-count", f.rcA, f.rcB}} {
		for _, st := range compare.Styles {
			for _, top := range []int{20, 1} {
				res, err := compare.Compare(ctx, r, c.a, c.b, compare.Options{Style: st, Top: top})
				if err != nil {
					t.Fatal(err)
				}
				for _, width := range []int{100, 40} {
					var b bytes.Buffer
					if err := res.WriteText(&b, width); err != nil {
						t.Fatal(err)
					}
					golden.Check(t, fmt.Sprintf("%s-%s-top%d-w%d.txt", c.name, st, top, width), b.Bytes(), *update)
				}
				var b bytes.Buffer
				if err := res.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, fmt.Sprintf("%s-%s-top%d.json", c.name, st, top), b.Bytes(), *update)
			}
		}
	}
}
