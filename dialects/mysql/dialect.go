package mysql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	// The database/sql driver "mysql".
	"github.com/go-sql-driver/mysql"

	"github.com/profdb/profdb/dialects"
)

// Dialect is the MySQL/MariaDB dialect. It has no state; the zero value is
// ready to use and is what the package registers.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

var (
	_ dialects.Dialect = (*Dialect)(nil)
	_ dialects.Locker  = (*Dialect)(nil)
)

// Name returns "mysql".
func (Dialect) Name() string { return "mysql" }

// Facts: DSNs mysql:// and mariadb://; go-sql-driver/mysql; MaxParams
// parameters and no row limit of MySQL's own (max_allowed_packet bounds
// each single value, not the statement; see the package documentation and
// MaxAllowedPacket); read_only as the probe. MySQL and MariaDB commit the
// open transaction on every DDL statement, so the exporter creates tables
// before its data transaction begins; MariaDB groups the rows of one
// INST_ID by ID along the (INST_ID, ID) index faster than it counts
// distinct IDs (docs/performance.md, "Grouping by the index"). MySQL's
// DOUBLE has no subnormals.
func (Dialect) Facts() dialects.Facts {
	return dialects.Facts{
		Schemes:       []string{"mysql", "mariadb"},
		Driver:        "mysql",
		Limits:        dialects.Limits{MaxParams: MaxParams},
		ReadOnlyProbe: "SELECT @@GLOBAL.read_only",
		DDLCommits:    true,
		GroupsByIndex: true,
		NoSubnormals:  true,
	}
}

// Quote quotes an identifier in backticks, doubling any backtick inside.
func (Dialect) Quote(ident string) string { return dialects.QuoteWith('`', '`', ident) }

// StoredName returns the documented name unchanged (upper case): MySQL
// matches column names case-insensitively, and table names as stored,
// which on a server with lower_case_table_names=0 (the Linux default) is
// case-sensitively.
func (Dialect) StoredName(documented string) string { return documented }

// Placeholder returns "?": MySQL parameters are positional.
func (Dialect) Placeholder(int) string { return "?" }

// MaxParams is the most parameters one prepared statement may carry: the
// protocol counts them in 16 bits.
const MaxParams = 65535

// AllocLockPrefix starts the name of the lock that serializes result-set
// allocation in one database: the prefix and the MD5 of the database name
// (a lock name holds at most 64 characters).
const AllocLockPrefix = "profdb."

// AllocLockTimeout is how many seconds the acquire statement waits.
const AllocLockTimeout = 600

// Lock returns the statements that serialize result-set allocation in the
// database schema ("" for the session's current database) with a session
// lock; GET_LOCK names are server-wide, so the name carries the database:
//
//	acquire: SELECT GET_LOCK(CONCAT('profdb.', MD5(DATABASE())), 600)
//	release: SELECT RELEASE_LOCK(CONCAT('profdb.', MD5(DATABASE())))
//
// The lock belongs to the session, not the transaction: run both on the
// same *sql.Conn, release after the transaction ended. GET_LOCK returns 1
// when it got the lock, 0 on timeout and NULL on error; a caller that runs
// acquire with Exec learns nothing of that, so it should read the result
// and fail unless it is 1.
func (Dialect) Lock(schema string) (acquire, release []string) {
	return []string{"SELECT " + getLock(schema)}, []string{"SELECT " + releaseLock(schema)}
}

// getLock is the call that takes the allocation lock of the database
// schema, in an export (Lock) and in a script (ScriptForm) alike: 1 when it
// got the lock.
func getLock(schema string) string {
	return fmt.Sprintf("GET_LOCK(%s, %d)", AllocLockNameSQL(schema), AllocLockTimeout)
}

// releaseLock is the call that releases what getLock took.
func releaseLock(schema string) string {
	return fmt.Sprintf("RELEASE_LOCK(%s)", AllocLockNameSQL(schema))
}

// AllocLockNameSQL is the SQL expression of the allocation lock's name for
// the database schema ("" for the session's current database).
func AllocLockNameSQL(schema string) string {
	db := "DATABASE()"
	if schema != "" {
		db = "'" + strings.ReplaceAll(schema, "'", "''") + "'"
	}
	return fmt.Sprintf("CONCAT('%s', MD5(%s))", AllocLockPrefix, db)
}

// MaxAllowedPacket returns the session's max_allowed_packet in bytes: each
// single value a prepared statement binds must be smaller (see the package
// documentation).
func MaxAllowedPacket(ctx context.Context, q dialects.DBTX) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, "SELECT @@SESSION.max_allowed_packet").Scan(&n); err != nil {
		return 0, fmt.Errorf("mysql: read max_allowed_packet: %w", err)
	}
	return n, nil
}

// quoteAll quotes each name and joins them with ", ".
func (d Dialect) quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = d.Quote(d.StoredName(n))
	}
	return strings.Join(q, ", ")
}

// ReadSnapshot returns a read-only REPEATABLE READ transaction that takes
// its InnoDB snapshot at once:
//
//	SET TRANSACTION ISOLATION LEVEL REPEATABLE READ   (the next transaction only)
//	START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY
//
// Consistent reads take no locks. information_schema is not
// transactional: a table created after the snapshot began is listed but
// cannot be read in it (SnapshotStale). The schema does not matter.
func (Dialect) ReadSnapshot(string) dialects.ReadSnapshot {
	return dialects.ReadSnapshot{
		Begin: []string{
			"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
			"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
		},
		End: []string{"ROLLBACK"},
	}
}

// ConnectionID implements dialects.QueryKiller.
func (Dialect) ConnectionID() string { return "SELECT CONNECTION_ID()" }

// KillQuery implements dialects.QueryKiller: KILL QUERY, which a login may
// run on its own connections without any privilege, ends the statement
// and keeps the connection.
func (Dialect) KillQuery(id int64) string { return fmt.Sprintf("KILL QUERY %d", id) }

// ErTableDefChanged is the error a consistent read gets from a table
// created or altered after its snapshot began ("Table definition has
// changed, please retry transaction").
const ErTableDefChanged = 1412

// SnapshotStale reports whether err is ErTableDefChanged: the catalog
// (information_schema) is not read in the snapshot, so an export that
// creates its tables meanwhile makes them visible but unreadable.
func (Dialect) SnapshotStale(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == ErTableDefChanged
}

// IsReadOnly reports whether err is MySQL's refusal to write: error 1290
// (the server runs with --read-only or --super-read-only) or 1792 (a
// READ ONLY transaction).
func (Dialect) IsReadOnly(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1290 || me.Number == 1792)
}

// ExplainOpen makes MySQL's error 1049, "Unknown database", at connect
// wrap dialects.ErrNoSchema: the database the DSN names does not exist.
func (Dialect) ExplainOpen(err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1049 {
		return dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("the database the DSN names does not exist: %w", err))
	}
	return err
}

// Limit implements dialects.RowLimiter: LIMIT n.
func (Dialect) Limit(query string, n int) string { return query + " LIMIT " + strconv.Itoa(n) }
