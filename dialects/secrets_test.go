package dialects_test

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/lib/pq"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/mysql"
	"github.com/profdb/profdb/dialects/postgres"
	"github.com/profdb/profdb/dialects/sqlserver"
)

func TestSecrets(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want []string
	}{
		{"postgres://u:p4ss@h/db", []string{"p4ss"}},
		{"postgres://u:S3cr3t/x@h:5432/db", []string{"S3cr3t/x"}},
		{"postgres://u:S3?x#y@h:5432/db?sslmode=disable", []string{"S3?x#y"}},
		{"postgres://u:p@ss@h/db?application_name=me@example.com", []string{"p@ss"}},
		{"mysql://u:a%40b@h/db", []string{"a%40b", "a@b"}},
		{"sqlserver://h?database=d&password=pw", []string{"pw"}},
		{"sqlserver://u:x?y@h?PWD=a%26b", []string{"x?y", "a%26b", "a&b"}},
		{"postgres:u:pw@h/db", []string{"pw"}},
		{"//u:pw@h/db", []string{"pw"}},
		{"sqlite:/tmp/x.db", nil},
		{"postgres://u@h/db", nil},
		{"postgres://h/db?application_name=u:x@y", nil},
	} {
		if got := dialects.Secrets(c.dsn); !slices.Equal(got, c.want) {
			t.Errorf("Secrets(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}

func TestURLErrorNeverQuotesThePassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:S3cr3t/x@h:5432/db", // url.Parse: invalid port ":S3cr3t" after host
		"mysql://u:S3cr3t%zz@h/db",        // invalid escape
		"postgres://u:S3cr3t?x@h:5432/db", // invalid port ":S3cr3t" after host
	} {
		_, err := url.Parse(dsn)
		if err == nil {
			t.Errorf("url.Parse(%q) accepts it", dsn)
			continue
		}
		got := dialects.URLError(dsn, err)
		if strings.Contains(got.Error(), "S3cr3t") || !errors.Is(got, dialects.ErrBadURL) {
			t.Errorf("URLError(%q) = %v", dsn, got)
		}
		// A *url.Error that reaches ScrubError some other way is shown
		// the same way.
		if got := dialects.ScrubError(dsn, fmt.Errorf("open: %w", err)).Error(); strings.Contains(got, "S3cr3t") || !strings.Contains(got, dialects.ErrBadURL.Error()) {
			t.Errorf("ScrubError(%q) = %v", dsn, got)
		}
	}
	// Without a password the parser's own reason is kept.
	dsn := "postgres://u@h:bad/db"
	_, err := url.Parse(dsn)
	if got := dialects.URLError(dsn, err); !strings.Contains(got.Error(), "invalid port") {
		t.Errorf("URLError without a password = %v", got)
	}
}

// TestDriverDSNNeverQuotesThePassword gives each dialect that takes a
// password DSNs whose password holds a character that url.Parse reads as
// the end of the user information: the dialect refuses them without
// quoting any part of the password as a host, port or database name.
func TestDriverDSNNeverQuotesThePassword(t *testing.T) {
	for _, d := range []dialects.Dialect{postgres.Dialect{}, mysql.Dialect{}, sqlserver.Dialect{}} {
		scheme := d.Facts().Schemes[0]
		for _, pw := range []string{"12/Qz9", "Pq7?Qz9", "Pq7#Qz9", "12/Qz9@x", "Pq7 Qz9", "Pq7%Qz9"} {
			dsn := scheme + "://u:" + pw + "@127.0.0.1:1/db"
			_, err := d.DriverDSN(dsn)
			if err == nil {
				t.Errorf("%s: DriverDSN(%s) accepted", d.Name(), dialects.Redact(dsn))
				continue
			}
			if msg := err.Error(); strings.Contains(msg, "Qz9") || strings.Contains(msg, "Pq7") {
				t.Errorf("%s: DriverDSN with password %q: the error shows it: %s", d.Name(), pw, msg)
			} else if !strings.Contains(msg, scheme+"://u:xxxxx@127.0.0.1:1/db") {
				t.Errorf("%s: DriverDSN with password %q: the error does not show the DSN with its password masked: %s", d.Name(), pw, msg)
			}
		}
	}
}

// passwords are the passwords of TestScrubTextMasksThePasswordInEveryForm:
// words that stand elsewhere in the messages (scheme, user, port, the
// driver's words, a parameter's value), every character that ends a part of
// a DSN or connection string, and text beyond ASCII.
var passwords = []string{
	"postgres", "mysql", "1", "tcp", "connect", "refused", "disable", "root", "sa", "db", "127.0.0.1",
	"p@ss", "a:b", "s/x", "50%", "a?b", "a&b", "a=b", "a;b", "{br}ace}", `q"uote`, "it's", `back\slash`,
	"with space", " lead", "pässwörd", "密码🔑", "#hash", "a@tcp(x)/y", "password=pw", "xx",
}

// dsnForm is a way a DSN or connection string carries a password, as a
// message shows it: text returns the message for the password pw, or false
// when the form cannot carry pw, and dsn the profdb DSN it comes from.
type dsnForm struct {
	name string
	dsn  func(pw string) string
	text func(t *testing.T, pw string) (string, bool)
}

// words is free text of the messages: the words of the passwords, which
// stay as they are.
const words = `: dial tcp 127.0.0.1:1: connect: connection refused (user "root", user 'sa'@'127.0.0.1', sslmode=disable, database db, scheme postgres, mysql, password: YES, 密码🔑)`

func urlForm(scheme, user string) dsnForm {
	dsn := func(pw string) string {
		return scheme + "://" + url.UserPassword(user, pw).String() + "@127.0.0.1:1/db?sslmode=disable&timeout=1"
	}
	return dsnForm{scheme + " URL", dsn, func(_ *testing.T, pw string) (string, bool) {
		return "open " + dsn(pw) + words, true
	}}
}

func forms() []dsnForm {
	pgURL := func(pw string) string { return urlForm("postgres", "postgres").dsn(pw) }
	myURL := func(pw string) string { return urlForm("mysql", "root").dsn(pw) }
	msURL := func(pw string) string {
		return "sqlserver://sa@127.0.0.1:1?database=db&password=" + url.QueryEscape(pw)
	}
	return []dsnForm{
		urlForm("postgres", "postgres"),
		urlForm("postgresql", "postgres"),
		urlForm("POSTGRES", "postgres"),
		urlForm("mysql", "root"),
		urlForm("mariadb", "root"),
		urlForm("sqlserver", "sa"),
		{"URL, password as typed", func(pw string) string { return "mysql://root:" + pw + "@127.0.0.1:1/db" },
			func(_ *testing.T, pw string) (string, bool) {
				return "mysql: DSN mysql://root:" + pw + "@127.0.0.1:1/db" + words, true
			}},
		{"URL, quoted by Go as a *url.Error quotes it", myURL, func(_ *testing.T, pw string) (string, bool) {
			return fmt.Sprintf("parse %q", myURL(pw)) + words, true
		}},
		{"URL query password", msURL, func(_ *testing.T, pw string) (string, bool) {
			return "sqlserver: parse DSN " + msURL(pw) + words, true
		}},
		{"URL query PWD", func(pw string) string {
			return "sqlserver://127.0.0.1:1?user+id=sa&PWD=" + url.QueryEscape(pw) + "&database=db"
		},
			func(_ *testing.T, pw string) (string, bool) {
				return "sqlserver://127.0.0.1:1?user+id=sa&PWD=" + url.QueryEscape(pw) + "&database=db" + words, true
			}},
		{"go-sql-driver/mysql DSN", myURL, func(t *testing.T, pw string) (string, bool) {
			cfg := gomysql.NewConfig()
			cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", pw, "tcp", "127.0.0.1:1", "db"
			return "driver DSN " + cfg.FormatDSN() + words, true
		}},
		{"lib/pq keyword DSN", pgURL, func(t *testing.T, pw string) (string, bool) {
			kv, err := pq.ParseURL(pgURL(pw)) // what lib/pq makes of a URL
			if err != nil {
				t.Fatal(err)
			}
			return "pq: " + kv + words, true
		}},
		{"keyword DSN, unquoted", pgURL, func(_ *testing.T, pw string) (string, bool) {
			if strings.ContainsAny(pw, ` '\`) {
				return "", false // libpq needs quotes or escapes
			}
			return "host=127.0.0.1 port=1 user=postgres password=" + pw + " dbname=db sslmode=disable" + words, true
		}},
		{"ADO, braced", msURL, func(_ *testing.T, pw string) (string, bool) {
			return "server=127.0.0.1,1;user id=sa;Password={" + strings.ReplaceAll(pw, "}", "}}") + "};database=db" + words, true
		}},
		{"ADO, double-quoted, PWD", msURL, func(_ *testing.T, pw string) (string, bool) {
			return `server=127.0.0.1,1;user id=sa;PWD = "` + strings.ReplaceAll(pw, `"`, `""`) + `";database=db` + words, true
		}},
		{"ADO, unquoted, pwd", msURL, func(_ *testing.T, pw string) (string, bool) {
			if strings.ContainsAny(pw, `;{"'`) || strings.TrimSpace(pw) != pw {
				return "", false // a connection string needs quotes
			}
			return "server=127.0.0.1,1;user id=sa;pwd=" + pw + ";database=db" + words, true
		}},
	}
}

// TestScrubTextMasksThePasswordInEveryForm puts each password through
// every form a DSN or connection string takes in a message: the password
// is replaced where it stands there and nowhere else, so that the scheme,
// user, host, port, database and the rest of the message are as they were,
// word for word. Redact masks the DSN itself the same way. With the
// password "postgres", "1" or "tcp", profdb printed
// "xxxxx://postgres:xxxxx@", "127.0.0.1:xxxxx" or "dial xxxxx".
func TestScrubTextMasksThePasswordInEveryForm(t *testing.T) {
	for _, f := range forms() {
		for _, pw := range passwords {
			msg, ok := f.text(t, pw)
			if !ok {
				continue
			}
			want, _ := f.text(t, "xxxxx")
			if got := dialects.ScrubText(f.dsn(pw), msg); got != want {
				t.Errorf("%s, password %q:\nmessage %s\n    got %s\n   want %s", f.name, pw, msg, got, want)
			}
			if got, want := dialects.Redact(f.dsn(pw)), f.dsn("xxxxx"); got != want {
				t.Errorf("%s, password %q: Redact(%s) = %s, want %s", f.name, pw, f.dsn(pw), got, want)
			}
		}
	}
}

// TestScrubTextMasksOtherDSNs: a DSN in a message that is not the one
// ScrubText is given has its password masked as far as its syntax tells.
func TestScrubTextMasksOtherDSNs(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"copy from postgres://u:a@b@h:5432/db to sqlite:x.db", "copy from postgres://u:xxxxx@h:5432/db to sqlite:x.db"},
		{"open 'mysql://root:pw@127.0.0.1:3306/db'", "open 'mysql://root:xxxxx@127.0.0.1:3306/db'"},
		{"dsn root:p@ss@tcp(127.0.0.1:3306)/db?timeout=5s", "dsn root:xxxxx@tcp(127.0.0.1:3306)/db?timeout=5s"},
		{"dsn root:pw@/db", "dsn root:xxxxx@/db"},
		{`password='it\'s' host=h`, `password='xxxxx' host=h`},
		{`password=a\ b host=h`, `password=xxxxx host=h`},
		{"Server=h;PASSWORD={a;b}}c};Database=d", "Server=h;PASSWORD={xxxxx};Database=d"},
		{`Server=h;Pwd="a;""b";Database=d`, `Server=h;Pwd="xxxxx";Database=d`},
		{"sqlserver://h?user+id=sa&pass=x&database=d", "sqlserver://h?user+id=sa&pass=xxxxx&database=d"},
		{"password='unterminated", "password='xxxxx"},
		// Not a DSN's password: left alone.
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?sslmode=disable"},
		{"Access denied for user 'root'@'127.0.0.1' (using password: YES)", "Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
		{"pq: password authentication failed for user \"u\"", "pq: password authentication failed for user \"u\""},
		{"sqlite:///tmp/a:b@c/x.db and file:///x", "sqlite:///tmp/a:b@c/x.db and file:///x"},
		{"bypass=1 db_password=2 passwords=3", "bypass=1 db_password=2 passwords=3"},
		{"http://example.com/a@b", "http://example.com/a@b"},
	} {
		if got := dialects.ScrubText("sqlite:x.db", c.msg); got != c.want {
			t.Errorf("ScrubText(%q)\n = %q\nwant %q", c.msg, got, c.want)
		}
	}
}

// TestScrubTextLeavesFreeText: the text of a password outside a DSN is left
// as it is, even as a word of its own: masking it there tells the password
// by where xxxxx stands ("127.0.0.1:xxxxx" with the password "1").
func TestScrubTextLeavesFreeText(t *testing.T) {
	for _, c := range []struct{ dsn, msg string }{
		{"postgres://u:1@127.0.0.1:1/db", "dial tcp 127.0.0.1:1: connect: connection refused"},
		{"postgres://postgres:postgres@h/db", "pq: database \"postgres\" does not exist"},
		{"mysql://root:root@h/db", "Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
		{"mysql://root:S3cr3t@h/db?pwd=0ther", "login failed for S3cr3t and 0ther"},
		{"sqlserver://u:Olympus@h?timezone=Olympus", "invalid timezone 'Olympus': unknown time zone Olympus"},
		{"postgres://u:conn@h/db", "connection refused"},
		{"postgres://u:e@h/db", "pq: password authentication failed for user \"u\""},
	} {
		if got := dialects.ScrubText(c.dsn, c.msg); got != c.msg {
			t.Errorf("ScrubText(%s, %q) = %q, want it unchanged", dialects.Redact(c.dsn), c.msg, got)
		}
	}
	plain := errors.New("no secret")
	if dialects.ScrubError("mysql://root:S3cr3t@h/db", plain) != plain {
		t.Error("ScrubError changed an error without secrets")
	}
	// A value of another setting that is the password's text is not the
	// password: masking it would tell the password.
	if got := dialects.Redact("sqlserver://u:Olympus@h?timezone=Olympus"); got != "sqlserver://u:xxxxx@h?timezone=Olympus" {
		t.Errorf("Redact with a value equal to the password = %q", got)
	}
}

func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:S3cr3t@h/db":                 "postgres://u:xxxxx@h/db",
		"postgres:u:S3cr3t@h/db":                   "postgres:u:xxxxx@h/db",
		"sqlserver://h?password=S3cr3t":            "sqlserver://h?password=xxxxx",
		"postgres://u:S3cr3t/x@h:5432/db":          "postgres://u:xxxxx@h:5432/db",
		"postgres://u:S3?x#y@h:5432/db?b=1&a=2":    "postgres://u:xxxxx@h:5432/db?b=1&a=2",
		"//scott:S3cr3t@127.0.0.1/orcl":            "//scott:xxxxx@127.0.0.1/orcl",
		"mysql://us%65r:pw@unix(/run/my.sock)/db":  "mysql://us%65r:xxxxx@unix(/run/my.sock)/db",
		"postgres://u@h/db?application_name=a@b.c": "postgres://u@h/db?application_name=a@b.c",
		"sqlite:/tmp/pass=1/x.db":                  "sqlite:/tmp/pass=1/x.db",
	} {
		if got := dialects.Redact(dsn); got != want {
			t.Errorf("Redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}
