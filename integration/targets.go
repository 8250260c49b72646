package integration

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcmariadb "github.com/testcontainers/testcontainers-go/modules/mariadb"
	tcmssql "github.com/testcontainers/testcontainers-go/modules/mssql"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	// The dialects the suite runs on.
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/testdb"
)

// Target is one database server the suite runs against.
type Target struct {
	// Name is the target's name: sqlite, postgres, mysql, mariadb or
	// sqlserver.
	Name string
	// Dialect is the profdb dialect of the target.
	Dialect string
	// Origin tells where the server comes from, for messages: an
	// environment variable, a container image or a temporary file.
	Origin string
	// Server is the profdb DSN of the server, with rights to create
	// schemas, databases and logins; "" for SQLite.
	Server string
}

// TargetNames are the targets the suite knows, in the order it runs them.
var TargetNames = []string{"sqlite", "postgres", "mysql", "mariadb", "sqlserver"}

// targetSpec says where a target's server comes from.
type targetSpec struct {
	dialect string
	env     string // the variable holding its DSN
	image   string // the container image started when env is unset
	ci      bool   // CI provides the server: a missing one fails under CI=true
}

var specs = map[string]targetSpec{
	"postgres":  {"postgres", "PROFDB_TEST_POSTGRES", "postgres:16", true},
	"mysql":     {"mysql", "PROFDB_TEST_MYSQL", "mysql:8.4", true},
	"mariadb":   {"mysql", "PROFDB_TEST_MARIADB", "mariadb:11", false},
	"sqlserver": {"sqlserver", "PROFDB_TEST_SQLSERVER", "mcr.microsoft.com/mssql/server:2022-latest", true},
}

// EnvVar returns the environment variable that names the server of target
// name ("" for sqlite).
func EnvVar(name string) string { return specs[name].env }

// Lookup returns the target name: the server its environment variable
// names, or else, when a Docker engine answers, a container started for
// the test binary (stopped by Shutdown). With neither, the test skips
// saying so, or fails under CI=true for the servers CI provides (postgres,
// mysql).
func Lookup(t testing.TB, name string) Target {
	t.Helper()
	if name == "sqlite" {
		return Target{Name: name, Dialect: "sqlite", Origin: "a temporary file"}
	}
	sp, ok := specs[name]
	if !ok {
		t.Fatalf("integration: unknown target %q", name)
	}
	if dsn := os.Getenv(sp.env); dsn != "" {
		return Target{Name: name, Dialect: sp.dialect, Origin: "$" + sp.env, Server: dsn}
	}
	if ok, why := DockerAvailable(); ok {
		dsn, err := container(name)
		if err != nil {
			t.Fatalf("integration: start %s container %s: %v", name, sp.image, redactErr(err))
		}
		return Target{Name: name, Dialect: sp.dialect, Origin: "container " + sp.image, Server: dsn}
	} else if sp.ci && testdb.InCI() {
		t.Fatalf("integration: %s is not set and no Docker engine answers (%s): CI must provide the %s server (see .ci/run)", sp.env, why, name)
	} else {
		also := ""
		if name == "sqlserver" {
			also = " (TestSQLServerDDLOverTDS and TestSQLServerExportOverTDS check what profdb sends SQL Server against an in-process TDS server instead)"
		}
		t.Skipf("integration: %s is not set and no Docker engine answers (%s): skipping the %s target%s", sp.env, why, name, also)
	}
	return Target{}
}

var (
	dockerOnce sync.Once
	dockerOK   bool
	dockerWhy  string
)

// DockerAvailable reports whether a Docker engine answers testcontainers'
// provider health check, and if not, why.
func DockerAvailable() (bool, string) {
	dockerOnce.Do(func() {
		dockerOK, dockerWhy = dockerHealth()
	})
	return dockerOK, dockerWhy
}

func dockerHealth() (ok bool, why string) {
	defer func() {
		if r := recover(); r != nil {
			ok, why = false, fmt.Sprint("testcontainers panicked: ", r)
		}
	}()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return false, err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := p.Health(ctx); err != nil {
		return false, err.Error()
	}
	return true, ""
}

var (
	containersMu sync.Mutex
	containers   = map[string]*startedContainer{}
)

type startedContainer struct {
	c   testcontainers.Container
	dsn string
	err error
}

