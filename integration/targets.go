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
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/profdb/profdb/dialects"
	// The dialects the suite runs on.
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
)

// Target is one database server the suite runs against.
type Target struct {
	// Name is the target's name: sqlite, postgres, mysql, mariadb,
	// sqlserver or citus.
	Name string
	// Dialect is the profdb dialect of the target.
	Dialect string
	// Origin tells where the server comes from, for messages: an
	// environment variable, a container image or a temporary file.
	Origin string
	// Server is the profdb DSN of the server, with rights to create
	// schemas, databases and logins; "" for SQLite.
	Server string
	// Container is the ID of the container the suite started for the
	// server; "" when the server comes from the environment.
	Container string
}

// TargetNames are the targets the suite knows, in the order it runs them.
var TargetNames = []string{"sqlite", "postgres", "mysql", "mariadb", "sqlserver", "citus"}

// TargetsVar names the environment variable that selects targets: a
// comma-separated list of target names. Unset, every target runs where it
// has a server; set, the others are skipped and a listed target that gets
// no server fails.
const TargetsVar = "PROFDB_TEST_TARGETS"

// targetSpec says where a target's server comes from.
type targetSpec struct {
	dialect string
	env     string // the variable holding its DSN
	image   string // the container image started when env is unset
	ci      bool   // CI provides the server: a missing one fails under CI=true
	port    string // the server's port in the container
	dsn     string // the DSN of the container's server: fmt with host:port, URL-escaped password
	// run starts the container with testcontainers' module for it.
	run func(ctx context.Context, img, pw string, opts []testcontainers.ContainerCustomizer) (testcontainers.Container, error)
}

var specs = map[string]targetSpec{
	// A Citus cluster's coordinator (../shared/citus/start prints its DSN):
	// PostgreSQL with tables distributed over workers. No container.
	"citus": {dialect: "postgres", env: "PROFDB_TEST_CITUS", ci: true},
	"postgres": {"postgres", "PROFDB_TEST_POSTGRES", "postgres:16", true, "5432/tcp", "postgres://postgres:%[2]s@%[1]s/test?sslmode=disable",
		func(ctx context.Context, img, pw string, opts []testcontainers.ContainerCustomizer) (testcontainers.Container, error) {
			c, err := tcpostgres.Run(ctx, img, append([]testcontainers.ContainerCustomizer{tcpostgres.WithDatabase("test"),
				tcpostgres.WithUsername("postgres"), tcpostgres.WithPassword(pw)}, opts...)...)
			return containerOf(c), err
		}},
	"mysql": {"mysql", "PROFDB_TEST_MYSQL", "mysql:8.4", true, "3306/tcp", "mysql://root:%[2]s@%[1]s/test",
		func(ctx context.Context, img, pw string, opts []testcontainers.ContainerCustomizer) (testcontainers.Container, error) {
			c, err := tcmysql.Run(ctx, img, append([]testcontainers.ContainerCustomizer{tcmysql.WithDatabase("test"),
				tcmysql.WithUsername("root"), tcmysql.WithPassword(pw)}, opts...)...)
			return containerOf(c), err
		}},
	"mariadb": {"mysql", "PROFDB_TEST_MARIADB", "mariadb:11", false, "3306/tcp", "mysql://root:%[2]s@%[1]s/test",
		func(ctx context.Context, img, pw string, opts []testcontainers.ContainerCustomizer) (testcontainers.Container, error) {
			c, err := tcmariadb.Run(ctx, img, append([]testcontainers.ContainerCustomizer{tcmariadb.WithDatabase("test"),
				tcmariadb.WithUsername("root"), tcmariadb.WithPassword(pw)}, opts...)...)
			return containerOf(c), err
		}},
	"sqlserver": {"sqlserver", "PROFDB_TEST_SQLSERVER", "mcr.microsoft.com/mssql/server:2022-latest", true, "1433/tcp",
		"sqlserver://sa:%[2]s@%[1]s?database=master&encrypt=disable",
		func(ctx context.Context, img, pw string, opts []testcontainers.ContainerCustomizer) (testcontainers.Container, error) {
			c, err := tcmssql.Run(ctx, img, append([]testcontainers.ContainerCustomizer{tcmssql.WithAcceptEULA(),
				tcmssql.WithPassword(pw)}, opts...)...)
			return containerOf(c), err
		}},
}

// EnvVar returns the environment variable that names the server of target
// name ("" for sqlite).
func EnvVar(name string) string { return specs[name].env }

// ImageVar returns the environment variable that names the container
// image of target name: its EnvVar with _IMAGE appended
// (PROFDB_TEST_POSTGRES_IMAGE, ...); "" for sqlite.
func ImageVar(name string) string {
	if specs[name].env == "" {
		return ""
	}
	return specs[name].env + "_IMAGE"
}

// Image returns the container image the suite starts for target name: the
// one ImageVar names, else the public image (postgres:16, mysql:8.4,
// mariadb:11, mcr.microsoft.com/mssql/server:2022-latest).
func Image(name string) string {
	if v := os.Getenv(ImageVar(name)); v != "" && ImageVar(name) != "" {
		return v
	}
	return specs[name].image
}

