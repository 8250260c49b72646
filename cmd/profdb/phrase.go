package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/optionerr"
)

// optionFlags are the flags that set the Options fields the library names
// in its errors (optionerr.Error), its notes (optionerr.Field) and its
// reports (gate.Names), by "package.Type.Field".
var optionFlags = map[string]string{
	"gate.Options.MinCoverage":      "--min-coverage",
	"gate.Options.MaxDrop":          "--max-drop",
	"gate.Options.MinPatchCoverage": "--min-patch-coverage",
	"gate.Options.MaxTimeIncrease":  "--max-time-increase",
	"gate.Options.Baseline":         "--baseline",
	"gate.Options.Diff":             "--diff",
	"gate.Options.MaxRanges":        "--max-ranges",
	"input.Options.MaxInflate":      "--max-inflate",
	"store.Options.NoCreate":        "--no-create",
	"store.Options.LockTimeout":     "--lock-timeout",
	"exporter.Options.NoDistribute": "--no-distribute",
	"trend.Options.File":            "--file",
	"trend.Options.Routine":         "--routine",
	"trend.Options.Filter.Profiler": "--profiler",
}

// fieldName is how the command cmd names the field of the options typ:
// the flag that sets it when cmd has that flag; the command itself
// ("delete") when the flag is another command's, for then the command
// sets the field (delete and merge never create a database or a table);
// the field as the library names it (Type.Field) when no flag sets it.
func fieldName(cmd *cobra.Command, typ, field string) string {
	f, ok := optionFlags[typ+"."+field]
	switch {
	case !ok:
		return typ + "." + field
	case cmd == nil || cmd.Flags().Lookup(strings.TrimPrefix(f, "--")) != nil:
		return f
	}
	return cmd.Name()
}

// cliHints are what the command line adds to the library errors that
// match them: the flag that helps.
var cliHints = []struct {
	err  error
	hint string
}{
	{input.ErrUndetected, "use --format"},
	{input.ErrSourceNotFound, "give --source-root DIR (the Go module's folder), or --skip-missing to warn and go on"},
	{gate.ErrEmptyDiff, "if no change is expected, say so with --allow-empty-diff"},
	{exporter.ErrNoCreate, "profdb ddl prints it"},
}

// phrase returns err as the command cmd says it, the one place where
// library errors learn profdb's flags: the Options fields an
// optionerr.Error names become what cmd calls them (fieldName), and an
// error a flag helps with (cliHints) names the flag. The error still
// matches what err matches (errors.Is, errors.As).
func phrase(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var oe *optionerr.Error
	if errors.As(err, &oe) {
		msg = strings.Replace(msg, oe.Error(), oe.Phrase(func(field string) string { return fieldName(cmd, oe.Type, field) }), 1)
	}
	for _, h := range cliHints {
		if errors.Is(err, h.err) {
			msg += "; " + h.hint
		}
	}
	if msg == err.Error() {
		return err
	}
	return phrased{msg, err}
}

// phraseArgs returns the arguments of a library's note (a Logf call) with
// each optionerr.Field in them named as cmd names it (fieldName).
func phraseArgs(cmd *cobra.Command, args []any) []any {
	var out []any
	for i, a := range args {
		if f, ok := a.(optionerr.Field); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = fieldName(cmd, f.Type, f.Name)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// phrased is an error with the text the command line gives it.
type phrased struct {
	msg string
	err error
}

func (e phrased) Error() string { return e.msg }
func (e phrased) Unwrap() error { return e.err }
