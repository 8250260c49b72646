package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/resultsettest"
)

// secret is the distinctive password the DSNs of these tests carry.
const secret = "S3cr3t-p4ss"

// withPassword returns dsn with user (or its own user) and the secret
// password.
func withPassword(t *testing.T, dsn, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if user == "" {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, secret)
	return u.String()
}

func randomName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// secretDSNs returns working DSNs that carry the secret: PostgreSQL (its
// trust authentication takes any password) and MySQL (a user created with
// the password, dropped afterwards), each on a fresh namespace.
func secretDSNs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	out["postgres"] = withPassword(t, dbtest.Fresh(t, "postgres"), "")
	my := dbtest.Fresh(t, "mysql")
	u, err := url.Parse(my)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	admin := dbtest.Open(t, dbtest.DSN(t, "mysql"))
	user := randomName("profdb_s_")
	for _, st := range []string{
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + secret + "'",
		"GRANT ALL PRIVILEGES ON " + dbName + ".* TO '" + user + "'@'%'",
	} {
		if _, err := admin.Exec(st); err != nil {
			t.Fatalf("%s: %v", strings.ReplaceAll(st, secret, "xxxxx"), err)
		}
	}
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	out["mysql"] = withPassword(t, my, user)
	return out
}

// checkNoSecret runs profdb and fails the test when the password shows in
// standard output or standard error; wantOK says whether it should succeed.
func checkNoSecret(t *testing.T, wantOK bool, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
		if strings.Contains(s, secret) {
			t.Errorf("profdb %s: the password shows on %s:\n%s", args[0], name, s)
		}
	}
	if wantOK && code != 0 {
		t.Errorf("profdb %s: exit %d\n%s", args[0], code, strings.ReplaceAll(errOut, secret, "xxxxx"))
	}
	if !wantOK && code == 0 {
		t.Errorf("profdb %s succeeded where it should fail", args[0])
	}
	return out, errOut
}

