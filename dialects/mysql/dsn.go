package mysql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/profdb/profdb/dialects"
)

// Session settings DriverDSN gives every connection.
const (
	// SQLMode is the session sql_mode: strict for every table (a value out
	// of range or too long is an error, not clamped or cut), no zero dates,
	// division by zero an error, no silent engine substitution, and
	// backslash an ordinary character in string literals.
	SQLMode = "STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_BACKSLASH_ESCAPES"
	// Collation is the connection collation, sent in the handshake: the
	// utf8mb4 character set, binary comparison.
	Collation = "utf8mb4_bin"
)

// fixed are the driver parameters profdb sets itself; a DSN may repeat
// them only with the same value.
var fixed = map[string]string{
	"charset":           "utf8mb4",
	"collation":         Collation,
	"parseTime":         "false",
	"interpolateParams": "false",
	"multiStatements":   "false",
	"allowAllFiles":     "false",
	"sql_mode":          "'" + SQLMode + "'",
}

// DriverDSN turns a profdb MySQL DSN into a go-sql-driver/mysql DSN; see
// Config.
func (Dialect) DriverDSN(dsn string) (string, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return "", err
	}
	return cfg.FormatDSN(), nil
}

// Config parses a profdb MySQL DSN into the driver's configuration:
//
//	mysql://user:password@host:port/database?param=value&...
//	mariadb://...                                           the same
//	mysql://user@unix(/run/mysqld/mysqld.sock)/database   a Unix socket
//
// The port defaults to 3306, the host to 127.0.0.1; user and password are
// percent-decoded. Query parameters are the driver's own (tls, timeout,
// readTimeout, maxAllowedPacket, ...) or, for any other name, server
// variables the driver sets at connect time (SET name = value; quote
// string values: time_zone='%2B00:00').
//
// Always set, and refused with another value: utf8mb4 with the collation
// utf8mb4_bin, the strict SQLMode, parseTime=false, interpolateParams=false
// (values travel as parameters of server-side prepared statements, never
// spliced into SQL), multiStatements=false and allowAllFiles=false.
// maxAllowedPacket is left to the server (read at connect time) unless the
// DSN sets it. Errors never contain the password.
func Config(dsn string) (*mysql.Config, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || !(strings.EqualFold(scheme, "mysql") || strings.EqualFold(scheme, "mariadb")) {
		// Not a URL that Redact understands: name only the scheme.
		s, _, _ := strings.Cut(dsn, ":")
		return nil, fmt.Errorf(`mysql: DSN with scheme %q: want a "mysql://" (or "mariadb://") URL`, s)
	}
	fail := func(err error) (*mysql.Config, error) {
		return nil, fmt.Errorf("mysql: DSN %s: %w", dialects.Redact(dsn), err)
	}

	// mysql://user@unix(/path/to.sock)/db: take the socket path out before
	// URL parsing, which would stop the host at its first '/'.
	socket := ""
	if i := strings.Index(rest, "unix("); i >= 0 && (i == 0 || rest[i-1] == '@') {
		end := strings.IndexByte(rest[i:], ')')
		if end < 0 {
			return fail(errors.New("unix( without a closing parenthesis"))
		}
		socket = rest[i+len("unix(") : i+end]
		if socket == "" {
			return fail(errors.New("unix() names no socket"))
		}
		rest = rest[:i] + "localhost" + rest[i+end+1:]
	}
	u, err := dialects.ParseURL("mysql://" + rest)
	if err != nil {
		return fail(err)
	}
	if u.Fragment != "" {
		return fail(errors.New("unexpected '#' fragment (percent-encode '#' in a password as %23)"))
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	if strings.Contains(dbName, "/") {
		return fail(fmt.Errorf("database name %q contains '/'", dbName))
	}
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fail(fmt.Errorf("bad query string: %w", err))
	}

	// The driver parses its own parameters; hand them over re-escaped.
	keys := make([]string, 0, len(query))
	for k := range query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var params []string
	userSetPacket := false
	for _, k := range keys {
		vals := query[k]
		if len(vals) > 1 {
			return fail(fmt.Errorf("parameter %s given %d times", k, len(vals)))
		}
		v := vals[0]
		if want, ok := fixed[k]; ok {
			if !sameSetting(v, want) {
				return fail(fmt.Errorf("parameter %s=%s conflicts with profdb's %s=%s", k, v, k, want))
			}
			continue
		}
		if k == "maxAllowedPacket" {
			userSetPacket = true
		}
		params = append(params, k+"="+url.QueryEscape(v))
	}
	cfg := mysql.NewConfig()
	if len(params) > 0 {
		if cfg, err = mysql.ParseDSN("/?" + strings.Join(params, "&")); err != nil {
			return fail(err)
		}
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	if socket != "" {
		cfg.Net, cfg.Addr = "unix", socket
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "3306"
		} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fail(fmt.Errorf("bad port %q", port))
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	cfg.DBName = dbName
	cfg.Collation = Collation
	cfg.ParseTime = false
	cfg.InterpolateParams = false
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	if !userSetPacket {
		cfg.MaxAllowedPacket = 0 // ask the server
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["sql_mode"] = fixed["sql_mode"]

	// The driver reads the DSN string again: make sure it says the same.
	out := cfg.FormatDSN()
	back, err := mysql.ParseDSN(out)
	if err != nil {
		return fail(err)
	}
	switch {
	case back.User != cfg.User:
		return fail(errors.New("the driver's DSN format cannot carry this user name (it contains ':' or '@')"))
	case back.Passwd != cfg.Passwd:
		return fail(errors.New("the driver's DSN format cannot carry this password"))
	case back.Addr != cfg.Addr || back.Net != cfg.Net:
		return fail(fmt.Errorf("the driver's DSN format cannot carry the address %q", cfg.Addr))
	case back.DBName != cfg.DBName:
		return fail(fmt.Errorf("the driver's DSN format cannot carry the database name %q", cfg.DBName))
	}
	return back, nil
}

// sameSetting reports whether a DSN value says the same as profdb's:
// booleans in any spelling the driver accepts, names case-insensitively.
func sameSetting(v, want string) bool {
	if b, err := strconv.ParseBool(v); err == nil {
		w, err := strconv.ParseBool(want)
		return err == nil && b == w
	}
	return strings.EqualFold(strings.Trim(v, "'\""), strings.Trim(want, "'\""))
}
