package dialects_test

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
)

func TestSecrets(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want []string
	}{
		{"postgres://u:p4ss@h/db", []string{"p4ss"}},
		{"postgres://u:S3cr3t/x@h:5432/db", []string{"S3cr3t/x"}},
		{"mysql://u:a%40b@h/db", []string{"a%40b", "a@b"}},
		{"sqlserver://h?database=d&password=pw", []string{"pw"}},
		{"postgres:u:pw@h/db", []string{"pw"}},
		{"sqlite:/tmp/x.db", nil},
		{"postgres://u@h/db", nil},
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
		"postgres://u:S3cr3t@h:99999999999999999999/db",
	} {
		_, err := url.Parse(dsn)
		if err == nil {
			continue
		}
		got := dialects.URLError(dsn, err)
		if strings.Contains(got.Error(), "S3cr3t") || !errors.Is(got, dialects.ErrBadURL) {
			t.Errorf("URLError(%q) = %v", dsn, got)
		}
	}
	// Without a password the parser's own reason is kept.
	dsn := "postgres://u@h:bad/db"
	_, err := url.Parse(dsn)
	if got := dialects.URLError(dsn, err); !strings.Contains(got.Error(), "invalid port") {
		t.Errorf("URLError without a password = %v", got)
	}
}

func TestScrubErrorAndRedact(t *testing.T) {
	dsn := "mysql://root:S3cr3t@h/db?pwd=0ther"
	err := dialects.ScrubError(dsn, errors.New("login failed for S3cr3t and 0ther"))
	if err.Error() != "login failed for xxxxx and xxxxx" {
		t.Errorf("ScrubError = %v", err)
	}
	// Inside other text the password's text is left alone.
	if got := dialects.ScrubError(dsn, errors.New("echo s3CR3T: S3cr3tS3cr3t")).Error(); got != "echo s3CR3T: S3cr3tS3cr3t" {
		t.Errorf("ScrubError of text that only holds the password = %q", got)
	}
	plain := errors.New("no secret")
	if dialects.ScrubError(dsn, plain) != plain {
		t.Error("ScrubError changed an error without secrets")
	}
	for dsn, want := range map[string]string{
		"postgres://u:S3cr3t@h/db":        "postgres://u:xxxxx@h/db",
		"postgres:u:S3cr3t@h/db":          "postgres:u:xxxxx@h/db",
		"sqlserver://h?password=S3cr3t":   "sqlserver://h?password=xxxxx",
		"postgres://u:S3cr3t/x@h:5432/db": "postgres://u:xxxxx@h:5432/db",
	} {
		if got := dialects.Redact(dsn); got != want {
			t.Errorf("Redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestScrubTextMasksOnlyThePassword checks that a password is masked where
// it stands as the password or as a value of its own, and nowhere else: with
// the password "e", masking every "e" made messages unreadable and told the
// password to whoever read them.
func TestScrubTextMasksOnlyThePassword(t *testing.T) {
	for _, c := range []struct{ dsn, msg, want string }{
		{"postgres://u:e@127.0.0.1:1/db",
			"open postgres://u:e@127.0.0.1:1/db: dial tcp 127.0.0.1:1: connect: connection refused",
			"open postgres://u:xxxxx@127.0.0.1:1/db: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"postgres://u:e@h/db", "pq: password authentication failed for user \"u\"",
			"pq: password authentication failed for user \"u\""},
		// A user named like the password keeps its name.
		{"postgres://e:e@h/db", "open postgres://e:e@h/db: refused", "open postgres://e:xxxxx@h/db: refused"},
		// Go MySQL DSNs, key=value and ADO strings, quoted or not.
		{"mysql://root:pw@h/db", "dsn root:pw@tcp(h:3306)/db", "dsn root:xxxxx@tcp(h:3306)/db"},
		{"postgres://u:pw@h/db", "host=h user=u password=pw dbname=db", "host=h user=u password=xxxxx dbname=db"},
		{"postgres://u:pw@h/db", "host=h password = 'pw'", "host=h password = 'xxxxx'"},
		{"sqlserver://h?password=pw", "server=h;Password=pw;database=d", "server=h;Password=xxxxx;database=d"},
		// Encoded as net/url encodes it, or decoded.
		{"postgres://u:p%40ss@h/db", "parse \"postgres://u:p%40ss@h/db\": x", "parse \"postgres://u:xxxxx@h/db\": x"},
		{"postgres://u:p%40ss@h/db", "rejected 'p@ss'", "rejected 'xxxxx'"},
		// Inside another word or value: left alone.
		{"postgres://u:conn@h/db", "connection refused", "connection refused"},
		{"postgres://u:Olympus@h/db", "unknown time zone Mars/Olympus", "unknown time zone Mars/Olympus"},
	} {
		if got := dialects.ScrubText(c.dsn, c.msg); got != c.want {
			t.Errorf("ScrubText(%s, %q)\n = %q\nwant %q", dialects.Redact(c.dsn), c.msg, got, c.want)
		}
	}
	// Redact masks another value of the DSN that is the password.
	if got := dialects.Redact("sqlserver://u:Olympus@h?timezone=Olympus"); got != "sqlserver://u:xxxxx@h?timezone=xxxxx" {
		t.Errorf("Redact with a value equal to the password = %q", got)
	}
}
