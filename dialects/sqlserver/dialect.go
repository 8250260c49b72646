package sqlserver

import (
	"errors"
	"strconv"
	"strings"

	// The driver registers itself as "sqlserver" (and "mssql").
	mssql "github.com/microsoft/go-mssqldb"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Name is the dialect's registered name; it is also its only DSN scheme
// and the go-mssqldb driver name it uses.
const Name = "sqlserver"

// Limits of one request. go-mssqldb sends a statement with parameters as a
// call of sp_executesql, whose own @stmt and @params count against SQL
// Server's 2100 parameters per request; a VALUES list holds at most 1000
// rows.
const (
	MaxParams = 2100 - 2
	MaxRows   = 1000
)

// Dialect is the SQL Server dialect. The zero value is ready to use; it has
// no state.
type Dialect struct{}

var (
	_ dialects.Dialect   = Dialect{}
	_ dialects.Locker    = Dialect{}
	_ dialects.Collator  = Dialect{}
	_ ddl.BatchSeparator = Dialect{}
)

func init() { dialects.Register(Dialect{}) }

// Name returns "sqlserver".
func (Dialect) Name() string { return Name }

// Facts: DSNs sqlserver://; go-mssqldb's "sqlserver" driver, which takes
// @p1, @p2, ... as positional parameters; MaxParams parameters and MaxRows
// rows per VALUES list; the probe asks whether the current database is
// read-only. SQL Server's float has no subnormals (Babelfish, which keeps
// floats in PostgreSQL, has them).
func (Dialect) Facts() dialects.Facts {
	return dialects.Facts{
		Schemes:       []string{Name},
		Driver:        Name,
		Limits:        dialects.Limits{MaxParams: MaxParams, MaxRows: MaxRows},
		ReadOnlyProbe: "SELECT CASE WHEN DATABASEPROPERTYEX(DB_NAME(), 'Updateability') = 'READ_ONLY' THEN 1 ELSE 0 END",
		NoSubnormals:  true,
	}
}

// Quote quotes an identifier in brackets, doubling any ']' inside.
func (Dialect) Quote(ident string) string { return dialects.QuoteWith('[', ']', ident) }

// StoredName returns documented unchanged: SQL Server keeps names as
// created, and profdb creates them upper-case as documented
// (docs/layout.md, "Upper-case names without quotes").
func (Dialect) StoredName(documented string) string { return documented }

// Placeholder returns "@p" followed by n, go-mssqldb's name for the n-th
// positional argument.
func (Dialect) Placeholder(n int) string { return dialects.NumberedPlaceholder("@p", n) }

// batchSeparator is the line sqlcmd and SSMS split scripts on.
const batchSeparator = "GO"

// BatchSeparator returns "GO", the line sqlcmd and SSMS split scripts on.
func (Dialect) BatchSeparator() string { return batchSeparator }

// AllocLock is the sp_getapplock resource that serializes result-set
// allocation.
const AllocLock = "profdb.alloc"

// LockTimeout is how long Lock waits for AllocLock, in milliseconds.
const LockTimeout = 600000

// Lock returns the statement that takes AllocLock exclusively for the
// export transaction. The lock is owned by the transaction, so it is
// released by COMMIT or ROLLBACK and there is no release statement.
//
// sp_getapplock reports a timeout, a cancellation or a deadlock through its
// return status (negative), not as an error; the statement turns a
// negative status into a severity-16 error so that the export stops
// instead of proceeding unlocked. Application locks are per database
// already; the schema does not change the lock.
func (d Dialect) Lock(string) (acquire, release []string) {
	return []string{applock("Exclusive")}, nil
}

// applock returns the statement that takes AllocLock in mode for the
// transaction, failing unless it got it.
func applock(mode string) string {
	return "DECLARE @profdb_lock int;\n" + getAppLock(mode) + ";\n" +
		"IF @profdb_lock < 0 RAISERROR(" +
		nString("profdb: could not lock "+AllocLock+" (sp_getapplock returned %d)") + ", 16, 1, @profdb_lock)"
}

// getAppLock is the call of sp_getapplock that takes AllocLock in mode for
// the transaction, in an export (Lock), a read (ReadSnapshot) and a script
// (ScriptForm) alike, leaving its status in @profdb_lock, which must be
// declared.
func getAppLock(mode string) string {
	return "EXEC @profdb_lock = sp_getapplock @Resource = " + nString(AllocLock) +
		", @LockMode = " + nString(mode) + ", @LockOwner = N'Transaction', @LockTimeout = " + strconv.Itoa(LockTimeout)
}

// ReadSnapshot returns a SNAPSHOT isolation transaction where the
// database allows it (ALLOW_SNAPSHOT_ISOLATION ON, which Probe reads from
// sys.databases): every read sees the database as it was at the first one,
// and takes no lock. Where it does not, Fallback begins a READ COMMITTED
// transaction holding AllocLock in Shared mode: exports hold it exclusively
// for their whole transaction, so none is half-written while the reader
// reads (exports wait for it instead). End rolls back and restores READ
// COMMITTED, the level a pooled connection is expected to have. The schema
// does not matter: the lock and the setting are per database.
func (Dialect) ReadSnapshot(string) dialects.ReadSnapshot {
	return dialects.ReadSnapshot{
		Probe: "SELECT CASE WHEN snapshot_isolation_state = 1 THEN 1 ELSE 0 END FROM sys.databases WHERE database_id = DB_ID()",
		Begin: []string{"SET TRANSACTION ISOLATION LEVEL SNAPSHOT", "BEGIN TRANSACTION"},
		Fallback: []string{"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "BEGIN TRANSACTION",
			applock("Shared")},
		End: []string{"IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION", "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"},
	}
}

// errSnapshotDDL is SQL Server's error 3961: an object a snapshot
// transaction reads was changed by DDL after the snapshot began.
const errSnapshotDDL = 3961

// SnapshotStale reports whether err is SQL Server's error 3961: an object
// the snapshot reads was changed by DDL after it began.
func (Dialect) SnapshotStale(err error) bool {
	return errorNumber(err) == errSnapshotDDL
}

// nString returns s as a T-SQL Unicode string literal, doubling single
// quotes.
func nString(s string) string {
	return "N'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// IsReadOnly reports whether err is SQL Server's error 3906: the database
// is read-only (a read-only database, or a readable secondary replica).
func (Dialect) IsReadOnly(err error) bool {
	return errorNumber(err) == 3906
}

// errorNumber returns the number of the SQL Server error in err's chain,
// or 0.
func errorNumber(err error) int32 {
	var e mssql.Error
	if errors.As(err, &e) {
		return e.Number
	}
	var pe *mssql.Error
	if errors.As(err, &pe) {
		return pe.Number
	}
	return 0
}

// ExactText implements dialects.Collator: a binary (code point) collation,
// as the database's default collation usually ignores case.
func (Dialect) ExactText(expr string) string { return expr + " COLLATE Latin1_General_100_BIN2" }
