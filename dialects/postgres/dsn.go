package postgres

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// DriverDSN checks a profdb PostgreSQL DSN and returns it for lib/pq,
// which accepts URLs itself:
//
//	postgres://user:password@host:port/dbname?sslmode=disable&search_path=s
//	postgresql://...            the same
//	postgres:///dbname?host=/run/postgresql   a Unix socket
//
// Every query parameter is kept: lib/pq's own (sslmode, connect_timeout,
// ...) and server settings sent at connection start (search_path,
// application_name, ...). The scheme is lower-cased, as lib/pq requires.
// Errors never contain the password.
func (Dialect) DriverDSN(dsn string) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("postgres: DSN %s: %w", dialects.Redact(dsn), err)
	}
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || (!strings.EqualFold(scheme, "postgres") && !strings.EqualFold(scheme, "postgresql")) ||
		!strings.HasPrefix(rest, "//") {
		// Not a URL that Redact understands: name only the scheme.
		return "", fmt.Errorf(`postgres: DSN with scheme %q: want a "postgres://" or "postgresql://" URL`, scheme)
	}
	out := strings.ToLower(scheme) + ":" + rest
	u, err := dialects.ParseURL(out)
	if err != nil {
		return fail(err)
	}
	if u.Fragment != "" {
		return fail(errors.New("unexpected '#' fragment (percent-encode '#' in a password as %23)"))
	}
	if u.Path != "" && strings.Contains(strings.TrimPrefix(u.Path, "/"), "/") {
		return fail(fmt.Errorf("database name %q contains '/'", strings.TrimPrefix(u.Path, "/")))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return fail(fmt.Errorf("bad query string: %w", err))
	}
	return out, nil
}
