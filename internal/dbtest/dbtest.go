package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
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

// Servers returns Dialects(except...) without those of file databases
// (SQLite): the dialects of a test of network servers (a proxy between
// profdb and the server, logins).
func Servers(except ...string) []string {
	return slices.DeleteFunc(Dialects(except...), isFile)
}

// isFile reports whether target names a registered dialect whose
// database is a file the driver opens (dialects.AccessDSN), rather than a
// server. A test that names a dialect registers it (imports its package),
// as it must to open it.
func isFile(target string) bool {
	d, err := dialects.Lookup(target)
	if err != nil {
		return false
	}
	_, file := d.(dialects.AccessDSN)
	return file
}

// InCI reports whether the tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// CIProvides reports whether CI starts a server for target, a dialect's
// name or "citus": a server for every dialect but those of file databases
// (PostgreSQL, MariaDB, Babelfish for SQL Server), and a Citus cluster
// ("citus", a postgres:// DSN of its coordinator in PROFDB_TEST_CITUS;
// see .ci/run).
func CIProvides(target string) bool { return !isFile(target) }

// DSN returns the profdb DSN for dialect's server. For "sqlite" it is a new
// file in a temporary folder. When the variable is unset the test skips, or
// fails under CI for the servers CI provides.
func DSN(t testing.TB, dialect string) string {
	t.Helper()
	if d, err := dialects.Lookup(dialect); err == nil && isFile(dialect) {
		return d.Facts().Schemes[0] + ":" + filepath.Join(t.TempDir(), "profdb.db")
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
	if isFile(dialect) {
		return dsn
	}
	name := "profdb_t_" + randomHex(6)
	db := Open(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	create, drop, err := Namespace(ctx, db, dsn, name)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	for _, st := range create {
		if err := ExecCatalogue(ctx, db, st); err != nil {
			t.Fatalf("dbtest: %s: %v", st, err)
		}
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
			if err := ExecCatalogue(ctx, db, st); err != nil {
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
func ExecCatalogue(ctx context.Context, db *sql.DB, st string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, st)
		if err == nil || attempt == 10 || !strings.Contains(err.Error(), "tuple concurrently updated") {
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

// Namespace returns the statements that create the namespace name on the
// server of dsn, which db reaches, and drop it again
// (dialects.Namespaces).
func Namespace(ctx context.Context, db *sql.DB, dsn, name string) (create, drop []string, err error) {
	ns, err := namespaces(dsn)
	if err != nil {
		return nil, nil, err
	}
	return ns.Namespace(ctx, db, name)
}

// WithNamespace returns dsn pointed at the schema (PostgreSQL) or database
// (MySQL, SQL Server) name (dialects.Namespaces).
func WithNamespace(dsn, name string) (string, error) {
	ns, err := namespaces(dsn)
	if err != nil {
		return "", err
	}
	return ns.InNamespace(dsn, name)
}

// namespaces returns the dialect of dsn as a dialects.Namespaces.
func namespaces(dsn string) (dialects.Namespaces, error) {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("dbtest: %w", err)
	}
	ns, ok := d.(dialects.Namespaces)
	if !ok {
		return nil, fmt.Errorf("dbtest: the %s dialect has no namespaces of its own", d.Name())
	}
	return ns, nil
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
	db, err := sql.Open(d.Facts().Driver, drv)
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
