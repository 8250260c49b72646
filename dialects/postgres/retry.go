package postgres

import (
	"errors"

	"github.com/lib/pq"
	"github.com/profdb/profdb/dialects"
)

// SQLSTATE codes the dialect recognises.
const (
	// SerializationFailure (40001): a serializable or repeatable-read
	// transaction met a concurrent update; it must be run again.
	SerializationFailure = "40001"
	// DeadlockDetected (40P01): the transaction was chosen as a deadlock
	// victim and rolled back.
	DeadlockDetected = "40P01"
	// UniqueViolation (23505): a duplicate primary or unique key.
	UniqueViolation = "23505"
)

var _ dialects.Retrier = Dialect{}

// Retryable implements dialects.Retrier: SQLSTATE 40001 and 40P01.
func (Dialect) Retryable(err error) bool {
	c := code(err)
	return c == SerializationFailure || c == DeadlockDetected
}

// DuplicateKey implements dialects.Retrier: SQLSTATE 23505.
func (Dialect) DuplicateKey(err error) bool { return code(err) == UniqueViolation }

// code is the SQLSTATE of a server error in err's chain, or "".
func code(err error) string {
	var e *pq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return ""
}
