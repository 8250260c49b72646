package integration

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/profdb/profdb/internal/dbtest"
)

// versionQuery is the query that returns each dialect's server version.
var versionQuery = map[string]string{
	"sqlite":    "SELECT 'SQLite ' || sqlite_version()",
	"postgres":  "SELECT version()",
	"mysql":     "SELECT CONCAT(VERSION(), ' ', @@version_comment)",
	"sqlserver": "SELECT @@VERSION",
	// A target's own query goes before its dialect's.
	"citus": "SELECT citus_version() || ', ' || (SELECT count(*) FROM citus_get_active_worker_nodes()) || ' workers; ' || version()",
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
			q, ok := versionQuery[name]
			if !ok {
				q = versionQuery[tg.Dialect]
			}
			if err := db.QueryRowContext(Ctx(t), q).Scan(&v); err != nil {
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

// TestEndpoints asserts that no test connects outside the loopback
// interface: every server the suite got is on 127.0.0.0/8 or ::1, and
// every container it started publishes its ports on the loopback interface
// only. A DSN from the environment may name another host for a user's own
// server (the test logs it); under CI=true that fails too.
func TestEndpoints(t *testing.T) {
	for _, name := range TargetNames {
		if name == "sqlite" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			tg := Lookup(t, name)
			strict := tg.Container != "" || dbtest.InCI()
			u, err := url.Parse(tg.Server)
			if err != nil || u.Hostname() == "" {
				t.Fatalf("%s: the server's DSN names no host", name)
			}
			host := u.Hostname()
			var ips []net.IP
			if ip := net.ParseIP(host); ip != nil {
				ips = []net.IP{ip}
			} else if ips, err = net.DefaultResolver.LookupIP(Ctx(t), "ip", host); err != nil {
				t.Fatalf("%s: resolve %s: %v", name, host, err)
			}
			for _, ip := range ips {
				switch {
				case ip.IsLoopback():
				case strict:
					t.Errorf("%s (%s): server at %s (%s), outside 127.0.0.0/8 and ::1", name, tg.Origin, host, ip)
				default:
					t.Logf("%s (%s): server at %s (%s), outside the loopback interface", name, tg.Origin, host, ip)
				}
			}
			if tg.Container == "" {
				return
			}
			cli, err := dockerClient()
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			res, err := cli.ContainerInspect(Ctx(t), tg.Container, client.ContainerInspectOptions{})
			if err != nil {
				t.Fatalf("%s: inspect container: %v", name, err)
			}
			n := 0
			for port, bindings := range res.Container.NetworkSettings.Ports {
				for _, b := range bindings {
					n++
					if !b.HostIP.IsLoopback() {
						t.Errorf("%s: container port %s published on %s, not on the loopback interface", name, port, b.HostIP)
					}
				}
			}
			if n == 0 {
				t.Errorf("%s: the container publishes no port", name)
			}
		})
	}
}
