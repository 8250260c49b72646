package postgres

import (
	"context"
	"fmt"
	"net/url"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Namespaces = Dialect{}

// Namespace returns CREATE SCHEMA name, and DROP SCHEMA … CASCADE.
func (d Dialect) Namespace(_ context.Context, _ dialects.DBTX, name string) (create, drop []string, err error) {
	return []string{"CREATE SCHEMA " + d.Quote(name)}, []string{"DROP SCHEMA IF EXISTS " + d.Quote(name) + " CASCADE"}, nil
}

// InNamespace returns dsn with search_path set to name.
func (Dialect) InNamespace(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("postgres: bad DSN %s: %w", dialects.Redact(dsn), err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
