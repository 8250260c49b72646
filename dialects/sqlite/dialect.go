package sqlite

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	// The database/sql driver "sqlite".
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/profdb/profdb/dialects"
)

// Dialect is the SQLite dialect. It has no state; the zero value is ready to
// use and is what the package registers.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

var (
	_ dialects.Dialect   = (*Dialect)(nil)
	_ dialects.AccessDSN = (*Dialect)(nil)
)

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// Facts: DSNs sqlite:PATH; modernc.org/sqlite; MaxParams parameters and
// no row limit of SQLite's own (multi-row VALUES lists are not bound by
// SQLITE_MAX_COMPOUND_SELECT); no probe, as IsReadOnly recognises every
// refusal. SQLite groups the rows of one INST_ID by ID along the
// (INST_ID, ID) index faster than it counts distinct IDs
// (docs/performance.md, "Grouping by the index").
func (Dialect) Facts() dialects.Facts {
	return dialects.Facts{
		Schemes:       []string{"sqlite"},
		Driver:        "sqlite",
		Limits:        dialects.Limits{MaxParams: MaxParams},
		GroupsByIndex: true,
	}
}

// Quote quotes an identifier in double quotes, doubling any double quote
// inside.
func (Dialect) Quote(ident string) string { return dialects.QuoteWith('"', '"', ident) }

// StoredName returns the documented name unchanged: SQLite keeps the case
// of the names it creates and matches names case-insensitively, so unquoted
// upper-case queries find them.
func (Dialect) StoredName(documented string) string { return documented }

var _ dialects.TempSchemas = Dialect{}

// TempSchema explains temp, in any case: SQLite's temporary database,
// which every connection has of its own and deletes when it closes.
// (SQLite matches database names ignoring case; temp is its one name for
// that database.) main, the file itself, lasts; other names are those of
// attached databases, which profdb never attaches (Tables refuses them).
func (Dialect) TempSchema(schema string) (what, instead string) {
	if !strings.EqualFold(schema, "temp") {
		return "", ""
	}
	return "is SQLite's temporary database, which each connection has of its own and deletes when it closes",
		"leave the schema out to write into the database file itself (main)"
}

// Placeholder returns "?" for every n: statements use SQLite's anonymous
// positional parameters, bound in order.
func (Dialect) Placeholder(int) string { return "?" }

// MaxParams is SQLite's default SQLITE_MAX_VARIABLE_NUMBER (since 3.32),
// the most parameters one statement may carry.
const MaxParams = 32766

// quoteAll quotes each name and joins them with ", ".
func (d Dialect) quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = d.Quote(d.StoredName(n))
	}
	return strings.Join(q, ", ")
}

// ReadSnapshot returns a deferred transaction whose first read, at its
// beginning, takes SQLite's shared lock, held to the end, so every read
// sees the same committed state; it never takes a write lock. (A writer
// waits, up to the lock timeout, to commit until the reader ends, as with
// any SQLite reader in rollback-journal mode.) The read at the beginning
// is where the snapshot waits for a writer that is committing, so that
// the caller can wait again while writers make progress (see
// dialects.LockWaiter). The schema does not matter.
func (Dialect) ReadSnapshot(string) dialects.ReadSnapshot {
	return dialects.ReadSnapshot{
		Begin: []string{"BEGIN DEFERRED", "SELECT 1 FROM main.sqlite_master LIMIT 1"},
		End:   []string{"ROLLBACK"},
	}
}

// IsReadOnly reports whether err is SQLITE_READONLY (any extended code):
// the file was opened read-only (mode=ro) or cannot be written.
func (Dialect) IsReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

// ExplainOpen makes SQLITE_NOTADB, a file that is not an SQLite database
// (a text file, say), wrap dialects.ErrNotDatabase.
func (Dialect) ExplainOpen(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return dialects.Wrapping(dialects.ErrNotDatabase, fmt.Errorf("the file is no SQLite database: %w", err))
	}
	return err
}

// Limit implements dialects.RowLimiter: LIMIT n.
func (Dialect) Limit(query string, n int) string { return query + " LIMIT " + strconv.Itoa(n) }
