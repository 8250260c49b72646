package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annPositive is the annotation of an int flag that must be at least 1: a
// limit (--top, --max-lines, ...) of 0 or less is a usage error, never
// silently its default.
const annPositive = "profdb:positive"

// annNotNegative is the annotation of a duration flag that must be 0 or
// more: a negative --timeout would otherwise silently mean none.
const annNotNegative = "profdb:not-negative"

// positiveIntVar adds an int flag that must be at least 1.
func positiveIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	f.IntVar(p, name, value, usage+" (at least 1)")
	if err := f.SetAnnotation(name, annPositive, []string{"true"}); err != nil {
		panic(err) // the flag was just added
	}
}

// checkLimits refuses, naming the flag, a value under 1 of any flag of
// cmd that positiveIntVar added, and a negative value of a duration flag
// annotated annNotNegative.
func checkLimits(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if _, ok := f.Annotations[annPositive]; ok {
			if n, e := cmd.Flags().GetInt(f.Name); e == nil && n < 1 {
				err = usageErrorf("--%s must be at least 1, not %d", f.Name, n)
			}
		}
		if _, ok := f.Annotations[annNotNegative]; ok {
			if d, e := cmd.Flags().GetDuration(f.Name); e == nil && d < 0 {
				err = usageErrorf("--%s must be 0 (wait for ever) or more, not %s", f.Name, d)
			}
		}
	})
	return err
}
