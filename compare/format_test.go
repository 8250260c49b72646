package compare_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/goldentest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// A Go user rendering a Result gets the text and JSON `profdb compare`
// prints (cmd/profdb's TestCompareIsTheLibrarys checks the command against
// the library): each profiler's comparison in each style, at a wide and a
// narrow width, and with lists cut short by Options.Top.
func TestResultTextAndJSON(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
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
					goldentest.Check(t, fmt.Sprintf("%s-%s-top%d-w%d.txt", c.name, st, top, width), b.Bytes(), *update)
				}
				var b bytes.Buffer
				if err := res.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				goldentest.Check(t, fmt.Sprintf("%s-%s-top%d.json", c.name, st, top), b.Bytes(), *update)
			}
		}
	}
}

// The head names each side's run by its commit and branch as show does
// (readback.RunHead), escaped; a side without an identity, by nothing.
func TestResultTextNamesTheRuns(t *testing.T) {
	dirty := true
	res := &compare.Result{
		A:     readback.Instance{InstID: 1, Profiler: "light-coverage", Caption: "before"},
		B:     readback.Instance{InstID: 2, Profiler: "light-coverage", Caption: "after", Run: &resultset.Run{Commit: "89abcdef0123456789abcdef0123456789abcdef", Dirty: &dirty, Branch: "x\x1b[2J", CI: "git"}},
		Style: compare.Difference,
	}
	var b bytes.Buffer
	if err := res.WriteText(&b, 100); err != nil {
		t.Fatal(err)
	}
	want := "A: INST_ID 1  light-coverage  \"before\"\n" +
		"B: INST_ID 2  light-coverage  \"after\"  commit 89abcdef0123+dirty  branch \"x\\x1b[2J\"\n" +
		"Changes: difference (B - A)\n"
	if b.String() != want {
		t.Errorf("compare prints\n%s\nwant\n%s", b.String(), want)
	}
}
