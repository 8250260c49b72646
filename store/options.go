package store

import "time"

// Options tune a DB.
type Options struct {
	// NoCreate forbids creating tables: a missing table is an error. For
	// logins without CREATE rights.
	// On a database that is a file the driver opens itself (SQLite), a
	// missing file is an error too, instead of a new empty database.
	NoCreate bool
	// ReadOnly opens the database for reading only: nothing is created
	// (a missing SQLite file is an error naming it), locked for writing or
	// written, and exports and DeleteAll fail. List, Verify and Read read
	// in one consistent snapshot whether it is set or not.
	ReadOnly bool
	// Schema is an existing PostgreSQL or SQL Server schema, or MySQL
	// database, to read and write; "" means the connection's default.
	Schema string
	// Phase, if set, is called when a write enters a phase after its rows
	// are written: an export calls it with PhaseIndexes, PhaseCheck,
	// PhaseCommit and, on dialects that refresh statistics,
	// PhaseStatistics; DeleteAll with PhaseCommit before it commits.
	Phase func(phase string)
	// Logf, if set, receives notes (for example why a bulk path was not
	// used, or that a result set is written again after a conflict).
	Logf func(format string, args ...any)
	// ConnectTimeout bounds opening a connection to a database server: TCP
	// connection, handshake, login and the first ping. 0 means
	// DefaultConnectTimeout; a negative value, none.
	ConnectTimeout time.Duration
	// IOTimeout is how long a server may stay silent while profdb waits for
	// it, or leave unread what profdb sends, before the operation fails. 0
	// means DefaultIOTimeout; a negative value, none. It applies to the
	// dialects that implement dialects.Connector (all but SQLite).
	IOTimeout time.Duration
	// LockTimeout is how long a connection waits for a lock on the whole
	// database that another holds (dialects.LockWaiter: SQLite, whose
	// writers take the file's write lock one at a time) before the
	// command fails: a writer waits for as long as the writers before it
	// make progress, and gives up when none did for LockTimeout. 0 means
	// the DSN's setting (SQLite's lock_timeout) or
	// dialects.DefaultLockTimeout; a negative value, none. Other dialects
	// wait as their servers do.
	LockTimeout time.Duration
	// Now, if set, gives the time recorded as a result set's EXPORTED_AT
	// (and DELETED_AT), and that the selection of result sets by age
	// counts from; time.Now otherwise.
	Now func() time.Time
}

// The phases Options.Phase reports.
const (
	// PhaseIndexes: the rows are loaded; the indexes of the tables created
	// for the result set are being built.
	PhaseIndexes = "building indexes"
	// PhaseCheck: the result set is checked as verify would check it
	// (parents exist, IDs unique per table, RELATIONS complete).
	PhaseCheck = "checking"
	// PhaseCommit: the INSTANCES row is written (or the result sets
	// deleted) and the transaction commits.
	PhaseCommit = "committing"
	// PhaseStatistics: the result set is committed; the statistics of the
	// tables it grew are refreshed where stale (see
	// dialects.StatsRefresher).
	PhaseStatistics = "updating statistics"
)

// timeout returns a timeout option's value: the default for 0, none (0)
// for a negative value.
func timeout(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
