//go:build !linux

package main

// launchMain: internal/launch measures peak RSS on Linux only.
func launchMain() {}
