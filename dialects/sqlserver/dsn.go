package sqlserver

import (
	"fmt"
	"strings"

	"github.com/microsoft/go-mssqldb/msdsn"

	"github.com/profdb/profdb/dialects"
)

// AppName is the application name profdb reports to the server (visible in
// sys.dm_exec_sessions) unless the DSN names one.
const AppName = "profdb"

// DriverDSN checks a profdb DSN and returns the go-mssqldb DSN for it. The
// profdb DSN is a go-mssqldb URL:
//
//	sqlserver://user:password@host:port?database=db&encrypt=true
//	sqlserver://user:password@host/instance?database=db
//
// The scheme must be sqlserver (any case) and the host must be given; the
// query parameters are go-mssqldb's. DriverDSN adds "app name=profdb"
// unless the DSN has an application name, and checks the result with
// go-mssqldb's own parser. Errors never contain the password.
func (Dialect) DriverDSN(dsn string) (string, error) {
	u, err := dialects.ParseURL(dsn)
	if err != nil {
		return "", dsnError(dsn, err)
	}
	if !strings.EqualFold(u.Scheme, Name) {
		return "", dsnError(dsn, fmt.Errorf("scheme %q, want %s://", u.Scheme, Name))
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "", dsnError(dsn, fmt.Errorf("no host; want %s://user:password@host:port?database=name", Name))
	}
	u.Scheme = Name // go-mssqldb accepts the lower-case scheme only
	q := u.Query()
	named := false
	for k := range q {
		switch strings.ToLower(k) {
		case "app name", "app", "application name":
			named = true
		}
	}
	if !named {
		q.Set("app name", AppName)
		u.RawQuery = q.Encode()
	}
	out := u.String()
	if _, err := msdsn.Parse(out); err != nil {
		return "", dsnError(dsn, err)
	}
	return out, nil
}

// dsnError returns "sqlserver: parse DSN <dsn>: <cause>" with the password
// masked in the DSN and wherever the reason quotes a DSN or connection
// string (dialects.ScrubError); the cause stays wrapped when it holds none.
// An opaque DSN (no "//"), where the password cannot be told apart, is not
// shown.
func dsnError(dsn string, cause error) error {
	shown := dialects.Redact(dsn)
	if scheme, rest, ok := strings.Cut(dsn, ":"); ok && !strings.HasPrefix(rest, "//") {
		shown = scheme + ":..."
	}
	return dialects.ScrubError(dsn, fmt.Errorf("sqlserver: parse DSN %s: %w", shown, cause))
}
