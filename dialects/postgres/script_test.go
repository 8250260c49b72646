package postgres

import (
	"context"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
)

// TestScriptTakesExportLock: a script holds the advisory lock that an
// export takes (Lock) until it ends, so an export waits for it.
func TestScriptTakesExportLock(t *testing.T) {
	db, _ := open(t)
	dialecttest.CheckScriptTakesExportLock(t, Dialect{}, db, "", dialecttest.LockWatch{
		Session: "SELECT pg_backend_pid()",
		Waits: func(ctx context.Context, q dialects.DBTX, waiter, holder int64) (bool, error) {
			var waits bool
			err := q.QueryRowContext(ctx, "SELECT $2::int = ANY(pg_blocking_pids($1::int))", waiter, holder).Scan(&waits)
			return waits, err
		},
	})
}
