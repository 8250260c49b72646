package exporter

import "github.com/profdb/profdb/resultset"

// The result-set model lives in package resultset, which the profilers'
// builders and the input readers fill without depending on the exporter.
// These aliases let the exporter's API read whole: a DB is a Target, its
// Begin returns a ResultWriter, and so on.
type (
	// Header is resultset.Header.
	Header = resultset.Header
	// Counter is resultset.Counter.
	Counter = resultset.Counter
	// Result is resultset.Result.
	Result = resultset.Result
	// Target is resultset.Target.
	Target = resultset.Target
	// ResultWriter is resultset.ResultWriter.
	ResultWriter = resultset.ResultWriter
	// TableWriter is resultset.TableWriter.
	TableWriter = resultset.TableWriter
	// ResultSet is resultset.ResultSet.
	ResultSet = resultset.ResultSet
	// TableRows is resultset.TableRows.
	TableRows = resultset.TableRows
)
