package sqlserver_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
)

// TestScriptTakesExportLock: a script holds the application lock that an
// export takes (Lock) until it ends, so an export waits for it, on the
// server named by PROFDB_TEST_SQLSERVER.
func TestScriptTakesExportLock(t *testing.T) {
	db := dbtest.Open(t, dbtest.DSN(t, "sqlserver"))
	dialecttest.CheckScriptTakesExportLock(t, sqlserver.Dialect{}, db, "", dialecttest.LockWatch{
		Session: "SELECT CAST(@@SPID AS bigint)",
		Waits: func(ctx context.Context, q dialects.DBTX, waiter, holder int64) (bool, error) {
			var n int64
			err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sys.sysprocesses WHERE spid = @p1 AND blocked = @p2", waiter, holder).Scan(&n)
			return n > 0, err
		},
	})
}