// selected reports whether target name runs, and whether it was named in
// TargetsVar.
func selected(name string) (run, named bool) {
	list, ok := os.LookupEnv(TargetsVar)
	if !ok {
		return true, false
	}
	for _, n := range strings.Split(list, ",") {
		if strings.TrimSpace(n) == name {
			return true, true
		}
	}
	return false, false
}

// Lookup returns the target name: the server its environment variable
// names, or else, when a Docker engine answers, a container started for
// the test binary from Image(name) (stopped by Shutdown). With neither,
// the test skips saying so, or fails under CI=true for the servers CI
// provides (postgres, mysql, sqlserver) and for targets named in
// TargetsVar. A container that does not start (an image that cannot be
// pulled) fails the test under CI=true or when TargetsVar names the target,
// else skips it. A target TargetsVar leaves out is skipped.
func Lookup(t testing.TB, name string) Target {
	t.Helper()
	run, named := selected(name)
	if !run {
		t.Skipf("integration: target %s is not in %s=%s", name, TargetsVar, os.Getenv(TargetsVar))
	}
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
	if sp.run == nil {
		if named || sp.ci && dbtest.InCI() {
			t.Fatalf("integration: %s is not set: the %s target needs its server (see .ci/run)", sp.env, name)
		}
		t.Skipf("integration: %s is not set: skipping the %s target", sp.env, name)
	}
	if ok, why := DockerAvailable(); ok {
		sc := startContainer(name)
		if sc.err != nil {
			if named || dbtest.InCI() {
				t.Fatalf("integration: start %s container %s: %v", name, sc.image, redactErr(sc.err))
			}
			t.Skipf("integration: %s is not set and the %s container %s does not start (%v): skipping the %s target; set %s to an image at hand",
				sp.env, name, sc.image, redactErr(sc.err), name, ImageVar(name))
		}
		return Target{Name: name, Dialect: sp.dialect, Origin: sc.origin(name), Server: sc.dsn, Container: sc.c.GetContainerID()}
	} else if named || sp.ci && dbtest.InCI() {
		t.Fatalf("integration: %s is not set and no Docker engine answers (%s): the %s server is needed (see .ci/run)", sp.env, why, name)
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
	c        testcontainers.Container
	image    string
	endpoint string        // host:port of the server
	started  time.Duration // from the request to the first answered ping
	dsn      string
	err      error
}

// origin says where the container's server comes from, for TestTargets.
func (sc *startedContainer) origin(name string) string {
	from := "default"
	if os.Getenv(ImageVar(name)) != "" {
		from = "$" + ImageVar(name)
	}
	return fmt.Sprintf("container %s (%s) on %s, ready in %.1f s", sc.image, from, sc.endpoint, sc.started.Seconds())
}

// startContainer starts the target's container once per test binary, labelled
// as the suite's (ownLabels) with its ports published on 127.0.0.1 only,
// and waits until its server answers.
func startContainer(name string) *startedContainer {
	containersMu.Lock()
	defer containersMu.Unlock()
	if sc, ok := containers[name]; ok {
		return sc
	}
	sp := specs[name]
	sc := &startedContainer{image: Image(name)}
	containers[name] = sc
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pw := "Profdb-" + randomHex(8) + "-aA1"
	start := time.Now()
	sc.c, sc.err = sp.run(ctx, sc.image, pw, []testcontainers.ContainerCustomizer{
		testcontainers.WithLabels(ownLabels()),
		// The modules wait for log lines of the official images. Here the
		// port need only be published (checked from outside: a check
		// inside costs a docker exec per try); the server's first answer
		// (waitReady, below) is what counts.
		testcontainers.WithWaitStrategyAndDeadline(3*time.Minute, wait.ForListeningPort(sp.port).SkipInternalCheck()),
		loopbackPorts(),
	})
	if sc.err != nil {
		return sc
	}
	if sc.endpoint, sc.err = sc.c.PortEndpoint(ctx, sp.port, ""); sc.err != nil {
		return sc
	}
	sc.dsn = fmt.Sprintf(sp.dsn, sc.endpoint, url.QueryEscape(pw))
	sc.err = waitReady(ctx, sc.dsn)
	sc.started = time.Since(start)
	return sc
}

// waitReady pings the server of dsn until it answers.
func waitReady(ctx context.Context, dsn string) error {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return err
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		return err
	}
	db, err := sql.Open(d.Facts().Driver, drv)
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		err = db.PingContext(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server does not answer: %w", err)
		case <-time.After(250 * time.Millisecond):
		}
	}
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

// Shutdown stops the containers Lookup started, and removes any other
// container of this test binary (one whose start failed half way). TestMain
// calls it after the tests.
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
	if ok, _ := DockerAvailable(); ok {
		if err := RemoveOwnContainers(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: remove containers: %v\n", err)
		}
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
	create, drop, err := dbtest.Namespace(context.Background(), admin, tg.Server, name)
	if err != nil {
		t.Fatalf("integration: %v", err)
	}
	for _, st := range create {
		if err := dbtest.ExecCatalogue(context.Background(), admin, st); err != nil {
			t.Fatalf("integration: %s: %v", st, err)
		}
	}
	t.Cleanup(func() {
		for _, st := range drop {
			if err := dbtest.ExecCatalogue(context.Background(), admin, st); err != nil {
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
	return dbtest.WithNamespace(dsn, name)
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
	return dbtest.Open(t, dsn)
}
