package dialects_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
)

// TestUnknownNamesAreSentinels: a dialect name or DSN scheme nothing is
// registered for is an error a caller can tell by errors.Is, and the
// message names what was asked for.
func TestUnknownNamesAreSentinels(t *testing.T) {
	if _, err := dialects.Lookup("nosuch"); !errors.Is(err, dialects.ErrUnknownDialect) || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("Lookup: %v, want ErrUnknownDialect naming nosuch", err)
	}
	for _, dsn := range []string{"nosuch://h/db", "no-scheme-at-all"} {
		if _, err := dialects.ForDSN(dsn); !errors.Is(err, dialects.ErrUnknownScheme) {
			t.Errorf("ForDSN(%q): %v, want ErrUnknownScheme", dsn, err)
		}
	}
}
