//go:build linux

package main

import "github.com/profdb/profdb/internal/launch"

// launchMain makes the test binary a launcher (internal/launch) when a
// test runs a command through one, to measure the command's peak RSS
// alone: Linux is where internal/launch reads peak RSS.
func launchMain() { launch.Main() }
