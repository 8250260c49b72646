//go:build unix

package main

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// runAsPostgres returns what makes a command run as the postgres OS user
// when the test runs as root (PostgreSQL refuses to run as root), having
// given dir to that user; as any other user, a command runs as it is.
func runAsPostgres(t *testing.T, dir string) func(*exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		return func(*exec.Cmd) {}
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		serverMissing(t, "running as root and there is no postgres user to run PostgreSQL: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return func(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Credential: cred} }
}
