package main

// The profiler plugins, SQL dialects and input formats profdb is built
// with. They register themselves in init; this is the only place that
// imports them for that side effect.
import (
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"

	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"

	_ "github.com/profdb/profdb/input/cobertura"
	_ "github.com/profdb/profdb/input/gocover"
	_ "github.com/profdb/profdb/input/interchange"
	_ "github.com/profdb/profdb/input/jacoco"
	_ "github.com/profdb/profdb/input/lcov"
	_ "github.com/profdb/profdb/input/pprof"
	_ "github.com/profdb/profdb/input/profilerj"
)
