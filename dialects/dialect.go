package dialects

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/profdb/profdb/ddl"
)

// DBTX is the part of *sql.DB, *sql.Tx and *sql.Conn that dialects use.
type DBTX interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var (
	_ DBTX = (*sql.DB)(nil)
	_ DBTX = (*sql.Tx)(nil)
	_ DBTX = (*sql.Conn)(nil)
)

// Limits are a dialect's bounds on one INSERT statement.
type Limits struct {
	MaxParams int // bound parameters per statement
	MaxRows   int // rows per VALUES list; 0 means no limit of its own
}

// Facts are what a dialect is, as data rather than code: the values a
// caller reads and never computes. Their zero values are the fallbacks
// (see the table in the package documentation).
type Facts struct {
	// Schemes are the DSN URL schemes that select the dialect (ForDSN).
	Schemes []string
	// Driver is the database/sql driver the dialect uses.
	Driver string
	// Limits bound the size of one multi-row INSERT.
	Limits Limits
	// ReadOnlyProbe is a query answering one row with one value, true
	// (non-zero) when the database accepts no writes; "" for none. The
	// store asks it after a failed write whose error ReadOnlyTeller does
	// not recognise.
	ReadOnlyProbe string
	// DDLCommits is set when a DDL statement commits the open transaction
	// (MySQL, MariaDB): the exporter then creates tables before its data
	// transaction begins.
	DDLCommits bool
	// GroupsByIndex is set when the planner groups the rows of one
	// INST_ID by ID, along the (INST_ID, ID) index, faster than it counts
	// their distinct IDs (SQLite, MariaDB): a check for duplicate IDs then
	// groups at once instead of counting first (PostgreSQL, whose plans
	// for rows just loaded have no statistics, counts distinct values in
	// half the time it groups them).
	GroupsByIndex bool
	// NoSubnormals is set when the server does not store a float below
	// the smallest normal double (2.2250738585072014e-308) as given
	// (MySQL, SQL Server).
	NoSubnormals bool
}

// Dialect is what every supported database provides: twelve answers
// that differ between every pair of databases. What only some databases
// have, or need, is an optional capability found by type assertion, each
// with a fallback (the table in the package documentation).
type Dialect interface {
	// Name is the dialect's name: "sqlite", "postgres", "mysql", "sqlserver".
	Name() string
	// Facts are the dialect's facts that need no code.
	Facts() Facts
	// DriverDSN turns a profdb DSN (see ForDSN) into the driver's DSN,
	// adding the session settings profdb relies on (strict SQL mode on
	// MySQL, a busy timeout on SQLite, ...). Errors never contain a
	// password.
	DriverDSN(dsn string) (string, error)

	// Quote quotes an identifier, doubling the quote character inside.
	// Qualify builds schema-qualified names from it.
	Quote(ident string) string
	// StoredName is the name under which the dialect stores a documented
	// name it creates: lower case on PostgreSQL, which folds unquoted names
	// so that unquoted upper-case queries find them (docs/layout.md,
	// "Upper-case names without quotes"); unchanged elsewhere.
	StoredName(documented string) string
	// ColumnType is the column type that holds every value of t without
	// loss.
	ColumnType(t ddl.Type) string
	// Placeholder is the n-th (1-based) bound-parameter marker.
	Placeholder(n int) string
	// Bind returns v, a value of logical type t in canonical form (see
	// Dec), in the form the dialect's driver binds it: a Decimal as text,
	// say. Most values pass unchanged.
	Bind(t ddl.Type, v any) any

	// CreateTableIn returns the statements that create t and its indexes
	// in the given schema ("" for the default), each safe to run again
	// when they exist already, without trailing semicolons.
	CreateTableIn(schema string, t ddl.Table) []string

	// Tables lists the tables in schema ("" for the default) by their real
	// names. A schema (a MySQL database, an SQLite attached database) that
	// does not exist, or a default that names none, is an error wrapping
	// ErrNoSchema and naming it, never an empty list: a reader must not
	// take a mistyped schema for one that holds no result set.
	Tables(ctx context.Context, q DBTX, schema string) ([]string, error)
	// Columns describes the columns of an existing table, in table order.
	// A table that does not exist is an error wrapping ErrNoTable and
	// naming the table, never an empty list: callers that match documented
	// columns must not take a missing table for one without them.
	Columns(ctx context.Context, q DBTX, schema, table string) ([]ColumnInfo, error)
	// ReadSnapshot returns the statements of a read in one consistent
	// snapshot of schema ("" for the connection's default).
	ReadSnapshot(schema string) ReadSnapshot
}

