package sqlserver

import (
	"errors"

	"github.com/profdb/profdb/dialects"
)

// Server error numbers the dialect recognises.
const (
	// ErrDeadlockVictim (1205): the transaction was chosen as a deadlock
	// victim and rolled back; SQL Server's message says to rerun it.
	ErrDeadlockVictim = 1205
	// ErrUniqueConstraint (2627): a violation of a PRIMARY KEY or UNIQUE
	// constraint.
	ErrUniqueConstraint = 2627
	// ErrUniqueIndex (2601): a duplicate key in a unique index.
	ErrUniqueIndex = 2601
)

var _ dialects.Retrier = Dialect{}

// Retryable implements dialects.Retrier: error 1205.
func (Dialect) Retryable(err error) bool { return number(err) == ErrDeadlockVictim }

// DuplicateKey implements dialects.Retrier: errors 2627 and 2601.
func (Dialect) DuplicateKey(err error) bool {
	n := number(err)
	return n == ErrUniqueConstraint || n == ErrUniqueIndex
}

// number is the number of a server error in err's chain (go-mssqldb's
// mssql.Error), or 0.
func number(err error) int32 {
	var e interface{ SQLErrorNumber() int32 }
	if errors.As(err, &e) {
		return e.SQLErrorNumber()
	}
	return 0
}
