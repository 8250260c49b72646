package exporter

import (
	"time"
)

// BulkMode selects the write path.
type BulkMode int

const (
	// BulkAuto uses the dialect's native bulk path (COPY, LOAD DATA, bulk
	// copy) where the dialect and server offer it, else batched INSERT.
	BulkAuto BulkMode = iota
	// BulkOff always uses batched multi-row INSERT.
	BulkOff
)

// String returns "auto" or "off".
func (m BulkMode) String() string {
	if m == BulkOff {
		return "off"
	}
	return "auto"
}

// The phases Options.Phase reports.
const (
	// PhaseIndexes: the rows are loaded; the indexes of the tables created
	// for the result set are being built.
	PhaseIndexes = "building indexes"
	// PhaseCheck: the result set is checked as verify would check it
	// (parents exist, IDs unique per table, RELATIONS complete).
	PhaseCheck = "checking"
	// PhaseCommit: the INSTANCES row is written and the transaction commits.
	PhaseCommit = "committing"
)

// ParseBulkMode parses "auto" or "off".
func ParseBulkMode(s string) (BulkMode, error) {
	switch s {
	case "auto", "":
		return BulkAuto, nil
	case "off":
		return BulkOff, nil
	}
	return 0, errorf("bulk mode %q: want auto or off", s)
}

// Options tune a DB.
type Options struct {
	// NoCreate forbids creating tables: a missing table is an error. For
	// logins without CREATE rights.
	// On a database that is a file the driver opens itself (SQLite), a
	// missing file is an error too, instead of a new empty database.
	NoCreate bool
	// ReadOnly opens the database for reading only: nothing is created
	// (a missing SQLite file is an error naming it), locked for writing or
	// written, and Begin and Delete fail. List, Verify and Read read in one
	// consistent snapshot whether it is set or not.
	ReadOnly bool
	// Schema is an existing PostgreSQL or SQL Server schema, or MySQL
	// database, to write into; "" means the connection's default.
	Schema string
	// Bulk selects the write path.
	Bulk BulkMode
	// Progress, if set, is called after each batch with the rows written
	// so far in the current result set.
	Progress func(rows int64)
	// Phase, if set, is called when writing a result set enters a phase
	// after its rows are loaded: PhaseIndexes, PhaseCheck, PhaseCommit;
	// DeleteAll calls it with PhaseCommit before it commits.
	Phase func(phase string)
	// Logf, if set, receives notes (for example why a bulk path was not
	// used, or that a result set is written again after a conflict).
	Logf func(format string, args ...any)
	// Retries is how many times a result set is written again, each time
	// in a new transaction after a pause that grows, when a concurrent
	// transaction made the server abort it: a deadlock, a serialization
	// failure, a cluster's certification conflict (Galera), or an INST_ID
	// another exporter took first. 0 never retries. The rows are kept (in
	// memory, then in a temporary file) until the result set is committed,
	// so that they can be written again. Dialects that cannot tell such
	// conflicts (dialects.Retrier) never retry.
	Retries int
	// ConnectTimeout bounds opening a connection to a database server: TCP
	// connection, handshake, login and the first ping. 0 means
	// DefaultConnectTimeout; a negative value, none.
	ConnectTimeout time.Duration
	// IOTimeout is how long a server may stay silent while profdb waits for
	// it, or leave unread what profdb sends, before the operation fails. 0
	// means DefaultIOTimeout; a negative value, none. It applies to the
	// dialects that implement dialects.Connector (all but SQLite).
	IOTimeout time.Duration
	// Version is the profdb version recorded with each result set in
	// PROFDB_RESULT_SETS ("" records NULL).
	Version string
	// Now, if set, gives the time recorded as a result set's EXPORTED_AT
	// (and DELETED_AT), and that Delete's OlderThan counts from; time.Now
	// otherwise.
	Now func() time.Time
}

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

// DefaultRetries is the Retries the command-line tool uses unless told
// otherwise. Eight exporters racing on a three-node Galera cluster took up
// to five attempts for one result set (integration/galera); ten retries,
// whose pauses add up to about half a minute at most, leave room.
const DefaultRetries = 10