// Qualify returns the quoted, schema-qualified name of a table whose real
// (stored) name is given, as d quotes names; schema "" means the
// connection's default, and the table's name stands alone.
func Qualify(d Dialect, schema, table string) string {
	if schema == "" {
		return d.Quote(table)
	}
	return d.Quote(schema) + "." + d.Quote(table)
}

// Generator returns the ddl.Generator of d's tables in schema ("" for the
// default), for ddl.Script. The generator has d's batch separator and
// preamble when d has them.
func Generator(d Dialect, schema string) ddl.Generator {
	return generator{d, schema}
}

type generator struct {
	d      Dialect
	schema string
}

func (g generator) CreateTable(t ddl.Table) []string { return g.d.CreateTableIn(g.schema, t) }

func (g generator) BatchSeparator() string {
	if bs, ok := g.d.(ddl.BatchSeparator); ok {
		return bs.BatchSeparator()
	}
	return ""
}

func (g generator) Preamble() []string {
	if p, ok := g.d.(ddl.Preamble); ok {
		return p.Preamble()
	}
	return nil
}

// Namespaces is implemented by dialects of servers on which a program can
// make a namespace of its own to write into, and drop it again: a schema
// (PostgreSQL, selected through search_path) or a database (MySQL, SQL
// Server). The test kits give each test one (dbtest.Fresh). Without it, a
// database of the dialect is a file, and a new file is a new namespace
// (SQLite).
type Namespaces interface {
	// Namespace returns the statements that create the namespace name, a
	// plain lower-case identifier, and those that drop it with all it
	// holds, to run on q, a connection to the server.
	Namespace(ctx context.Context, q DBTX, name string) (create, drop []string, err error)
	// InNamespace returns dsn, a profdb DSN of the dialect, pointed at the
	// namespace name.
	InNamespace(dsn, name string) (string, error)
}

// Explainer is implemented by dialects whose server shows its plan of a
// statement without running it. The test kit plantest asks it to prove
// that the statements profdb runs keep to the INST_ID indexes
// (docs/performance.md). Without it, no plan of the dialect is checked.
type Explainer interface {
	// Explain returns the statement that asks for the plan of query (the
	// query with a prefix), the column of its rows that holds the plan,
	// and the plan's format: a name the dialect's package defines for
	// its form of plan, such as postgres.PlanJSON.
	Explain(query string) (stmt string, col int, format string)
}

// ReadOnlyTeller is implemented by dialects that can tell a server's
// refusal to write from other errors: IsReadOnly reports whether err says
// that the server (a hot standby, say), the database or the transaction
// accepts no writes. Without it, such an error is reported as the server
// words it, and only Facts.ReadOnlyProbe, when set, tells.
type ReadOnlyTeller interface {
	IsReadOnly(err error) bool
}

// IsReadOnly reports whether d's ReadOnlyTeller recognises err; false
// without one.
func IsReadOnly(d Dialect, err error) bool {
	t, ok := d.(ReadOnlyTeller)
	return ok && t.IsReadOnly(err)
}

// ErrNoTable is wrapped by the error of Dialect.Columns for a table that
// does not exist.
var ErrNoTable = errors.New("no such table")

// ErrNoSchema is wrapped by the error of Dialect.Tables for a schema (a
// MySQL database, an SQLite attached database) that does not exist, and by
// the error of opening a connection to a database that does not exist
// (MySQL's "Unknown database", see OpenExplainer).
var ErrNoSchema = errors.New("no such schema or database")

// ErrTempSchema is wrapped by the error of WritableSchema: the schema
// lasts only as long as the connection that writes into it, so whatever
// is written there is gone when the connection closes.
var ErrTempSchema = errors.New("the schema does not outlive the connection")

// TempSchemas is implemented by dialects in which a schema name can name
// a schema that lasts only as long as the connection (the session) that
// writes into it: SQLite's temp database, PostgreSQL's pg_temp. No
// command writes result sets there (WritableSchema): they would be gone,
// unseen, when the command ends. Without it, no schema of the dialect is
// temporary.
type TempSchemas interface {
	// TempSchema says, when schema (as Qualify quotes it) names a
	// temporary schema, what it is, as words that follow the schema's
	// name in an error ("is SQLite's temporary database, which ..."), and
	// what to give instead; "", "" when it lasts.
	TempSchema(schema string) (what, instead string)
}

