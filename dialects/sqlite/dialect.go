package sqlite

import (
	"strings"

	"github.com/profdb/profdb/dialects"
	// The database/sql driver "sqlite".
	_ "modernc.org/sqlite"
)

// Dialect is the SQLite dialect. It has no state; the zero value is ready to
// use and is what the package registers.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

var (
	_ dialects.Dialect = (*Dialect)(nil)
	_ dialects.Binder  = (*Dialect)(nil)
)

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// Schemes returns the DSN scheme that selects SQLite: "sqlite".
func (Dialect) Schemes() []string { return []string{"sqlite"} }

// DriverName returns "sqlite", the name modernc.org/sqlite registers.
func (Dialect) DriverName() string { return "sqlite" }

// Quote quotes an identifier in double quotes, doubling any double quote
// inside.
func (Dialect) Quote(ident string) string { return dialects.QuoteWith('"', '"', ident) }

// StoredName returns the documented name unchanged: SQLite keeps the case
// of the names it creates and matches names case-insensitively, so unquoted
// upper-case queries find them.
func (Dialect) StoredName(documented string) string { return documented }

// Qualify returns "schema"."table", or "table" alone when schema is "".
// The schema is an attached database name ("main", "temp", an ATTACH
// alias).
func (d Dialect) Qualify(schema, table string) string {
	if schema == "" {
		return d.Quote(table)
	}
	return d.Quote(schema) + "." + d.Quote(table)
}

// Placeholder returns "?" for every n: statements use SQLite's anonymous
// positional parameters, bound in order.
func (Dialect) Placeholder(int) string { return "?" }

// MaxParams is SQLite's default SQLITE_MAX_VARIABLE_NUMBER (since 3.32),
// the most parameters one statement may carry.
const MaxParams = 32766

// Limits returns MaxParams parameters and no row limit of SQLite's own
// (multi-row VALUES lists are not bound by SQLITE_MAX_COMPOUND_SELECT).
func (Dialect) Limits() dialects.Limits { return dialects.Limits{MaxParams: MaxParams} }

// quoteAll quotes each name and joins them with ", ".
func (d Dialect) quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = d.Quote(d.StoredName(n))
	}
	return strings.Join(q, ", ")
}
