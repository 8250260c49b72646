package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/sqlserver"
)

// EnvVar returns the environment variable that holds the DSN for dialect.
func EnvVar(dialect string) string {
	return "PROFDB_TEST_" + strings.ToUpper(dialect)
}

// Dialects returns the dialects a test runs on, in the order tests name
// them: SQLite and the servers of every dialect profdb supports, less those
// in except (a test of a feature one of them lacks). It is the one list of
// the tests: DSN and Fresh skip, or fail under CI, a dialect whose server is
// not set.
func Dialects(except ...string) []string {
	all := []string{"sqlite", "postgres", "mysql", "sqlserver"}
	return slices.DeleteFunc(all, func(d string) bool { return slices.Contains(except, d) })
}

// Servers returns Dialects(except...) without SQLite: the dialects of a
// test of network servers (a proxy between profdb and the server, logins).
func Servers(except ...string) []string {
	return Dialects(append([]string{"sqlite"}, except...)...)
}

// InCI reports whether the tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// CIProvides reports whether CI starts a server for dialect: PostgreSQL,
// MariaDB, Babelfish for SQL Server, and a Citus cluster ("citus", a
// postgres:// DSN of its coordinator in PROFDB_TEST_CITUS; see .ci/run).
func CIProvides(dialect string) bool {
	return dialect == "postgres" || dialect == "mysql" || dialect == "sqlserver" || dialect == "citus"
}

// DSN returns the profdb DSN for dialect's server. For "sqlite" it is a new
// file in a temporary folder. When the variable is unset the test skips, or
// fails under CI for the servers CI provides.
func DSN(t testing.TB, dialect string) string {
	t.Helper()
	if dialect == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "profdb.db")
	}
	v := os.Getenv(EnvVar(dialect))
	if v == "" {
		if InCI() && CIProvides(dialect) {
			t.Fatalf("%s is not set: CI must start the %s server and export it (see .ci/run)", EnvVar(dialect), dialect)
		}
		t.Skipf("%s is not set: set it to a profdb DSN to run this test against a real %s server", EnvVar(dialect), dialect)
	}
	return v
}

// keepVar is the environment variable that, set to anything, has Fresh
// keep the server namespaces it makes (and print their DSNs, password
// hidden, on standard error) instead of dropping them when the test ends:
// for looking into a benchmark's database afterwards. SQLite files are
// left in the test's temporary folder, which goes.
const keepVar = "PROFDB_TEST_KEEP"

// Fresh returns the DSN of an empty private namespace on dialect's server:
// a new schema on PostgreSQL (selected through search_path), a new database
// on MySQL and SQL Server, a new file on SQLite. It is dropped when the test ends.
func Fresh(t testing.TB, dialect string) string {
	t.Helper()
	dsn := DSN(t, dialect)
	if dialect == "sqlite" {
		return dsn
	}
	name := "profdb_t_" + randomHex(6)
	db := Open(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var create string
	var drop []string
	switch dialect {
	case "postgres", "citus":
		create, drop = "CREATE SCHEMA "+name, []string{"DROP SCHEMA IF EXISTS " + name + " CASCADE"}
	case "mysql":
		create, drop = "CREATE DATABASE "+name+" CHARACTER SET utf8mb4", []string{"DROP DATABASE IF EXISTS " + name}
	case "sqlserver":
		create, drop = "CREATE DATABASE "+name, []string{"IF DB_ID(N'" + name + "') IS NOT NULL DROP DATABASE " + name}
		// SQL Server refuses to drop a database in use: end other sessions
		// first. Babelfish has no ALTER DATABASE, and drops it anyway.
		bf, err := sqlserver.IsBabelfish(ctx, db)
		if err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		if !bf {
			drop = append([]string{"IF DB_ID(N'" + name + "') IS NOT NULL ALTER DATABASE " + name + " SET SINGLE_USER WITH ROLLBACK IMMEDIATE"}, drop...)
		}
	default:
		t.Fatalf("dbtest: Fresh does not support %s", dialect)
	}
	if err := ExecCatalogue(ctx, db, dialect, create); err != nil {
		t.Fatalf("dbtest: %s: %v", create, err)
	}
	if os.Getenv(keepVar) != "" {
		kept, err := WithNamespace(dsn, name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "dbtest: %s set: keeping %s\n", keepVar, dialects.Redact(kept))
		return kept
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, st := range drop {
			if err := ExecCatalogue(ctx, db, dialect, st); err != nil {
				t.Errorf("dbtest: %s: %v", st, err)
			}
		}
	})
	out, err := WithNamespace(dsn, name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ExecCatalogue runs a statement that creates or drops a namespace. On
// Babelfish, two CREATE or DROP DATABASE at once (tests of several
// packages) may collide in PostgreSQL's catalogue ("tuple concurrently
// updated"); the loser tries again, up to ten times, after a wait that
// grows and is drawn at random so that the colliding ones part.
func ExecCatalogue(ctx context.Context, db *sql.DB, dialect, st string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, st)
		if err == nil || dialect != "sqlserver" || attempt == 10 || !strings.Contains(err.Error(), "tuple concurrently updated") {
			return err
		}
		wait := time.Duration(attempt) * (50*time.Millisecond + mrand.N(100*time.Millisecond))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
	}
}

// WithNamespace returns dsn pointed at the schema (PostgreSQL) or database
// (MySQL, SQL Server) name.
func WithNamespace(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("dbtest: bad DSN %s: %w", dialects.Redact(dsn), err)
	}
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		q := u.Query()
		q.Set("search_path", name)
		u.RawQuery = q.Encode()
	case "mysql":
		u.Path = "/" + name
	case "sqlserver":
		q := u.Query()
		q.Set("database", name)
		u.RawQuery = q.Encode()
	default:
		return "", fmt.Errorf("dbtest: no namespaces for scheme %s", u.Scheme)
	}
	return u.String(), nil
}

// Open opens a profdb DSN with its dialect's driver and pings it; the
// handle is closed when the test ends.
func Open(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(d.DriverName(), drv)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", dialects.Redact(dsn), err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("dbtest: %s server at %s does not answer: %v", d.Name(), dialects.Redact(dsn), err)
	}
	return db
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