// WritableSchema returns nil when what is written into schema of d
// outlives the connection, and otherwise an error naming the schema that
// wraps ErrTempSchema (see TempSchemas). Every writer asks it before it
// writes, and a script generator before it writes a script for schema.
func WritableSchema(d Dialect, schema string) error {
	ts, ok := d.(TempSchemas)
	if !ok || schema == "" {
		return nil
	}
	what, instead := ts.TempSchema(schema)
	if what == "" {
		return nil
	}
	return Wrapping(ErrTempSchema, fmt.Errorf("%s: schema %q %s: nothing written there would be kept; %s", d.Name(), schema, what, instead))
}

// Wrapping returns err, its words unchanged, wrapping sentinel too (such
// as ErrNoSchema): for an error whose words say already what the sentinel
// would add.
func Wrapping(sentinel, err error) error { return wrapping{err, sentinel} }

type wrapping struct{ err, sentinel error }

func (e wrapping) Error() string   { return e.err.Error() }
func (e wrapping) Unwrap() []error { return []error{e.err, e.sentinel} }

// ErrNotDatabase is wrapped by the error of opening a file that is not a
// database of the dialect (see OpenExplainer).
var ErrNotDatabase = errors.New("not a database")

// OpenExplainer is implemented by dialects whose server refuses a
// connection in words that a caller should be able to tell apart:
// ExplainOpen returns err, the failure of the first connection, wrapping
// ErrNoSchema when the database the DSN names does not exist, or
// ErrNotDatabase when the file the DSN names is no database, and err as
// it is otherwise.
type OpenExplainer interface {
	ExplainOpen(err error) error
}

// ColumnInfo describes a column of an existing table, as inspected.
type ColumnInfo struct {
	Name       string   // real name
	DBType     string   // the database's own spelling, e.g. "varchar(255)"
	Type       ddl.Type // the logical type it is closest to; 0 if none
	Nullable   bool
	HasDefault bool
	IntBits    int   // integer columns: 8, 16, 24, 32 or 64; 0 otherwise
	MaxChars   int64 // string columns: the most characters it holds; 0 means no limit
	// MaxCharsUTF16 is set when MaxChars counts UTF-16 code units, of
	// which a character beyond U+FFFF takes two (SQL Server's NVARCHAR(n)),
	// rather than characters.
	MaxCharsUTF16 bool
	Precision     int // decimal columns: total digits
	Scale         int // decimal columns: fractional digits
	FloatBits     int // floating-point columns: 32 or 64; 0 otherwise
	// ApproxNumbers is set for columns that store a number which does
	// not fit a 64-bit integer as a 64-bit float, silently rounding it:
	// SQLite's INTEGER, REAL and NUMERIC affinity outside STRICT tables.
	ApproxNumbers bool
	// ApproxExact, with ApproxNumbers, says what keeps such numbers
	// exactly, as words that end an error ("tables made by profdb are
	// STRICT and keep them exactly").
	ApproxExact string
}

// Value conversion: the exporter hands dialects values in canonical form:
// Integer as int64, Decimal as ddl.Dec, Float as float64, String as string, and
// nil for NULL.

// Locker is implemented by dialects that serialize result-set allocation
// with a lock of their own. Lock returns statements to run at the start of
// the export transaction and, for a session lock, statements to run after
// it ended on the same connection. The lock covers the tables of one
// database: schema is the one the export writes into ("" for the
// connection's default), for dialects whose locks span a whole server.
type Locker interface {
	Lock(schema string) (acquire, release []string)
}

// Retrier is implemented by dialects that can tell, from an error, that
// the server aborted a transaction because of a concurrent one, so that the
// whole transaction may succeed when run again.
type Retrier interface {
	// Retryable reports whether err is a deadlock, a serialization
	// failure or a cluster's certification conflict: the server rolled
	// back the transaction (or will accept nothing more of it) for a reason
	// that a new attempt may not meet.
	Retryable(err error) bool
	// DuplicateKey reports whether err is a violation of a primary key or
	// unique constraint. The exporter treats one on the keys it allocates
	// (INSTANCES.INST_ID, RELATIONS.ID) as a conflict with a concurrent
	// exporter that took them first.
	DuplicateKey(err error) bool
}