// TestSecretsNeverShown runs every command that takes a DSN with DSNs that
// carry a distinctive password, on working servers and on failing ones
// (wrong port, database or host, malformed DSNs, bad input), and checks
// that the password appears in no output, message or error.
func TestSecretsNeverShown(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in.json"), resultsettest.Full(t, "function-trace", "secret test", "mysql", 3, false))
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"profiler": "function-trace", "tables": {"FUNCTION_TRACE_PROFILER_THREADS": [{"ID": "x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	lite := "sqlite:" + filepath.Join(dir, "lite.db")
	mustRun(t, "export", "--db", lite, "-q", in)

	t.Run("working servers", func(t *testing.T) {
		for dialect, dsn := range secretDSNs(t) {
			t.Run(dialect, func(t *testing.T) {
				checkNoSecret(t, true, "export", "--db", dsn, "-q", in)
				checkNoSecret(t, true, "export", "--db", dsn, "--json", "--bulk", "off", in)
				checkNoSecret(t, true, "list", "--db", dsn)
				checkNoSecret(t, true, "list", "--db", dsn, "--json")
				checkNoSecret(t, true, "verify", "--db", dsn)
				checkNoSecret(t, false, "verify", "--db", dsn, "--inst", "99")
				checkNoSecret(t, true, "delete", "--db", dsn, "--inst", "1")
				checkNoSecret(t, false, "delete", "--db", dsn, "--inst", "1")
				checkNoSecret(t, true, "copy", "--from", lite, "--to", dsn)
				checkNoSecret(t, true, "copy", "--from", dsn, "--to", lite, "--inst", "2")
				checkNoSecret(t, true, "copy", "--from", dsn, "--to", lite, "--json")
				// Input errors and refused options with a working DSN.
				checkNoSecret(t, false, "export", "--db", dsn, bad)
				checkNoSecret(t, false, "export", "--db", dsn, filepath.Join(dir, "missing.json"))
				checkNoSecret(t, false, "export", "--db", dsn, "--schema", "no_such_schema", in)
				checkNoSecret(t, false, "list", "--db", dsn, "--schema", "no_such_schema") // no such schema: an error naming it
				checkNoSecret(t, false, "export", "--db", dsn, "--bulk", "sideways", in)
				checkNoSecret(t, false, "export", "--db", dsn, "--sql-out", filepath.Join(dir, "x.sql"), "--dialect", "sqlite", in)
				checkNoSecret(t, false, "copy", "--from", dsn, "--to", lite, "--inst", "999")
				checkNoSecret(t, false, "export", "--db", dsn)
			})
		}
	})

	pgDB := "test"
	if u, err := url.Parse(os.Getenv(dbtest.EnvVar("postgres"))); err == nil && u.Path != "" {
		pgDB = strings.TrimPrefix(u.Path, "/")
	}
	failing := map[string]string{
		"postgres wrong port":     "postgres://postgres:" + secret + "@127.0.0.1:1/" + pgDB + "?sslmode=disable&connect_timeout=5",
		"postgres wrong database": "postgres://postgres:" + secret + "@127.0.0.1:5432/no_such_db_x?sslmode=disable",
		"postgres wrong host":     "postgres://postgres:" + secret + "@no-such-host.invalid:5432/test?sslmode=disable&connect_timeout=5",
		"postgres bad port":       "postgres://postgres:" + secret + "@127.0.0.1:54x32/test",
		"postgres bad escape":     "postgres://postgres:" + secret + "%zz@127.0.0.1:5432/test",
		"postgres slash":          "postgres://postgres:" + secret + "/x@127.0.0.1:5432/test",
		"postgres opaque":         "postgres:postgres:" + secret + "@127.0.0.1/test",
		"postgres bad query":      "postgres://postgres:" + secret + "@127.0.0.1:5432/test?sslmode=%zz",
		"postgres bad sslmode":    "postgres://postgres:" + secret + "@127.0.0.1:5432/test?sslmode=sometimes",
		"postgres fragment":       "postgres://postgres:" + secret + "@127.0.0.1:5432/test#frag",
		"postgres ipv6":           "postgres://postgres:" + secret + "@[::1:5432/test",
		"postgres query password": "postgres://127.0.0.1:1/test?user=postgres&password=" + secret + "&connect_timeout=5",
		"mysql wrong port":        "mysql://root:" + secret + "@127.0.0.1:1/test?timeout=5s",
		"mysql wrong password":    "mysql://root:" + secret + "@127.0.0.1:3306/test",
		"mysql wrong database":    "mysql://root:" + secret + "@127.0.0.1:3306/no_such_db_x",
		"mysql wrong host":        "mysql://root:" + secret + "@no-such-host.invalid:3306/test?timeout=5s",
		"mysql bad port":          "mysql://root:" + secret + "@127.0.0.1:33o6/test",
		"mysql bad escape":        "mysql://root:" + secret + "%zz@127.0.0.1:3306/test",
		"mysql slash":             "mysql://root:" + secret + "/x@127.0.0.1:3306/test",
		"mysql opaque":            "mysql:root:" + secret + "@127.0.0.1/test",
		"mysql bad parameter":     "mysql://root:" + secret + "@127.0.0.1:3306/test?timeout=soon",
		"mysql conflicting mode":  "mysql://root:" + secret + "@127.0.0.1:3306/test?sql_mode=ANSI",
		"mysql fragment":          "mysql://root:" + secret + "@127.0.0.1:3306/test#x",
		"mysql unix socket":       "mysql://root:" + secret + "@unix(/nonexistent/mysqld.sock)/test",
		"sqlserver wrong port":    "sqlserver://sa:" + secret + "@127.0.0.1:1?database=test&dial+timeout=5",
		"sqlserver wrong host":    "sqlserver://sa:" + secret + "@no-such-host.invalid:1433?database=test&dial+timeout=5",
		"sqlserver bad escape":    "sqlserver://sa:" + secret + "%zz@127.0.0.1:1433?database=test",
		"sqlserver bad option":    "sqlserver://sa:" + secret + "@127.0.0.1:1433?database=test&encrypt=bogus",
		"sqlserver no host":       "sqlserver://sa:" + secret + "@?database=test",
		"sqlserver query pwd":     "sqlserver://127.0.0.1:1?user+id=sa&password=" + secret + "&dial+timeout=5",
		"sqlite with user info":   "sqlite://u:" + secret + "@/nonexistent/dir/x.db",
		"unknown scheme":          "oracle://scott:" + secret + "@127.0.0.1:1521/orcl",
		"no scheme":               "scott:" + secret + "@127.0.0.1/orcl",
		"no scheme url":           "//scott:" + secret + "@127.0.0.1/orcl",
	}
	t.Run("failing DSNs", func(t *testing.T) {
		for name, dsn := range failing {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				checkNoSecret(t, false, "export", "--db", dsn, "-q", in)
				checkNoSecret(t, false, "list", "--db", dsn)
				checkNoSecret(t, false, "verify", "--db", dsn)
				checkNoSecret(t, false, "delete", "--db", dsn, "--inst", "1")
				checkNoSecret(t, false, "copy", "--from", dsn, "--to", lite)
				checkNoSecret(t, false, "copy", "--from", lite, "--to", dsn)
			})
		}
	})
}

// TestPasswordMaskedWhereItStands fails to connect, refused on a closed
// port and refused a login by MariaDB and SQL Server, with passwords that
// are also words of the message: the scheme ("postgres"), the user
// ("root", "profdb"), the port ("1"), the driver's words ("tcp",
// "connect", "refused", "Login"), a parameter's value ("disable"). The
// password is masked in the DSN, and the rest of the message stays word
// for word as the driver wrote it: profdb printed
// "xxxxx://postgres:xxxxx@", "127.0.0.1:xxxxx", "dial xxxxx" and
// "user 'xxxxx'", which garbled the message and told the password.
func TestPasswordMaskedWhereItStands(t *testing.T) {
	if c, err := net.Dial("tcp", "127.0.0.1:1"); err == nil {
		c.Close()
		t.Fatal("something listens on 127.0.0.1:1, the closed port of this test")
	}
	refused := []struct{ dsn, want string }{
		{"postgres://postgres:%s@127.0.0.1:1/db?sslmode=disable&connect_timeout=5",
			"open postgres://postgres:%s@127.0.0.1:1/db?sslmode=disable&connect_timeout=5: dial tcp 127.0.0.1:1: connect: connection refused\n"},
		{"mysql://root:%s@127.0.0.1:1/db?timeout=5s",
			"open mysql://root:%s@127.0.0.1:1/db?timeout=5s: dial tcp 127.0.0.1:1: connect: connection refused\n"},
		{"sqlserver://sa:%s@127.0.0.1:1?database=db&dial+timeout=5",
			"open sqlserver://sa:%s@127.0.0.1:1?database=db&dial+timeout=5: unable to open tcp connection with host '127.0.0.1:1': dial tcp 127.0.0.1:1: connect: connection refused\n"},
	}
	for _, c := range refused {
		for _, pw := range []string{"postgres", "mysql", "sqlserver", "root", "sa", "1", "tcp", "connect", "refused", "disable", "db", "e"} {
			_, errOut, code := runCLI(t, "list", "--db", fmt.Sprintf(c.dsn, pw))
			if want := "profdb: list: " + fmt.Sprintf(c.want, "xxxxx"); code != 2 || errOut != want {
				t.Errorf("profdb list --db %s: exit %d\n%s\nwant exit 2 and\n%s", fmt.Sprintf(c.dsn, "xxxxx"), code, errOut, want)
			}
		}
	}

	// Logins the servers refuse: root has no password on the test
	// server, and profdb's password on SQL Server is not these.
	type login struct {
		dialect, user string
		want          func(dsn string) string
	}
	for _, l := range []login{
		{"mysql", "root", func(dsn string) string {
			return "open " + dsn + ": Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)\n"
		}},
		{"sqlserver", "profdb", func(dsn string) string {
			return "open " + dsn + ": mssql: Login failed for user \"profdb\" (18456)\n"
		}},
	} {
		t.Run(l.dialect, func(t *testing.T) {
			u, err := url.Parse(dbtest.DSN(t, l.dialect))
			if err != nil {
				t.Fatal(err)
			}
			if u.Hostname() != "127.0.0.1" {
				t.Skipf("the %s server is at %s; the message this test expects names 127.0.0.1", l.dialect, u.Hostname())
			}
			for _, pw := range []string{l.user, l.dialect, "1", "tcp", "Login", "failed", "using", "YES"} {
				u.User = url.UserPassword(l.user, pw)
				dsn := u.String()
				u.User = url.UserPassword(l.user, "xxxxx")
				_, errOut, code := runCLI(t, "list", "--db", dsn)
				if want := "profdb: list: " + l.want(u.String()); code != 2 || errOut != want {
					t.Errorf("profdb list --db %s: exit %d\n%s\nwant exit 2 and\n%s", u.String(), code, errOut, want)
				}
			}
		})
	}
}
