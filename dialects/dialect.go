package dialects

import (
	"context"
	"database/sql"
	"errors"

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

// Dialect is what every supported database provides.
type Dialect interface {
	ddl.Generator // CreateTable: idempotent CREATE TABLE and CREATE INDEX statements

	// Name is the dialect's name: "sqlite", "postgres", "mysql", "sqlserver".
	Name() string
	// Schemes are the DSN URL schemes that select the dialect.
	Schemes() []string
	// DriverName is the database/sql driver the dialect uses.
	DriverName() string
	// DriverDSN turns a profdb DSN (see ForDSN) into the driver's DSN,
	// adding the session settings profdb relies on (strict SQL mode on
	// MySQL, a busy timeout on SQLite, ...). Errors never contain a
	// password.
	DriverDSN(dsn string) (string, error)

	// Quote quotes an identifier, doubling the quote character inside.
	Quote(ident string) string
	// StoredName is the name under which the dialect stores a documented
	// name it creates: lower case on PostgreSQL, which folds unquoted names
	// so that unquoted upper-case queries find them (NOTES.md, "A real
	// consumer"); unchanged elsewhere.
	StoredName(documented string) string
	// Qualify returns the quoted, schema-qualified name of a table whose
	// real (stored) name is given; schema "" means the connection's default.
	Qualify(schema, table string) string
	// ColumnType is the column type that holds every value of t without
	// loss.
	ColumnType(t ddl.Type) string
	// Placeholder is the n-th (1-based) bound-parameter marker.
	Placeholder(n int) string
	// Limits bound the size of one multi-row INSERT.
	Limits() Limits

	// CreateTableIn is CreateTable for a table in the given schema ("" for
	// the default).
	CreateTableIn(schema string, t ddl.Table) []string

	// Tables lists the tables in schema ("" for the default) by their real
	// names.
	Tables(ctx context.Context, q DBTX, schema string) ([]string, error)
	// Columns describes the columns of an existing table, in table order.
	Columns(ctx context.Context, q DBTX, schema, table string) ([]ColumnInfo, error)
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
	Precision  int   // decimal columns: total digits
	Scale      int   // decimal columns: fractional digits
	FloatBits  int   // floating-point columns: 32 or 64; 0 otherwise
	// ApproxNumbers is set for columns that store a number which does
	// not fit a 64-bit integer as a 64-bit float, silently rounding it:
	// SQLite's INTEGER, REAL and NUMERIC affinity outside STRICT tables.
	ApproxNumbers bool
}

// DDLCommitter is implemented by dialects whose DDL statements commit the
// open transaction (MySQL, MariaDB). The exporter then creates tables before
// its data transaction begins.
type DDLCommitter interface {
	DDLCommits() bool
}

// Value conversion: the exporter hands dialects values in canonical form:
// Integer as int64, Decimal as Dec, Float as float64, String as string, and
// nil for NULL.

// Dec is an exact decimal in canonical text form: an optional '-', digits
// with no leading zeros (a single "0" before the point), and, if there is a
// fraction, '.' and at most ddl.DecimalScale digits without trailing zeros.
type Dec string

// Binder is implemented by dialects that bind some values in a form other
// than the canonical one (a Decimal as text, say).
type Binder interface {
	Bind(t ddl.Type, v any) any
}

// Locker is implemented by dialects that serialize result-set allocation
// with a lock of their own. Lock returns statements to run at the start of
// the export transaction and, for a session lock, statements to run after
// it ended on the same connection. The lock covers the tables of one
// database: schema is the one the export writes into ("" for the
// connection's default), for dialects whose locks span a whole server.
type Locker interface {
	Lock(schema string) (acquire, release []string)
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
}

// Rows yields the rows of a bulk load, values in canonical form. Next
// returns io.EOF after the last row; the returned slice is reused between
// calls.
type Rows interface {
	Next() ([]any, error)
}

// BulkLoader is implemented by dialects with a native bulk path (COPY, LOAD
// DATA, bulk copy). BulkLoad writes every row inside the transaction tx and
// returns the count. It returns ErrSkip, having written nothing, when the
// path is not available (a server setting, say); the caller then uses
// batched INSERT.
type BulkLoader interface {
	BulkLoad(ctx context.Context, tx *sql.Tx, t Target, rows Rows) (int64, error)
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
