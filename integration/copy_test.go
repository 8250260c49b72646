package integration

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/store"
)

// TestCopyChain copies result sets SQLite -> PostgreSQL -> SQL Server ->
// MariaDB/MySQL -> SQLite with "profdb copy": at each target every value
// reads back as exported, the result sets get new INST_IDs after the ones
// already there, and verify finds the parent-child graph intact.
func TestCopyChain(t *testing.T) {
	pg := Lookup(t, "postgres")
	ms := Lookup(t, "sqlserver")
	my := Lookup(t, "mysql")
	src := Lookup(t, "sqlite").Fresh(t)
	hops := []Namespace{pg.Fresh(t), ms.Fresh(t), my.Fresh(t), Lookup(t, "sqlite").Fresh(t)}
	already := []int{2, 1, 3, 2} // result sets each target holds before

	// One result set of every profiler, with edge values every dialect
	// holds (no subnormal floats for MySQL and SQL Server).
	var sets []*Fixture
	for _, p := range profilers.Names() {
		sets = append(sets, resultsettest.Full(t, p, "copied "+p+" ✓ 'q'", "mysql", 4, false))
	}
	srcDB := OpenExporter(t, src.DSN, store.Options{}, exporter.Options{})
	for _, f := range sets {
		Export(t, srcDB, f)
	}
	for i, ns := range hops {
		db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
		for j := 0; j < already[i]; j++ {
			Export(t, db, callSet(fmt.Sprintf("already there %d", j), 10))
		}
	}

	from := src
	ids := []int64{1, 2, 3, 4} // the INST_IDs of sets at from
	for i, to := range hops {
		args := []string{"copy", "--from", from.DSN, "--to", to.DSN}
		for _, id := range ids {
			args = append(args, "--inst", strconv.FormatInt(id, 10))
		}
		out := mustProfdb(t, args...)
		got := instIDs(t, out)
		n := int64(already[i])
		want := []int64{n + 1, n + 2, n + 3, n + 4}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("copy to %s: new INST_IDs %v, want %v\n%s", to.Dialect, got, want, out)
		}
		for k, id := range ids {
			if !strings.Contains(out, fmt.Sprintf("INST_ID %d -> INST_ID %d ", id, want[k])) {
				t.Errorf("copy to %s: no line for INST_ID %d:\n%s", to.Dialect, id, out)
			}
		}
		db := OpenExporter(t, to.DSN, store.Options{}, exporter.Options{})
		for k, f := range sets {
			resultsettest.CompareStored(t, db.DB(), want[k], f)
		}
		if out := mustProfdb(t, "verify", "--db", to.DSN); strings.TrimSpace(out) != "ok" {
			t.Fatalf("verify at %s: %s", to.Dialect, out)
		}
		list, err := db.DB().List(Ctx(t))
		if err != nil || len(list) != already[i]+len(sets) || list[0].Profiler != functiontrace.Name {
			t.Fatalf("list at %s: %+v %v", to.Dialect, list, err)
		}
		from, ids = to, want
	}
}
