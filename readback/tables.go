package readback

import (
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
)

// The tables the figures are read from: the profiler plugins' names, never
// literals of their own.
const (
	lcRoutines     = lightcoverage.RoutinesData
	lcLines        = lightcoverage.Lines
	lcMetaRoutines = lightcoverage.MetaRoutines

	ftRoutines     = functiontrace.Routines
	ftMetaRoutines = functiontrace.MetaRoutines
	ftThreads      = functiontrace.Threads
	ftCallTrace    = functiontrace.CallTrace

	rsClasses      = resource.ClassesData
	rsObjects      = resource.Objects
	rsCreation     = resource.CreationCallStack
	rsMetaRoutines = resource.MetaRoutines
	rsErrors       = resource.Errors

	rcClasses     = referencecount.ClassesData
	rcObjects     = referencecount.Objects
	rcMetaClasses = referencecount.MetaClassesData
)
