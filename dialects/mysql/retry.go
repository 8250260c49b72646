package mysql

import (
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/profdb/profdb/dialects"
)

// Server error numbers the dialect recognises.
const (
	// ErrLockDeadlock (ER_LOCK_DEADLOCK, 1213) is InnoDB's deadlock
	// victim, and also what a Galera cluster answers when its certification
	// rejects a transaction that conflicts with one committed on another
	// node ("Deadlock found when trying to get lock; try restarting
	// transaction"). The transaction has been rolled back.
	ErrLockDeadlock = 1213
	// ErrDupEntry (ER_DUP_ENTRY, 1062) is a duplicate primary or unique
	// key.
	ErrDupEntry = 1062
	// ErrDupEntryWithKeyName (ER_DUP_ENTRY_WITH_KEY_NAME, 1586) is a
	// duplicate key reported with the key's name.
	ErrDupEntryWithKeyName = 1586
)

var (
	_ dialects.Retrier  = Dialect{}
	_ dialects.TxProber = Dialect{}
)

// Retryable implements dialects.Retrier: error 1213, a deadlock on one
// server or a certification conflict on a Galera cluster (where GET_LOCK
// holds on one node only, so two exporters on different nodes may allocate
// the same INST_ID).
func (Dialect) Retryable(err error) bool {
	var e *mysql.MySQLError
	return errors.As(err, &e) && e.Number == ErrLockDeadlock
}

// DuplicateKey implements dialects.Retrier: errors 1062 and 1586.
func (Dialect) DuplicateKey(err error) bool {
	var e *mysql.MySQLError
	return errors.As(err, &e) && (e.Number == ErrDupEntry || e.Number == ErrDupEntryWithKeyName)
}

// TxOpenSQL implements dialects.TxProber with MariaDB's in_transaction
// (10.3 and later); MySQL has no such variable and answers with an error.
func (Dialect) TxOpenSQL() string { return "SELECT @@in_transaction" }
