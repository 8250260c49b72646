// Package optionerr is the error of a library call whose options do not
// make sense, or that an option stopped: it names the Options fields at
// fault (gate.Options.MaxDrop, input.Options.MaxInflate), not the
// command-line flags that set them, so that a library user reads the
// names of the API it called and a command line can phrase the same error
// with its own flags (Error.Phrase; profdb maps fields to flags in one
// place, cmd/profdb). A note a library logs names a field the same way,
// as a Field argument of its Logf call.
package optionerr
