package postgres

import (
	"errors"
	"strconv"
	"strings"

	// The database/sql driver "postgres".
	"github.com/lib/pq"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Dialect is the PostgreSQL dialect. It has no state; the zero value is
// ready to use and is what the package registers.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

var (
	_ dialects.Dialect = (*Dialect)(nil)
	_ dialects.Locker  = (*Dialect)(nil)
	_ ddl.Preamble     = Dialect{}
)

// Preamble returns the settings a DDL script opens with: notices (such as
// "relation already exists, skipping" for each object when the script runs
// again) are not shown, warnings and errors are.
func (Dialect) Preamble() []string { return []string{"SET client_min_messages = warning"} }

// Name returns "postgres".
func (Dialect) Name() string { return "postgres" }

// Facts: DSNs postgres:// and postgresql://; lib/pq; MaxParams
// parameters and no row limit of PostgreSQL's own; the probe asks whether
// the server is a hot standby (in recovery) or the session's transactions
// are read-only.
func (Dialect) Facts() dialects.Facts {
	return dialects.Facts{
		Schemes:       []string{"postgres", "postgresql"},
		Driver:        "postgres",
		Limits:        dialects.Limits{MaxParams: MaxParams},
		ReadOnlyProbe: "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'",
	}
}

// Quote quotes an identifier in double quotes, doubling any double quote
// inside. The name is kept as given: quoted names are case-sensitive.
func (Dialect) Quote(ident string) string { return dialects.QuoteWith('"', '"', ident) }

// StoredName returns the documented name in lower case, the case under
// which PostgreSQL stores unquoted names, so that unquoted upper-case
// queries find the tables and columns profdb creates.
func (Dialect) StoredName(documented string) string { return strings.ToLower(documented) }

var _ dialects.TempSchemas = Dialect{}

// TempSchema explains the session's temporary schema: pg_temp, the alias
// PostgreSQL resolves to it, and its real names pg_temp_N and (for the
// TOAST data of its tables) pg_toast_temp_N, which PostgreSQL drops with
// everything in it when the session ends. Only these lower-case names:
// profdb quotes the schema (Qualify), so "PG_TEMP" is a schema of that
// name, one that may be created and lasts (the prefix pg_ that PostgreSQL
// reserves for itself is lower case).
func (Dialect) TempSchema(schema string) (what, instead string) {
	if schema != "pg_temp" && !numbered(schema, "pg_temp_") && !numbered(schema, "pg_toast_temp_") {
		return "", ""
	}
	return "is PostgreSQL's temporary schema of a session, which PostgreSQL drops with its tables when the session ends",
		"give a schema that lasts, or none for the search_path's"
}

// numbered reports whether s is prefix followed by a decimal number.
func numbered(s, prefix string) bool {
	n, ok := strings.CutPrefix(s, prefix)
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// Placeholder returns "$n".
func (Dialect) Placeholder(n int) string { return dialects.NumberedPlaceholder("$", n) }

// MaxParams is the most parameters one statement may carry: the protocol's
// Bind message counts them in 16 bits.
const MaxParams = 65535

// AllocLockKey is the advisory-lock key that serializes result-set
// allocation among concurrent exporters: the bytes "profdb" followed by
// 0x0001.
const AllocLockKey int64 = 0x70726F6664620001

// Lock returns the statement that serializes result-set allocation:
// SELECT pg_advisory_xact_lock(AllocLockKey). The lock belongs to the
// transaction and ends with it, so there is nothing to release. Advisory
// locks are per database already; the schema does not change the lock.
func (Dialect) Lock(string) (acquire, release []string) {
	return []string{"SELECT " + allocLock()}, nil
}

// allocLock is the call that takes the allocation lock for the
// transaction, in an export (Lock) and in a script (ScriptForm) alike.
func allocLock() string {
	return "pg_advisory_xact_lock(" + strconv.FormatInt(AllocLockKey, 10) + ")"
}

// quoteAll quotes the stored form of each name and joins them with ", ".
func (d Dialect) quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = d.Quote(d.StoredName(n))
	}
	return strings.Join(q, ", ")
}

// ReadSnapshot returns a read-only REPEATABLE READ transaction: every
// statement in it sees the database as it was at its first query, catalog
// included, and it takes no lock that blocks a writer. The schema does not
// matter.
func (Dialect) ReadSnapshot(string) dialects.ReadSnapshot {
	return dialects.ReadSnapshot{
		Begin: []string{"BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"},
		End:   []string{"ROLLBACK"},
	}
}

// IsReadOnly reports whether err is SQLSTATE 25006, read_only_sql_transaction:
// what a hot standby, or a session with default_transaction_read_only,
// answers to a write. (To BEGIN READ WRITE a hot standby answers 0A000,
// which ReadOnlyProbe tells apart.)
func (Dialect) IsReadOnly(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "25006"
}

// Limit implements dialects.RowLimiter: LIMIT n.
func (Dialect) Limit(query string, n int) string { return query + " LIMIT " + strconv.Itoa(n) }
