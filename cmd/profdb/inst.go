package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

// instFlag is --inst, the same in every command that takes it (copy,
// delete, report, verify): a list of result sets as selector.ParseList
// reads it, INST_IDs (7), ranges A-B (3-7: the result sets between A and
// B, both included, that the database holds) and selectors (latest,
// branch:main~1, …: docs/selectors.md), repeated or separated by commas
// (--inst 3,5 --inst 10-20 --inst latest). An INST_ID the database does
// not hold, a range that holds none or a selector that matches nothing is
// an error (exit 2), and so is a value that is none of these (a usage
// error).
type instFlag struct{ values []string }

// addInstFlag adds --inst to cmd, selecting the result sets to what (e.g.
// "copy") and, when none is given, those of dflt ("all").
func addInstFlag(cmd *cobra.Command, what, dflt string) *instFlag {
	f := &instFlag{}
	usage := "`INST_ID`, range A-B or selector (latest, branch:NAME, …) of the result sets to " + what + "; repeat or separate with commas"
	if dflt != "" {
		usage += " (default: " + dflt + ")"
	}
	// A string array: the commas are selector.ParseList's to split, with
	// no quoting (pflag's string slice reads a value as CSV).
	cmd.Flags().StringArrayVar(&f.values, "inst", nil, usage) // pflag prints no "(default [])": the usage says it
	return f
}

// given reports whether --inst was given.
func (f *instFlag) given() bool { return len(f.values) > 0 }

// items parses --inst; a value that names no result set is a usage error.
func (f *instFlag) items() ([]selector.Item, error) {
	items, err := selector.ParseList(f.values)
	if err != nil {
		return nil, usageErrorf("--inst %v", err)
	}
	return items, nil
}

// selection returns the result sets --inst names, its selectors resolved
// in db (selector.Resolver.Selection); empty when --inst is not given.
func (f *instFlag) selection(ctx context.Context, db *store.DB) (store.Selection, error) {
	items, err := f.items()
	if err != nil {
		return store.Selection{}, err
	}
	sel, err := resolver(db).Selection(ctx, items)
	if err != nil {
		return store.Selection{}, selectorError("--inst", err)
	}
	return sel, nil
}

// pick returns the INST_IDs --inst selects among those db holds,
// ascending, each once; nil when --inst is not given. Only the INSTANCES
// rows it names are read (store.DB.Named), and PROFDB_RESULT_SETS for
// selectors.
func (f *instFlag) pick(ctx context.Context, db *store.DB) ([]int64, error) {
	if !f.given() {
		return nil, nil
	}
	sel, err := f.selection(ctx, db)
	if err != nil {
		return nil, err
	}
	ids, _, err := db.Named(ctx, sel)
	return ids, err
}

// resolver is the selector.Resolver of db, reading git in the working
// directory.
func resolver(db *store.DB) *selector.Resolver { return &selector.Resolver{DB: db} }

// parseSelector parses a result set named on the command line (an INST_ID
// or a selector); what else is a usage error saying what names one.
func parseSelector(what, text string) (selector.Selector, error) {
	s, err := selector.Parse(text)
	if err != nil {
		return selector.Selector{}, usageErrorf("%s: %v", what, err)
	}
	return s, nil
}

// selectorError prefixes err, an error resolving a selector, with what
// (a command or flag).
func selectorError(what string, err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return usageErrorf("%s: %v (ancestor: needs git)", what, err)
	}
	if errors.Is(err, selector.ErrFirst) {
		return usageError{fmt.Errorf("%s: %w", what, err)}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// resolveFirst resolves the result set a command names first (show's,
// check's, compare's A).
func resolveFirst(ctx context.Context, db *store.DB, what string, s selector.Selector) (store.Listing, error) {
	l, err := resolver(db).Resolve(ctx, s)
	if err != nil {
		return store.Listing{}, selectorError(what, err)
	}
	return l, nil
}

// resolveSecond resolves the result set a command sets beside first
// (compare's B, check's --baseline, report --compare's B): among first's
// profiler, first counted (selector.Resolver.Second); a selector with ~N
// that names first itself is a usage error.
func resolveSecond(ctx context.Context, db *store.DB, what string, s selector.Selector, first store.Listing) (store.Listing, error) {
	l, err := resolver(db).Second(ctx, s, first)
	if err != nil {
		return store.Listing{}, selectorError(what, err)
	}
	return l, nil
}
