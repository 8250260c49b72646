package mysql

import (
	"context"
	"fmt"
	"net/url"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Namespaces = Dialect{}

// Namespace returns CREATE DATABASE name in utf8mb4, and DROP DATABASE.
func (d Dialect) Namespace(_ context.Context, _ dialects.DBTX, name string) (create, drop []string, err error) {
	return []string{"CREATE DATABASE " + d.Quote(name) + " CHARACTER SET utf8mb4"}, []string{"DROP DATABASE IF EXISTS " + d.Quote(name)}, nil
}

// InNamespace returns dsn with the database name as its path.
func (Dialect) InNamespace(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql: bad DSN %s: %w", dialects.Redact(dsn), err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}
