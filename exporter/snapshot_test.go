package exporter_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestReadsSeeOneSnapshot: verify and list, run over and over while 16
// exporters export and a deleter deletes, see every result set whole or not
// at all: verify never reports a finding, and every listed result set has
// exactly the rows it was exported with; no exporter or deleter fails. It
// runs on both write paths. Reading INSTANCES and the other tables outside
// one snapshot fails this within a few runs.
//
// MariaDB runs on a private server (PROFDB_TEST_MYSQL_PRIVATE, which
// .ci/run starts): MariaDB 10.11 has crashed under this load (signal 11 in
// ha_maria::drop_table, freeing the temporary table of an
// information_schema.COLUMNS query), and the test must not take the shared
// server down with it.
func TestReadsSeeOneSnapshot(t *testing.T) {
	const exporters, runs, rows = 16, 20, 200
	for _, dialect := range append(localDialects, "sqlserver") {
		for _, bulk := range bulkModes {
			t.Run(dialect+"/bulk="+bulk.String(), func(t *testing.T) {
				var dsn string
				if dialect == "mysql" {
					private := os.Getenv("PROFDB_TEST_MYSQL_PRIVATE")
					if private == "" {
						if os.Getenv("CI") == "true" {
							t.Fatal("PROFDB_TEST_MYSQL_PRIVATE is not set: .ci/run starts a private MariaDB server for this test")
						}
						t.Skip("set PROFDB_TEST_MYSQL_PRIVATE to a private MySQL/MariaDB server (root, no password) this test may crash")
					}
					t.Setenv("PROFDB_TEST_MYSQL", private)
				}
				dsn = dbtest.Fresh(t, dialect)
				readSnapshotsUnderLoad(t, dsn, bulk, exporters, runs, rows)
			})
		}
	}
}

// maxLive is how many exported result sets readSnapshotsUnderLoad keeps
// in the database at most, beside the seed.
const maxLive = 64

func readSnapshotsUnderLoad(t *testing.T, dsn string, bulk exporter.BulkMode, exporters, runs, rows int) {
	db, err := exporter.Open(ctxT(t), dsn, store.Options{}, exporter.Options{Bulk: bulk, Retries: exporter.DefaultRetries})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, stop := context.WithCancel(ctxT(t))
	defer stop()
	// One result set first, so that the tables exist (the test is about
	// rows, not about tables appearing).
	if _, err := resultset.Export(ctx, db, callTraceSet("seed", rows)); err != nil {
		t.Fatal(err)
	}
	// SQLite has one writer at a time and its lock is not fair: 16
	// exporters can keep the deleter from writing for as long as they run.
	// There the deleter holds a gate that keeps exporters from starting a
	// new result set while it deletes; readers still read meanwhile. On the
	// servers nothing is gated.
	var gate sync.RWMutex
	gated := db.DB().Dialect().Name() == "sqlite"
	var wg sync.WaitGroup
	var exported, deleted atomic.Int64
	errs := make(chan error, exporters+2)
	for i := range exporters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				// The exporters wait while maxLive result sets are
				// not deleted yet: verify and list read them all, and
				// on a slow machine a database growing faster than
				// the deleter empties it makes each round slower than
				// the last.
				for exported.Load()-deleted.Load() >= maxLive && ctx.Err() == nil {
					time.Sleep(5 * time.Millisecond)
				}
				if gated {
					gate.RLock()
				}
				_, err := resultset.Export(ctx, db, callTraceSet(fmt.Sprintf("w%d-%d", i, n), rows))
				if gated {
					gate.RUnlock()
				}
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("exporter %d: %w", i, err)
					}
					return
				}
				exported.Add(1)
			}
		}()
	}
	// The deleter removes the oldest exported result set, again and again.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			list, err := db.DB().List(ctx)
			if err != nil {
				if ctx.Err() == nil {
					errs <- fmt.Errorf("deleter: list: %w", err)
				}
				return
			}
			for _, l := range list {
				if l.Caption == "seed" {
					continue
				}
				if gated {
					gate.Lock()
				}
				_, err := db.DB().Delete(ctx, l.InstID)
				if gated {
					gate.Unlock()
				}
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("deleter: INST_ID %d: %w", l.InstID, err)
					}
					return
				}
				deleted.Add(1)
				break
			}
		}
	}()
	// At least runs rounds, and more until the deleter has deleted one,
	// for 20 seconds at most (17 SQLite writers for long may leave one
	// waiting past its busy timeout).
	until := time.Now().Add(20 * time.Second)
	run := 0
	for run < runs || deleted.Load() < 1 && time.Now().Before(until) {
		run++
		findings, err := db.DB().Verify(ctx, 0)
		if err != nil {
			t.Fatalf("verify run %d: %v", run, err)
		}
		for _, f := range findings {
			t.Errorf("verify run %d: false alarm: %s", run, f)
		}
		list, err := db.DB().List(ctx)
		if err != nil {
			t.Fatalf("list run %d: %v", run, err)
		}
		for _, l := range list {
			if l.Rows != int64(rows)+1 || l.Profiler == "" || !strings.HasPrefix(l.Caption, "w") && l.Caption != "seed" {
				t.Errorf("list run %d: INST_ID %d seen half-written: %+v", run, l.InstID, l)
			}
		}
		if t.Failed() {
			break
		}
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if exported.Load() == 0 || deleted.Load() == 0 {
		t.Errorf("%d result sets exported and %d deleted while the readers ran; want some of each", exported.Load(), deleted.Load())
	}
	t.Logf("%d verify and list runs while %d result sets were exported and %d deleted", run, exported.Load(), deleted.Load())
}
