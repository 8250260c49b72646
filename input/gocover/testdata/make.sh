#!/bin/sh
# Regenerates cov.out, the checked-in Go coverage profile of the test module
# in cov/ (count mode). The tests also regenerate it when go is on PATH.
set -eu
cd "$(dirname "$0")/cov"
GOTOOLCHAIN=local GOWORK=off GOFLAGS= go test -count=1 -covermode=count -coverprofile=../cov.out ./...
