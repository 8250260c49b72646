package integration

import (
	"strings"
	"testing"
)

// versionQuery is the query that returns each dialect's server version.
var versionQuery = map[string]string{
	"sqlite":    "SELECT 'SQLite ' || sqlite_version()",
	"postgres":  "SELECT version()",
	"mysql":     "SELECT CONCAT(VERSION(), ' ', @@version_comment)",
	"sqlserver": "SELECT @@VERSION",
}

// TestTargets says, for each target, where its server comes from and what
// it is: .ci/run prints these lines (go test -v) so that a CI log shows
// what the suite ran against. Under CI=true a target CI provides must be
// there (see Lookup).
func TestTargets(t *testing.T) {
	for _, name := range TargetNames {
		t.Run(name, func(t *testing.T) {
			tg := Lookup(t, name)
			db := Open(t, tg.Fresh(t).DSN)
			var v string
			if err := db.QueryRowContext(Ctx(t), versionQuery[tg.Dialect]).Scan(&v); err != nil {
				t.Fatalf("%s: server version: %v", name, err)
			}
			v = strings.Join(strings.Fields(v), " ")
			if v == "" {
				t.Fatalf("%s: empty server version", name)
			}
			t.Logf("target %s: %s: %s", name, tg.Origin, v)
		})
	}
}
