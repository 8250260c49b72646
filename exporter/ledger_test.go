package exporter_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestInstIDsNeverReused exports, deletes the newest result set and
// exports again on each local database: the new result set gets a new
// INST_ID, not the deleted one's; PROFDB_RESULT_SETS records each result
// set's time, input and version, List reports them, and delete marks the
// row instead of removing it.
func TestInstIDsNeverReused(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			at := time.Date(2026, 11, 20, 8, 30, 0, 0, time.FixedZone("CET", 3600))
			db, _ := openFresh(t, dialect, store.Options{Now: func() time.Time { return at }}, exporter.Options{Version: "v1.2.3 (test)"})
			ctx := ctxT(t)
			export := func(caption string) int64 {
				t.Helper()
				rs := callTraceSet(caption, 3)
				rs.Input = "/runs/" + caption + ".json"
				res, err := resultset.Export(ctx, db, rs)
				if err != nil {
					t.Fatal(err)
				}
				return res.InstID
			}
			if a, b := export("a"), export("b"); a != 1 || b != 2 {
				t.Fatalf("INST_IDs %d, %d; want 1, 2", a, b)
			}
			if _, err := db.DB().Delete(ctx, 2); err != nil {
				t.Fatal(err)
			}
			if c := export("c"); c != 3 {
				t.Fatalf("after deleting INST_ID 2, the next export got INST_ID %d, want 3", c)
			}
			list, err := db.DB().List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].InstID != 1 || list[1].InstID != 3 {
				t.Fatalf("list = %+v", list)
			}
			for _, l := range list {
				if l.ExportedAt != "2026-11-20T07:30:00Z" || l.Input != "/runs/"+l.Caption+".json" || l.Version != "v1.2.3 (test)" || l.Host == "" {
					t.Errorf("INST_ID %d: exported %q on %q from %q by %q", l.InstID, l.ExportedAt, l.Host, l.Input, l.Version)
				}
			}
			d := db.DB().Dialect()
			q := "SELECT " + d.Quote(d.StoredName(profilers.ColDeletedAt)) + " FROM " + dialects.Qualify(d, "", d.StoredName(profilers.ResultSetsTable)) +
				" WHERE " + d.Quote(d.StoredName(ddl.InstID)) + " = 2"
			var deleted *string
			if err := db.DB().SQL().QueryRowContext(ctx, q).Scan(&deleted); err != nil {
				t.Fatalf("the row of the deleted INST_ID 2: %v", err)
			}
			if deleted == nil || *deleted != "2026-11-20T07:30:00Z" {
				t.Errorf("DELETED_AT of INST_ID 2 = %v", deleted)
			}
		})
	}
}

// TestExistingTablesWithoutResultSetsTable exports, with and without
// NoCreate, into a database whose DBA created the AQTime tables but not
// profdb's own: the export works, allocating from INSTANCES; without
// NoCreate it adds profdb's own tables (and records the run there), with
// NoCreate it adds nothing to the DBA's.
func TestExistingTablesWithoutResultSetsTable(t *testing.T) {
	for _, c := range []struct {
		dialect  string
		noCreate bool
	}{{"sqlite", true}, {"sqlite", false}, {"postgres", true}, {"postgres", false}, {"mysql", true}, {"mysql", false}} {
		dialect := c.dialect
		t.Run(fmt.Sprintf("%s/NoCreate=%v", dialect, c.noCreate), func(t *testing.T) {
			db, dsn := openFresh(t, dialect, store.Options{}, exporter.Options{})
			ctx := ctxT(t)
			def := profilers.MustLookup("function-trace")
			for _, tb := range append(profilers.Shared(), def.Tables...) {
				for _, st := range db.DB().Dialect().CreateTableIn("", tb) {
					mustExec(t, db, st)
				}
			}
			nc, err := exporter.Open(ctx, dsn, store.Options{NoCreate: c.noCreate}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			for want := int64(1); want <= 2; want++ {
				res, err := resultset.Export(ctx, nc, callTraceSet("x", 2))
				if err != nil || res.InstID != want {
					t.Fatalf("export %d: %+v, %v", want, res, err)
				}
			}
			names, err := nc.DB().Dialect().Tables(ctx, nc.DB().SQL(), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, own := range profilers.Own() {
				added := slices.Contains(names, nc.DB().Dialect().StoredName(own.Name))
				if added == c.noCreate {
					t.Errorf("NoCreate=%v: table %s added: %v", c.noCreate, own.Name, added)
				}
			}
			if !c.noCreate {
				got, err := nc.DB().Select(ctx, store.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				// The first export created the table: both are recorded.
				if len(got) != 2 || got[1].InstID != 2 || got[1].Profiler != def.Name {
					t.Errorf("recorded %+v", got)
				}
			}
		})
	}
}