// StaleSnapshots is implemented by dialects whose snapshot may refuse a
// table created or changed after it began (MySQL's error 1412, SQL
// Server's 3961). SnapshotStale reports whether err is that refusal, so
// that the store reads again in a new snapshot. Without it, no error is
// taken for one: the snapshot sees the catalogue as it was.
type StaleSnapshots interface {
	SnapshotStale(err error) bool
}

// TxProber is implemented by dialects whose servers may end a transaction
// without telling the statement that runs next: a Galera node that aborts a
// local transaction for a conflicting one replicated from another node may
// let a read in it run on, outside any transaction, and see none of what
// the transaction wrote. TxOpenSQL returns a query whose one value is 1
// while the session's transaction is open and 0 once the server has ended
// it. A server that does not know the query answers with an error, and the
// caller knows nothing more than before.
type TxProber interface {
	TxOpenSQL() string
}

// RowKeyColumn is the column profdb adds, as an auto-numbered primary key,
// to the profiler tables it creates on a server that demands a primary key
// on every table (see RowKeyer). It is no documented column: the exporter
// never fills it and readers never ask for it.
const RowKeyColumn = "PROFDB_ROW_ID"

// RowKeyer is implemented by dialects whose servers may demand a primary
// key on every table (MariaDB's innodb_force_primary_key, MySQL's
// sql_require_primary_key, Percona XtraDB Cluster's pxc_strict_mode), which
// the profiler tables have none of: their ID is unique only within a result
// set.
type RowKeyer interface {
	// RowKeyDemanded reads the server's settings: demanded reports whether
	// it refuses tables, or writes into tables, without a primary key;
	// invisible whether it can hide a column from SELECT * and from INSERT
	// without a column list (INVISIBLE columns).
	RowKeyDemanded(ctx context.Context, q DBTX) (demanded, invisible bool, err error)
	// CreateTableWithRowKey is CreateTableIn for a table without a key of
	// its own (t.Key == ""), with RowKeyColumn added as its auto-numbered
	// primary key, INVISIBLE when invisible is set.
	CreateTableWithRowKey(schema string, t ddl.Table, invisible bool) []string
}

// Distributor is implemented by dialects whose servers may spread the
// rows of a table over several nodes (PostgreSQL with the Citus extension).
// When an export creates a table on such a server, it distributes it right
// after creating it, while it is empty, so that the result set's rows live
// together on one node and every query for one result set runs there.
// Tables that existed before the export are never distributed.
type Distributor interface {
	// Distributes reports whether the server q reaches spreads tables over
	// nodes now: false on a plain server. It never fails a transaction
	// open on q.
	Distributes(ctx context.Context, q DBTX) (bool, error)
	// Distribute returns the statements that spread t, created in schema
	// ("" for the default) under its stored name, over the nodes: for an
	// export, which has just created t, guard is nil; a script passes one.
	Distribute(schema string, t ddl.Table, guard *ScriptGuard) []string
	// Distributed reports whether table, an existing table of schema
	// under its real name, is spread over the nodes (or copied to every
	// node) already. Only asked where Distributes said yes.
	Distributed(ctx context.Context, q DBTX, schema, table string) (bool, error)
}

// A ScriptGuard fits the statements of Distributor.Distribute to a script,
// which may run again and on a database that holds tables already: each
// does nothing unless its table is not spread over the nodes yet, holds no
// row (a table with data is used as it is, as an export uses it), and
// Anchor, the table created first whose layout the database keeps
// (INSTANCES), is spread already or is the table itself. So a script keeps
// a database of plain tables plain, as an export does.
type ScriptGuard struct {
	Anchor string // the anchor table's name (stored as the dialect stores it)
}

// ColumnAdder is implemented by dialects that can add a column to an
// existing table: AddColumn returns the statement that adds c, nullable,
// to table (its real name) in schema ("" for the default). profdb adds
// only columns of its own tables (PROFDB_RESULT_SETS made by an earlier
// profdb); AQTime's tables stay as documented. Without it, such a table is
// used with the columns it has.
type ColumnAdder interface {
	AddColumn(schema, table string, c ddl.Column) string
}

// Collator is implemented by dialects whose text comparisons may ignore
// case or accents (SQL Server's default collations): ExactText turns a text
// expression into one that compares, groups and sorts code point by code
// point, so that names differing only in case stay apart in a GROUP BY or
// a join. Where text compares exactly already (profdb's MySQL tables are
// utf8mb4_bin) a dialect does not implement it.
type Collator interface {
	ExactText(expr string) string
}

