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
	if got := dialects.ScrubError(dsn, errors.New("echo s3CR3T: S3cr3tS3cr3t")).Error(); got != "echo xxxxx: xxxxxxxxxx" {
		t.Errorf("ScrubError ignoring case = %q", got)
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
