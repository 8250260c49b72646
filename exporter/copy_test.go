package exporter_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// events records what a CopyObserver hears.
type events []string

func (e *events) Reading(inst int64)    { *e = append(*e, fmt.Sprintf("reading %d", inst)) }
func (e *events) Committing(inst int64) { *e = append(*e, fmt.Sprintf("committing %d", inst)) }
func (e *events) Committed(c exporter.Copied) {
	*e = append(*e, fmt.Sprintf("committed %d as %d (%d rows)", c.SourceInstID, c.InstID, c.Rows))
}
func (e *events) RolledBack(inst int64) { *e = append(*e, fmt.Sprintf("rolled back %d", inst)) }

// twoTraces returns a SQLite source holding two function traces: INST_ID
// 1 with 3 calls and INST_ID 2 with 5 (each with a thread row too).
func twoTraces(t *testing.T) *exporter.Exporter {
	src, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{})
	for i, n := range []int{3, 5} {
		if _, err := resultset.Export(ctxT(t), src, callTraceSet(fmt.Sprintf("set %d", i+1), n)); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

func TestCopy(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			src := twoTraces(t)
			dst, _ := openFresh(t, dialect, store.Options{}, exporter.Options{})
			var ev events
			got, err := exporter.Copy(ctxT(t), src.DB(), dst, []int64{2, 1}, exporter.CopyOptions{Observer: &ev,
				Input: func(inst int64) string { return fmt.Sprintf("source %d", inst) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].SourceInstID != 2 || got[0].InstID != 1 || got[0].Rows != 6 || got[0].Caption != "set 2" ||
				got[1].SourceInstID != 1 || got[1].InstID != 2 || got[1].Rows != 4 || got[1].Caption != "set 1" {
				t.Fatalf("Copy = %+v", got)
			}
			want := events{"reading 2", "committing 2", "committed 2 as 1 (6 rows)", "reading 1", "committing 1", "committed 1 as 2 (4 rows)"}
			if !reflect.DeepEqual(ev, want) {
				t.Errorf("observer heard %q, want %q", ev, want)
			}
			list, err := dst.DB().List(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].Caption != "set 2" || list[0].Rows != 6 || list[0].Input != "source 2" ||
				list[1].Caption != "set 1" || list[1].Rows != 4 || list[1].Input != "source 1" {
				t.Errorf("target lists %+v", list)
			}
		})
	}
}

// TestCopyErrorSides: an error says whether reading the source or writing
// the target failed, also when a row of the source fails to read while
// the target writes; what was copied before it is returned.
func TestCopyErrorSides(t *testing.T) {
	t.Run("missing at source", func(t *testing.T) {
		dst, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{})
		var ev events
		got, err := exporter.Copy(ctxT(t), twoTraces(t).DB(), dst, []int64{1, 7}, exporter.CopyOptions{Observer: &ev})
		var ce *exporter.CopyError
		if !errors.As(err, &ce) || !ce.Source || ce.InstID != 7 {
			t.Fatalf("err = %#v, want a source CopyError for INST_ID 7", err)
		}
		if len(got) != 1 || got[0].SourceInstID != 1 {
			t.Errorf("copied before the error: %+v", got)
		}
		want := events{"reading 1", "committing 1", "committed 1 as 1 (4 rows)", "reading 7"}
		if !reflect.DeepEqual(ev, want) {
			t.Errorf("observer heard %q, want %q", ev, want)
		}
	})
	t.Run("bad row at source", func(t *testing.T) {
		// SQLite stores a Decimal in an ANY column: text that is no number
		// fails to read back.
		src := twoTraces(t)
		if _, err := resultset.Export(ctxT(t), src, edgeSet()); err != nil {
			t.Fatal(err)
		}
		mustExec(t, src, "UPDATE "+functiontrace.Routines+" SET COL_ADDRESS = 'not a number' WHERE INST_ID = 3 AND ID = 2")
		dst, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{})
		var ev events
		_, err := exporter.Copy(ctxT(t), src.DB(), dst, []int64{3}, exporter.CopyOptions{Observer: &ev})
		var ce *exporter.CopyError
		if !errors.As(err, &ce) || !ce.Source || ce.InstID != 3 || !strings.Contains(ce.Err.Error(), "not a number") {
			t.Fatalf("err = %v, want a source CopyError for INST_ID 3", err)
		}
		if want := (events{"reading 3", "rolled back 3"}); !reflect.DeepEqual(ev, want) {
			t.Errorf("observer heard %q, want %q", ev, want)
		}
		if list, err := dst.DB().List(ctxT(t)); !errors.Is(err, store.ErrNoResultSets) {
			t.Errorf("target lists %+v, %v; want no INSTANCES table (nothing created)", list, err)
		}
	})
	t.Run("target", func(t *testing.T) {
		// A table of the target has a column export cannot fill.
		dst, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{})
		mustExec(t, dst, "CREATE TABLE "+functiontrace.CallTrace+" (ID INTEGER, PARENT_ID INTEGER, INST_ID INTEGER, REC_ID INTEGER, EXTRA INTEGER NOT NULL)")
		var ev events
		_, err := exporter.Copy(ctxT(t), twoTraces(t).DB(), dst, []int64{1}, exporter.CopyOptions{Observer: &ev})
		var ce *exporter.CopyError
		if !errors.As(err, &ce) || ce.Source || ce.InstID != 1 {
			t.Fatalf("err = %v, want a target CopyError for INST_ID 1", err)
		}
		if !strings.Contains(err.Error(), "EXTRA") {
			t.Errorf("err = %v, want it to name the column EXTRA", err)
		}
		if want := (events{"reading 1"}); !reflect.DeepEqual(ev, want) {
			t.Errorf("observer heard %q, want %q", ev, want)
		}
	})
}
