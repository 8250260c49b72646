package exporter_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/resultset"
)

// TestReadsSeeOneSnapshot: verify and list, run over and over while 16
// exporters export, see every result set whole or not at all: verify never
// reports a finding, and every listed result set has exactly the rows it
// was exported with. Reading INSTANCES and the other tables outside one
// snapshot fails this within a few runs.
func TestReadsSeeOneSnapshot(t *testing.T) {
	const exporters, runs, rows = 16, 30, 200
	for _, dialect := range append(localDialects, "sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			if dialect == "mysql" && os.Getenv("PROFDB_TEST_MYSQL_CRASHABLE") == "" {
				// MariaDB 10.11.19 crashes under this load (signal 11 in
				// ha_maria::drop_table, freeing the temporary table of the
				// information_schema.COLUMNS query that exporters and readers
				// run to inspect tables), with read snapshots and without (4
				// crashes in 7 runs): the test must not take the shared
				// server down for every other test.
				t.Skip("set PROFDB_TEST_MYSQL_CRASHABLE=1 and PROFDB_TEST_MYSQL to a private MySQL/MariaDB server this test may crash")
			}
			dsn := testdb.Fresh(t, dialect)
			db, err := exporter.Open(ctxT(t), dsn, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx, stop := context.WithCancel(ctxT(t))
			defer stop()
			// One result set first, so that the tables exist (the test is
			// about rows, not about tables appearing).
			if _, err := resultset.Export(ctx, db, callTraceSet("seed", rows)); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var exported atomic.Int64
			errs := make(chan error, exporters+1)
			for i := range exporters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := 0; ctx.Err() == nil; n++ {
						_, err := resultset.Export(ctx, db, callTraceSet(fmt.Sprintf("w%d-%d", i, n), rows))
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
			for run := 1; run <= runs; run++ {
				findings, err := db.Verify(ctx, 0)
				if err != nil {
					t.Fatalf("verify run %d: %v", run, err)
				}
				for _, f := range findings {
					t.Errorf("verify run %d: false alarm: %s", run, f)
				}
				list, err := db.List(ctx)
				if err != nil {
					t.Fatalf("list run %d: %v", run, err)
				}
				for _, l := range list {
					if l.Rows != rows+1 || l.Profiler == "" || !strings.HasPrefix(l.Caption, "w") && l.Caption != "seed" {
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
			t.Logf("%d verify and list runs while %d result sets were exported", runs, exported.Load())
		})
	}
}
