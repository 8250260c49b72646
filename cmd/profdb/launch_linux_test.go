//go:build linux

package main

import "github.com/profdb/profdb/internal/launchtest"

// launchMain makes the test binary a launcher (internal/launchtest) when a
// test runs a command through one, to measure the command's peak RSS
// alone: Linux is where internal/launchtest reads peak RSS.
func launchMain() { launchtest.Main() }