// ErrSkip is returned by an optional capability that cannot serve this
// call; the caller falls back to the portable path.
var ErrSkip = errors.New("dialects: skip to the portable path")

// Target names the table a bulk load writes into.
type Target struct {
	Schema  string     // "" for the default
	Table   string     // the real (stored) table name
	Columns []string   // real column names, in row order
	Types   []ddl.Type // logical type of each column
	// New reports that this export created the table itself: it has no
	// index, key or constraint but profdb's own (no UNIQUE secondary
	// index, no FOREIGN KEY), so a loader may use what is safe only for
	// such a table.
	New bool
}

// Rows yields the rows of a bulk load, values in canonical form. Next
// returns io.EOF after the last row; the returned slice is reused between
// calls.
type Rows interface {
	Next() ([]any, error)
}

// Tx is the transaction a bulk load writes in.
type Tx struct {
	*sql.Tx
	// Conn is the connection the transaction runs on, or nil. A loader
	// may drive the driver's own connection through Conn.Raw, skipping
	// database/sql's conversion of every value (lib/pq's CopyData, say);
	// it falls back to Tx when Conn is nil or holds a driver it does not
	// expect. Nothing else may use the transaction while BulkLoad runs.
	Conn *sql.Conn
}

// BulkLoader is implemented by dialects with a native bulk path (COPY, LOAD
// DATA, bulk copy). BulkLoad writes every row inside the transaction tx and
// returns the count. It returns ErrSkip, having written nothing, when the
// path is not available (a server setting, say); the caller then uses
// batched INSERT.
type BulkLoader interface {
	BulkLoad(ctx context.Context, tx Tx, t Target, rows Rows) (int64, error)
}

// LongRowTuner is implemented by dialects whose session holds more memory
// than it needs while rows of long values are written: SQLite's page cache,
// which the overflow pages of long texts fill. A writer that batches rows
// runs LongRowSQL's enter on the transaction before its first batch of
// BatchBytes or more in a table, and leave when the table ends, or on the
// connection once the transaction is rolled back. Without it, the session
// is left as it is.
type LongRowTuner interface {
	// LongRowSQL returns the statement that sets the session for rows of
	// long values, and the one that sets it back.
	LongRowSQL() (enter, leave string)
}

// IndexSplitter is implemented by dialects that can create a table apart
// from its indexes. When an export creates a table itself, it loads the rows
// first and builds the indexes afterwards, inside the same transaction,
// which is several times faster than maintaining them row by row. Dialects
// whose DDL commits (DDLCommitter) do not benefit.
type IndexSplitter interface {
	// CreateTableOnly returns the statements of CreateTableIn without the
	// secondary indexes (a primary key stays with the table).
	CreateTableOnly(schema string, t ddl.Table) []string
	// CreateIndexes returns the statements that create the secondary
	// indexes of t, each safe to run again.
	CreateIndexes(schema string, t ddl.Table) []string
}

// NewTableCreator is implemented by dialects whose CreateTableIn guards
// each index with a query of the catalogue that costs more than the index
// of a new, empty table (SQL Server). An export that has found a table
// missing, under its lock, creates it with CreateNewTableIn instead: the
// table and its indexes, the indexes unguarded or guarded with the table.
type NewTableCreator interface {
	CreateNewTableIn(schema string, t ddl.Table) []string
}

// TablesInspector is implemented by dialects that describe the columns of
// several tables in one query, where a query of the catalogue costs more
// than the rows it returns (PostgreSQL plans information_schema.columns
// anew for each query). ColumnsOf answers Columns for each of tables (real
// names), in a map by the names given; a table that does not exist is an
// error wrapping ErrNoTable and naming it, as with Columns.
type TablesInspector interface {
	ColumnsOf(ctx context.Context, q DBTX, schema string, tables []string) (map[string][]ColumnInfo, error)
}

// DialFunc opens a network connection to a database server, as
// net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Connector is implemented by dialects whose driver lets the caller open
// the network connections: Connector returns a database/sql connector for
// the driver DSN (as DriverDSN returns it) that dials every connection
// with dial, so that the caller sets connect and I/O timeouts and TCP
// keepalive, and can close the connections when a command is interrupted.
// Building the connector does no I/O.
type Connector interface {
	Connector(driverDSN string, dial DialFunc) (driver.Connector, error)
}

