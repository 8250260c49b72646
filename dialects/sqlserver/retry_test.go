package sqlserver

import (
	"fmt"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
)

// TestRetryable: a deadlock victim (1205) is retryable, 2627 and 2601 are
// duplicate keys, others are neither.
func TestRetryable(t *testing.T) {
	d := Dialect{}
	for _, c := range []struct {
		number     int32
		retry, dup bool
	}{{1205, true, false}, {2627, false, true}, {2601, false, true}, {208, false, false}} {
		err := fmt.Errorf("export: commit: %w", mssql.Error{Number: c.number})
		if d.Retryable(err) != c.retry || d.DuplicateKey(err) != c.dup {
			t.Errorf("%d: Retryable %v, DuplicateKey %v", c.number, d.Retryable(err), d.DuplicateKey(err))
		}
	}
}
