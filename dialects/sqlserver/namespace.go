package sqlserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Namespaces = Dialect{}

// Namespace returns CREATE DATABASE name, and DROP DATABASE when it
// exists. SQL Server refuses to drop a database in use, so the drop ends
// other sessions first; Babelfish has no ALTER DATABASE, and drops it
// anyway. Asking which of the two q reaches is the one query it runs.
func (d Dialect) Namespace(ctx context.Context, q dialects.DBTX, name string) (create, drop []string, err error) {
	bf, err := IsBabelfish(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlserver: namespace %s: %w", name, err)
	}
	exists := "IF DB_ID(N'" + strings.ReplaceAll(name, "'", "''") + "') IS NOT NULL "
	drop = []string{exists + "DROP DATABASE " + d.Quote(name)}
	if !bf {
		drop = append([]string{exists + "ALTER DATABASE " + d.Quote(name) + " SET SINGLE_USER WITH ROLLBACK IMMEDIATE"}, drop...)
	}
	return []string{"CREATE DATABASE " + d.Quote(name)}, drop, nil
}

// InNamespace returns dsn with its database parameter set to name.
func (Dialect) InNamespace(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("sqlserver: bad DSN %s: %w", dialects.Redact(dsn), err)
	}
	q := u.Query()
	q.Set("database", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