// QueryKiller is implemented by dialects whose server runs a statement on
// after its client gave up waiting for it: MySQL and MariaDB notice a
// closed connection only when they write to it, so a SELECT SLEEP(30) or a
// long aggregate whose context ended (profdb serve's query timeout, an
// interrupted command) would hold its thread and locks on. A read
// snapshot (store) reads its connection's id with ConnectionID when it
// begins, and when its context ends runs KillQuery(id) on another
// connection, before the snapshot's own connection goes back to the pool.
type QueryKiller interface {
	// ConnectionID is the query of the server's id of the connection it
	// runs on, one integer.
	ConnectionID() string
	// KillQuery is the statement that stops the statement connection id
	// runs, leaving the connection open.
	KillQuery(id int64) string
}

// RowLimiter is implemented by dialects that can cap the rows a SELECT
// returns. A reader that wants the first n rows of an ordered query
// (list --last, the newest run a selector names, a page of serve's runs)
// asks for them alone; without it, the reader closes the rows once it has
// n, and the driver may still read the rest off the wire.
type RowLimiter interface {
	// Limit returns query, a SELECT that ends in its ORDER BY, returning
	// its first n rows only.
	Limit(query string, n int) string
}

// Access is what a connection may do to the database it opens.
type Access int

const (
	// ReadWrite may create the database (an SQLite file) and write it.
	ReadWrite Access = iota
	// NoCreate may write an existing database but never creates one.
	NoCreate
	// ReadOnly only reads: it creates, locks for writing and writes nothing.
	ReadOnly
)

// AccessDSN is implemented by dialects whose driver opens the database
// file itself (SQLite), so that the connection, not the server, decides
// whether a missing database is created and whether it may be written.
type AccessDSN interface {
	// DriverDSNAccess is DriverDSN for a connection limited to a; a DSN
	// that asks for less (SQLite's mode=ro) keeps its own limit.
	DriverDSNAccess(dsn string, a Access) (string, error)
	// File returns the path of the database file dsn names.
	File(dsn string) (string, error)
}

// DefaultLockTimeout is how long a connection waits for a lock on the
// whole database that another connection holds without progress, unless
// told otherwise (see LockWaiter): 10 minutes, as long as a MySQL export
// waits for the allocation lock.
const DefaultLockTimeout = 10 * time.Minute

// LockWaiter is implemented by dialects whose writers lock the whole
// database, one at a time (SQLite: BEGIN IMMEDIATE takes the file's write
// lock, and a reader waits while a writer commits), and whose driver waits
// for such a lock up to a lock timeout, then gives up. A writer queued
// behind others may wait far longer than any one of them holds the lock;
// the caller therefore begins a write again when the wait timed out while
// the database made progress (WriteProgress changed), so that the timeout
// bounds only a wait in which nothing happened: a writer that holds the
// lock and is stuck.
type LockWaiter interface {
	AccessDSN
	// DriverDSNWait is DriverDSNAccess with the lock timeout: wait > 0
	// waits up to wait, wait < 0 without limit, 0 as the DSN says or
	// DefaultLockTimeout. It returns the timeout set, negative for none.
	DriverDSNWait(dsn string, a Access, wait time.Duration) (string, time.Duration, error)
	// WriteProgress returns a token of the database file (its path, as
	// File returns it) that changes whenever a writer writes into it or
	// commits. It takes no lock.
	WriteProgress(file string) (string, error)
	// LockTimedOut reports whether err is the driver's giving up on a lock
	// that another connection held for the whole lock timeout.
	LockTimedOut(err error) bool
}

// ReadSnapshot says how a dialect reads in one consistent snapshot: a
// read-only transaction in which every query sees the same committed state
// of the database, so that a reader never sees half of a concurrent
// writer's work. Every dialect has one (Dialect.ReadSnapshot): a reader
// must never see a result set half written.
type ReadSnapshot struct {
	// Probe, when not empty, is a query answering one row with one integer:
	// non-zero when Begin can be used in this database, 0 when Fallback
	// must be used instead (SQL Server without ALLOW_SNAPSHOT_ISOLATION).
	Probe string
	// Begin starts the snapshot; the statements run in order on one
	// connection, which then runs every read.
	Begin []string
	// Fallback replaces Begin when Probe answers 0.
	Fallback []string
	// End ends the snapshot on the same connection, whatever happened;
	// when it fails the connection is discarded.
	End []string
}

