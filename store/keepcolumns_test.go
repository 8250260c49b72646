package store_test

import (
	"errors"
	"testing"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestKeepColumns: with DB.KeepColumns, a catalogue after the first takes
// the columns the first read, finds a column added since by reading its
// table again, and still says that a column is not there.
func TestKeepColumns(t *testing.T) {
	ctx := ctxT(t)
	x := exporterOn(t, "sqlite")
	set := &resultset.ResultSet{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "one"}}
	if _, err := resultset.Export(ctx, x, set); err != nil {
		t.Fatal(err)
	}
	db := x.DB()
	db.KeepColumns()
	catalog := func() *store.Catalog {
		t.Helper()
		c, err := db.Catalog(ctx, db.SQL())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := catalog().Column(ctx, profilers.InstancesTable, "CAPTION"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `ALTER TABLE "INSTANCES" ADD COLUMN "LATER" INTEGER`); err != nil {
		t.Fatal(err)
	}
	c := catalog()
	if got, err := c.Column(ctx, profilers.InstancesTable, "caption"); err != nil || got != `"CAPTION"` {
		t.Errorf("kept column: %q, %v", got, err)
	}
	if got, err := c.Column(ctx, profilers.InstancesTable, "LATER"); err != nil || got != `"LATER"` {
		t.Errorf("a column added after the columns were kept: %q, %v; want it found", got, err)
	}
	if _, err := c.Column(ctx, profilers.InstancesTable, "NEVER"); err == nil {
		t.Error("a column the table lacks was found")
	} else if errors.Is(err, store.ErrNoResultSets) {
		t.Errorf("a missing column: %v", err)
	}
}