// container starts the target's container once per test binary and
// returns its server DSN.
func container(name string) (string, error) {
	containersMu.Lock()
	defer containersMu.Unlock()
	if sc, ok := containers[name]; ok {
		return sc.dsn, sc.err
	}
	sc := &startedContainer{}
	containers[name] = sc
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pw := "Profdb-" + randomHex(8) + "-aA1"
	img := specs[name].image
	var endpoint func(port string) (string, error)
	switch name {
	case "postgres":
		c, err := tcpostgres.Run(ctx, img, tcpostgres.WithDatabase("test"), tcpostgres.WithUsername("postgres"),
			tcpostgres.WithPassword(pw), tcpostgres.BasicWaitStrategies())
		sc.c, sc.err = containerOf(c), err
		endpoint = func(p string) (string, error) { return c.PortEndpoint(ctx, p, "") }
		if err == nil {
			sc.dsn, sc.err = dsnAt(endpoint, "5432/tcp", "postgres://postgres:"+url.QueryEscape(pw)+"@%s/test?sslmode=disable")
		}
	case "mysql":
		c, err := tcmysql.Run(ctx, img, tcmysql.WithDatabase("test"), tcmysql.WithUsername("root"), tcmysql.WithPassword(pw))
		sc.c, sc.err = containerOf(c), err
		endpoint = func(p string) (string, error) { return c.PortEndpoint(ctx, p, "") }
		if err == nil {
			sc.dsn, sc.err = dsnAt(endpoint, "3306/tcp", "mysql://root:"+url.QueryEscape(pw)+"@%s/test")
		}
	case "mariadb":
		c, err := tcmariadb.Run(ctx, img, tcmariadb.WithDatabase("test"), tcmariadb.WithUsername("root"), tcmariadb.WithPassword(pw))
		sc.c, sc.err = containerOf(c), err
		endpoint = func(p string) (string, error) { return c.PortEndpoint(ctx, p, "") }
		if err == nil {
			sc.dsn, sc.err = dsnAt(endpoint, "3306/tcp", "mysql://root:"+url.QueryEscape(pw)+"@%s/test")
		}
	case "sqlserver":
		c, err := tcmssql.Run(ctx, img, tcmssql.WithAcceptEULA(), tcmssql.WithPassword(pw))
		sc.c, sc.err = containerOf(c), err
		endpoint = func(p string) (string, error) { return c.PortEndpoint(ctx, p, "") }
		if err == nil {
			sc.dsn, sc.err = dsnAt(endpoint, "1433/tcp", "sqlserver://sa:"+url.QueryEscape(pw)+"@%s?database=master&encrypt=disable")
		}
	default:
		sc.err = fmt.Errorf("no container for target %s", name)
	}
	return sc.dsn, sc.err
}

// containerOf returns c as a Container, nil for a nil pointer.
func containerOf[C interface {
	comparable
	testcontainers.Container
}](c C) testcontainers.Container {
	var zero C
	if c == zero {
		return nil
	}
	return c
}

func dsnAt(endpoint func(string) (string, error), port, format string) (string, error) {
	hp, err := endpoint(port)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(format, hp), nil
}

// Shutdown stops the containers Lookup started. TestMain calls it after
// the tests.
func Shutdown() {
	containersMu.Lock()
	defer containersMu.Unlock()
	for name, sc := range containers {
		if sc.c != nil {
			if err := testcontainers.TerminateContainer(sc.c); err != nil {
				fmt.Fprintf(os.Stderr, "integration: stop %s container: %v\n", name, err)
			}
		}
		delete(containers, name)
	}
}

// redactErr hides DSN passwords an error might repeat.
func redactErr(err error) string {
	msg := err.Error()
	containersMu.Lock()
	defer containersMu.Unlock()
	for _, sc := range containers {
		if u, perr := url.Parse(sc.dsn); perr == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok && pw != "" {
				msg = strings.ReplaceAll(msg, pw, "xxxxx")
			}
		}
	}
	return msg
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Namespace is a private schema (PostgreSQL), database (MySQL, SQL Server)
// or file (SQLite) on a target, dropped when the test ends.
type Namespace struct {
	Target
	// Name is the schema or database name; "" for SQLite.
	Name string
	// DSN is the profdb DSN that selects the namespace, with the server's
	// credentials.
	DSN string
}

// Fresh creates an empty namespace on the target.
func (tg Target) Fresh(t testing.TB) Namespace {
	t.Helper()
	if tg.Dialect == "sqlite" {
		return Namespace{Target: tg, DSN: "sqlite:" + filepath.Join(t.TempDir(), "profdb.db")}
	}
	name := "profdb_it_" + randomHex(5)
	admin := Open(t, tg.Server)
	var create, drop []string
	switch tg.Dialect {
	case "postgres":
		create = []string{"CREATE SCHEMA " + name}
		drop = []string{"DROP SCHEMA IF EXISTS " + name + " CASCADE"}
	case "mysql":
		create = []string{"CREATE DATABASE " + name + " CHARACTER SET utf8mb4"}
		drop = []string{"DROP DATABASE IF EXISTS " + name}
	case "sqlserver":
		create = []string{"CREATE DATABASE " + name}
		drop = []string{"IF DB_ID(N'" + name + "') IS NOT NULL DROP DATABASE " + name}
		// SQL Server refuses to drop a database in use: end other sessions
		// first. Babelfish has no ALTER DATABASE, and drops it anyway.
		if bf, err := sqlserver.IsBabelfish(context.Background(), admin); err != nil {
			t.Fatalf("integration: %v", err)
		} else if !bf {
			drop = append([]string{"IF DB_ID(N'" + name + "') IS NOT NULL ALTER DATABASE " + name + " SET SINGLE_USER WITH ROLLBACK IMMEDIATE"}, drop...)
		}
	}
	for _, st := range create {
		if _, err := admin.Exec(st); err != nil {
			t.Fatalf("integration: %s: %v", st, err)
		}
	}
	t.Cleanup(func() {
		for _, st := range drop {
			if _, err := admin.Exec(st); err != nil {
				t.Errorf("integration: %s: %v", st, err)
			}
		}
	})
	dsn, err := WithNamespace(tg.Server, name)
	if err != nil {
		t.Fatal(err)
	}
	return Namespace{Target: tg, Name: name, DSN: dsn}
}

// WithNamespace returns dsn pointed at the schema (PostgreSQL, through
// search_path) or database (MySQL, SQL Server) name.
func WithNamespace(dsn, name string) (string, error) {
	return testdb.WithNamespace(dsn, name)
}

// WithLogin returns dsn with another user and password.
func WithLogin(dsn, user, password string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

// Open opens a profdb DSN with its dialect's driver; the handle is closed
// when the test ends.
func Open(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	return testdb.Open(t, dsn)
}
