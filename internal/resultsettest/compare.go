package resultsettest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Reader reads a stored result set back (store.DB does).
type Reader interface {
	Read(ctx context.Context, inst int64) (*resultset.ResultSet, error)
}

// maxValueErrors bounds the wrong values CompareStored reports.
const maxValueErrors = 20

// CompareStored reads result set inst from db and checks that it holds
// exactly the fixture: its header and counter, and every value of every
// row in canonical form (see resultset.Convert), NULL in the columns the
// fixture does not give.
func CompareStored(t testing.TB, db Reader, inst int64, want *Fixture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	got, err := db.Read(ctx, inst)
	if err != nil {
		t.Fatalf("INST_ID %d: %v", inst, err)
	}
	if got.Profiler != want.Header.Profiler || got.Caption != want.Header.Caption {
		t.Errorf("INST_ID %d: header %s %q, want %s %q", inst, got.Profiler, got.Caption, want.Header.Profiler, want.Header.Caption)
	}
	if wc := want.Header.Counter; wc != nil {
		wf, err := resultset.Convert(ddl.Decimal, wc.Frequency)
		if err != nil {
			t.Fatalf("INST_ID %d: the fixture's counter frequency: %v", inst, err)
		}
		if got.Counter == nil || got.Counter.Name != wc.Name || got.Counter.Description != wc.Description || got.Counter.Frequency != wf {
			t.Errorf("INST_ID %d: counter %+v, want %+v", inst, got.Counter, wc)
		}
	} else if got.Counter != nil {
		t.Errorf("INST_ID %d: counter %+v, want none", inst, got.Counter)
	}
	def, err := profilers.Lookup(want.Header.Profiler)
	if err != nil {
		t.Fatalf("INST_ID %d: %v", inst, err)
	}
	byName := map[string]resultset.TableRows{}
	for _, tr := range got.Tables {
		byName[tr.Name] = tr
	}
	errs := 0
	for _, wt := range want.Tables {
		td, ok := def.Table(wt.Name)
		if !ok {
			t.Fatalf("the fixture's table %s is not one of %s's", wt.Name, def.Name)
		}
		gt, ok := byName[wt.Name]
		if !ok {
			t.Errorf("INST_ID %d: table %s not read back", inst, wt.Name)
			continue
		}
		for _, wc := range wt.Columns {
			if !slices.Contains(gt.Columns, wc) {
				t.Errorf("INST_ID %d %s: column %s not read back", inst, wt.Name, wc)
			}
		}
		cols := make([]ddl.Column, len(gt.Columns))
		given := make([]int, len(gt.Columns)) // the fixture's column, or -1
		for gi, gc := range gt.Columns {
			if cols[gi], ok = td.Column(gc); !ok {
				t.Fatalf("INST_ID %d %s: column %s read back is not the table's", inst, wt.Name, gc)
			}
			given[gi] = slices.Index(wt.Columns, gc)
		}
		i := 0
		for row, err := range gt.Rows {
			if err != nil {
				t.Fatalf("INST_ID %d %s row %d: %v", inst, wt.Name, i, err)
			}
			for gi := range gt.Columns {
				if i >= len(wt.Rows) || errs >= maxValueErrors {
					break
				}
				var wv any
				if wi := given[gi]; wi >= 0 {
					if wv, err = resultset.Convert(cols[gi].Type, wt.Rows[i][wi]); err != nil {
						t.Fatalf("the fixture's %s row %d %s: %v", wt.Name, i, cols[gi].Name, err)
					}
				}
				if !reflect.DeepEqual(wv, row[gi]) {
					errs++
					t.Errorf("INST_ID %d %s row %d %s: got %s, want %s", inst, wt.Name, i, cols[gi].Name, Show(row[gi]), Show(wv))
				}
			}
			i++
		}
		if i != len(wt.Rows) {
			t.Errorf("INST_ID %d %s: %d rows, want %d", inst, wt.Name, i, len(wt.Rows))
		}
	}
}

// Show formats a value for a message: its type and value, cut to 100
// characters.
func Show(v any) string {
	s := fmt.Sprintf("%T(%q)", v, fmt.Sprint(v))
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
