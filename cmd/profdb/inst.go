package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/store"
)

// instFlag is --inst, the same in every command that takes it (copy,
// delete, report, verify): an INST_ID (7) or a range A-B (3-7: the result
// sets between A and B, both included, that the database holds), repeated
// or separated by commas (--inst 3,5 --inst 10-20). An INST_ID the
// database does not hold, or a range that holds none, is an error (exit
// 2), and so is a value that is no positive INST_ID or range (a usage
// error).
type instFlag struct{ specs []string }

// addInstFlag adds --inst to cmd, selecting the result sets to what (e.g.
// "copy") and, when none is given, those of dflt ("all").
func addInstFlag(cmd *cobra.Command, what, dflt string) *instFlag {
	f := &instFlag{}
	usage := "`INST_ID` or range A-B of the result sets to " + what + "; repeat or separate with commas"
	if dflt != "" {
		usage += " (default: " + dflt + ")"
	}
	cmd.Flags().StringSliceVar(&f.specs, "inst", nil, usage) // pflag prints no "(default [])": the usage says it
	return f
}

// given reports whether --inst was given.
func (f *instFlag) given() bool { return len(f.specs) > 0 }

// selection parses --inst; a value that is no INST_ID or range is a usage
// error.
func (f *instFlag) selection() (store.Selection, error) {
	sel, err := store.ParseSelection(f.specs)
	if err != nil {
		return store.Selection{}, usageErrorf("--inst %v", err)
	}
	return sel, nil
}

// pick returns the INST_IDs --inst selects among those db holds,
// ascending, each once; nil when --inst is not given. Only the INSTANCES
// rows it names are read (store.DB.Select).
func (f *instFlag) pick(ctx context.Context, db *store.DB) ([]int64, error) {
	if !f.given() {
		return nil, nil
	}
	sel, err := f.selection()
	if err != nil {
		return nil, err
	}
	ids, _, err := db.Named(ctx, sel)
	return ids, err
}
