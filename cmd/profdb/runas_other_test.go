//go:build !unix

package main

import (
	"os/exec"
	"testing"
)

// runAsPostgres: a command runs as the test's user (there is no root to
// step down from).
func runAsPostgres(*testing.T, string) func(*exec.Cmd) { return func(*exec.Cmd) {} }
