package main

import (
	"errors"
	"strings"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/optionerr"
)

// optionFlags are the flags that set the Options fields the library names
// in its errors (optionerr.Error), by "package.Type.Field".
var optionFlags = map[string]string{
	"gate.Options.MinCoverage":      "--min-coverage",
	"gate.Options.MaxDrop":          "--max-drop",
	"gate.Options.MinPatchCoverage": "--min-patch-coverage",
	"gate.Options.MaxTimeIncrease":  "--max-time-increase",
	"gate.Options.Baseline":         "--baseline",
	"gate.Options.Diff":             "--diff",
	"input.Options.MaxInflate":      "--max-inflate",
	"store.Options.NoCreate":        "--no-create",
	"store.Options.LockTimeout":     "--lock-timeout",
	"trend.Options.File":            "--file",
	"trend.Options.Routine":         "--routine",
}

// flagOf is the flag that sets the field of the options typ, or the field
// as the library names it when no flag does.
func flagOf(typ, field string) string {
	if f, ok := optionFlags[typ+"."+field]; ok {
		return f
	}
	return typ + "." + field
}

// cliHints are what the command line adds to the library errors that
// match them: the flag that helps.
var cliHints = []struct {
	err  error
	hint string
}{
	{input.ErrUndetected, "use --format"},
	{gate.ErrEmptyDiff, "if no change is expected, say so with --allow-empty-diff"},
	{exporter.ErrNoCreate, "profdb ddl prints it"},
}

// phrase returns err as the command line says it, the one place where
// library errors learn profdb's flags: the Options fields an
// optionerr.Error names become the flags that set them, and an error a
// flag helps with (cliHints) names the flag. The error still matches what
// err matches (errors.Is, errors.As).
func phrase(err error) error {
	msg := err.Error()
	var oe *optionerr.Error
	if errors.As(err, &oe) {
		msg = strings.Replace(msg, oe.Error(), oe.Phrase(func(field string) string { return flagOf(oe.Type, field) }), 1)
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

// phrased is an error with the text the command line gives it.
type phrased struct {
	msg string
	err error
}

func (e phrased) Error() string { return e.msg }
func (e phrased) Unwrap() error { return e.err }
