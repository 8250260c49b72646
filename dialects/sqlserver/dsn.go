package sqlserver

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/microsoft/go-mssqldb/msdsn"

	"github.com/profdb/profdb/dialects"
)

// AppName is the application name profdb reports to the server (visible in
// sys.dm_exec_sessions) unless the DSN names one.
const AppName = "profdb"

// errBadURL replaces the cause of a URL syntax error in a DSN with a
// password: url.Parse quotes the offending part (a bad %-escape, a "port"
// that is the rest of a password with a '/' in it), which may be part of
// the password.
var errBadURL = errors.New("not a valid URL (characters such as @ : / ? # % in a password must be percent-encoded)")

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
	u, err := url.Parse(dsn)
	if err != nil {
		// A *url.Error repeats the whole DSN, password included; keep only
		// its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if len(secrets(dsn)) > 0 {
			err = errBadURL
		}
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
// masked in the DSN and, should the cause quote it, in the whole text; the
// cause stays wrapped when it does not. An opaque DSN (no "//"), where the
// password cannot be told apart, is not shown.
func dsnError(dsn string, cause error) error {
	shown := dialects.Redact(dsn)
	if scheme, rest, ok := strings.Cut(dsn, ":"); ok && !strings.HasPrefix(rest, "//") {
		shown = scheme + ":..."
	}
	err := fmt.Errorf("sqlserver: parse DSN %s: %w", shown, cause)
	msg := err.Error()
	masked := msg
	for _, s := range secrets(dsn) {
		masked = strings.ReplaceAll(masked, s, "xxxxx")
	}
	if masked != msg {
		return errors.New(masked)
	}
	return err
}

// secrets returns the passwords in dsn, raw and decoded: the one in the
// user information and any password or pwd query parameter. It works on
// DSNs that url.Parse rejects.
func secrets(dsn string) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
			if d, err := url.PathUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
		}
	}
	if _, rest, ok := strings.Cut(dsn, "://"); ok {
		// Up to the last '@' before the query: a password may hold an
		// unescaped '/' that url.Parse would take for the path.
		rest, _, _ = strings.Cut(rest, "?")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
			}
		}
	}
	if _, query, ok := strings.Cut(dsn, "?"); ok {
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "password", "pwd":
				add(v)
				if d, err := url.QueryUnescape(v); err == nil {
					add(d)
				}
			}
		}
	}
	return out
}
