package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annMin is the annotation of an int flag that, when given, must be at
// least a least value: a limit (--top, --max-lines, ...) of 0 or less, a
// --keep-last 0 that would keep nothing, a negative --last, is a usage
// error naming the flag, never silently its default or everything. Its
// values are the least, the rule as the message words it ("at least 1",
// "0 (all) or more") and what a smaller value would do ("" when nothing
// more needs saying).
const annMin = "profdb:min"

// annNotNegative is the annotation of a duration flag that must be 0 or
// more: a negative --timeout would otherwise silently mean none.
const annNotNegative = "profdb:not-negative"

// positiveIntVar adds an int flag that must be at least 1.
func positiveIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	minIntVar(f, p, name, value, 1, "at least 1", "", usage+" (at least 1)")
}

// minIntVar adds an int flag whose value, when given, must be at least
// least: rule words that ("at least 1"), below says what a smaller value
// would do, and what to give instead (see belowLimit). Its default may be
// under least (0: not given).
func minIntVar(f *pflag.FlagSet, p *int, name string, value, least int, rule, below, usage string) {
	f.IntVar(p, name, value, usage)
	if err := f.SetAnnotation(name, annMin, []string{strconv.Itoa(least), rule, below}); err != nil {
		panic(err) // the flag was just added
	}
}

// belowLimit is the usage error of a flag given a value its rule refuses,
// the one wording of them all: "--keep-last must be at least 1, not 0: 0
// would delete …". below, when not "", says what that value would do and
// what to give instead.
func belowLimit(flag, rule, value, below string) error {
	if below != "" {
		return usageErrorf("--%s must be %s, not %s: %s", flag, rule, value, below)
	}
	return usageErrorf("--%s must be %s, not %s", flag, rule, value)
}

// checkLimits refuses, naming the flag, a value under its least of any
// flag of cmd that minIntVar added (positiveIntVar's included) and that
// was given (on the command line or by the environment, not its
// default), and a negative value of a duration flag annotated
// annNotNegative.
func checkLimits(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if a, ok := f.Annotations[annMin]; ok && (f.Changed || f.Value.String() != f.DefValue) {
			least, e := strconv.Atoi(a[0])
			if e != nil {
				panic(fmt.Sprintf("--%s: annotation %q: %v", f.Name, a, e)) // minIntVar wrote it
			}
			if n, e := cmd.Flags().GetInt(f.Name); e == nil && n < least {
				err = belowLimit(f.Name, a[1], strconv.Itoa(n), a[2])
			}
		}
		if _, ok := f.Annotations[annNotNegative]; ok {
			if d, e := cmd.Flags().GetDuration(f.Name); e == nil && d < 0 {
				err = belowLimit(f.Name, "0 (wait for ever) or more", d.String(), "")
			}
		}
	})
	return err
}
