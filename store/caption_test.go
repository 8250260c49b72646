package store_test

import (
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestSelectCaption: Filter.Caption chooses the result sets whose caption
// contains the text, case-blind, on every dialect; LIKE's wildcards (%,
// _, and SQL Server's [) and the escape character in the text match
// themselves only, and a quote is data, not SQL.
func TestSelectCaption(t *testing.T) {
	captions := []string{
		"Nightly build 42",            // 0
		"nightly 50% [x] run_1 !bang", // 1
		"nightly 50X [x] runX1 bang",  // 2: what the wildcards would match
		"release ÉTÉ O'Brien",         // 3
		"",                            // 4
	}
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			x := exporterOn(t, dialect)
			var ids []int64
			for _, c := range captions {
				set := &resultset.ResultSet{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: c, Run: &resultset.Run{Branch: "main"}}}
				res, err := resultset.Export(ctx, x, set)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, res.InstID)
			}
			for _, c := range []struct {
				text string
				want []int
			}{
				{"NIGHTLY", []int{0, 1, 2}},
				{"build 4", []int{0}},
				{"50%", []int{1}},
				{"run_1", []int{1}},
				{"[x]", []int{1, 2}},
				{"[x] run_", []int{1}},
				{"!bang", []int{1}},
				{"%", []int{1}},
				{"_", []int{1}},
				{"O'Brien", []int{3}},
				{"o'brien", []int{3}},
				{"ÉTÉ", []int{3}},
				{"' OR '1'='1", nil},
				{"nothing like it", nil},
			} {
				var want []int64
				for _, i := range c.want {
					want = append(want, ids[i])
				}
				checkSelect(t, x.DB(), "caption "+c.text, store.Filter{Caption: c.text}, want...)
			}
			// With a count, the newest that match.
			checkSelect(t, x.DB(), "caption nightly, last 1", store.Filter{Caption: "nightly", Last: 1}, ids[2])
		})
	}
}
