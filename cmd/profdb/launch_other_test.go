//go:build !linux

package main

// launchMain: internal/launchtest measures peak RSS on Linux only.
func launchMain() {}