// FewSetsPlanner is implemented by dialects whose planner may choose, for a
// statement about one result set, a plan whose cost grows with the whole
// table: when its statistics no longer describe the table, a row estimate
// many times too large makes it scan the table instead of reading the
// INST_ID index, start parallel workers, or compile the query (PostgreSQL).
// FewSetsSettings returns the statements that a transaction runs right
// after it begins when each of its statements selects rows by INST_ID: a
// read of one or a few result sets (the readers of package readback,
// store.DB.Read, a verify of one result set), a delete, an export. They
// change settings for that transaction only, so that such plans keep to the
// INST_ID indexes whatever the estimates say. A read of every result set
// (list, a verify of the whole database) does without them. See
// docs/performance.md, "Plans and statistics".
type FewSetsPlanner interface {
	FewSetsSettings() []string
}

// StatsRefresher is implemented by dialects whose server keeps the
// planner's statistics fresh only when told to, or late: PostgreSQL's
// autovacuum may be off, behind, or not yet awake when the next command
// runs. After an export has committed, the exporter calls RefreshStats for
// each table it wrote rows into (written of them), on a connection outside
// any transaction; the dialect decides whether the table's statistics are
// stale and, if so, refreshes them. refreshed reports whether it did. A
// table the login may not refresh is skipped without an error. The export
// is committed already: the exporter never fails it for RefreshStats's
// error, and only notes it.
type StatsRefresher interface {
	RefreshStats(ctx context.Context, q DBTX, schema, table string, written int64) (refreshed bool, err error)
}

// InstRead is the read of one result set's rows of one table, in a
// snapshot: the columns Columns of Schema.Table whose column InstCol
// equals Inst. Names are the table's real ones, as the catalogue has them,
// unquoted. Order lists the columns to order by; with none, the rows may
// come in any order (store.DB.ReadUnordered, which profdb copy uses).
type InstRead struct {
	Schema, Table string
	Columns       []string
	InstCol       string
	Inst          int64
	Order         []string
}

// InstRows is the shape of *sql.Rows that a read of rows needs; Scan takes
// one *any per column and stores the value as database/sql's Scan into
// an *any would (int64, float64, string or []byte, bool, time.Time, or
// nil for NULL).
type InstRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

var _ InstRows = (*sql.Rows)(nil)

// InstReader is implemented by dialects that read the rows of one result
// set faster than a plain SELECT … WHERE INST_ID = ? through database/sql
// does (SQLite: by the table's own order when the result set is most of
// the table, and on a connection of its own outside database/sql). q is
// the snapshot the read belongs to, a read transaction that has read
// already; the rows must be those q sees. Without it, the rows are read
// by that plain SELECT, with ORDER BY when Order lists columns.
type InstReader interface {
	ReadInst(ctx context.Context, q DBTX, r InstRead) (InstRows, error)
}

// NextRow is how a BulkLoader takes its rows: the next row of rows, checked
// to hold width values, or ok false after the last one. what and table name
// the load in the error ("postgres: COPY into", "T": joined only then, not
// for every row); rowNo is the row's number.
func NextRow(rows Rows, width int, rowNo int64, what, table string) (row []any, ok bool, err error) {
	row, err = rows.Next()
	if errors.Is(err, io.EOF) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(row) != width {
		return nil, false, fmt.Errorf("%s %s: row %d has %d values for %d columns", what, table, rowNo, len(row), width)
	}
	return row, true, nil
}

// OnDriverConn runs load on the driver's own connection of tx (through
// tx.Conn.Raw) when tx has a Conn and accept takes that connection: accept
// returns the load to run, or nil for a driver the loader does not expect.
// ran reports whether the load ran; when it did not, the caller takes its
// portable path. err is the load's error, or Raw's own.
//
// It never hands driver.ErrBadConn back to Raw: Raw would then close the
// connection, which waits for the transaction open on it to end, which
// waits for the load. A failed connection is discarded when the
// transaction ends instead.
func OnDriverConn(tx Tx, accept func(driverConn any) func() (int64, error)) (n int64, ran bool, err error) {
	if tx.Conn == nil {
		return 0, false, nil
	}
	rawErr := tx.Conn.Raw(func(dc any) error {
		if load := accept(dc); load != nil {
			ran = true
			n, err = load()
		}
		return nil
	})
	if rawErr != nil {
		return 0, false, rawErr
	}
	return n, ran, err
}
