package mysql

import (
	"context"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
)

// TestScriptTakesExportLock: a script holds the session lock that an
// export takes (Lock) until it ends, so an export waits for it, whether
// both name the database or take the current one.
func TestScriptTakesExportLock(t *testing.T) {
	db, name := open(t)
	for _, schema := range []string{"", name} {
		t.Run("schema="+schema, func(t *testing.T) {
			dialecttest.CheckScriptTakesExportLock(t, Dialect{}, db, schema, dialecttest.LockWatch{
				Session: "SELECT CONNECTION_ID()",
				// GET_LOCK waits in the state "User lock". The lock's
				// name holds the test's own database, which no other
				// session locks: the waiter waits for the holder.
				Waits: func(ctx context.Context, q dialects.DBTX, waiter, _ int64) (bool, error) {
					var n int64
					err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND STATE = 'User lock'", waiter).Scan(&n)
					return n > 0, err
				},
			})
		})
	}
}
