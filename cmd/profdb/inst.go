package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

// instFlag is --inst, the same in every command that takes it (copy,
// delete, report, verify): an INST_ID (7), a range A-B (3-7: the result
// sets between A and B, both included, that the database holds) or a
// selector (latest, branch:main~1, …: docs/selectors.md), repeated or
// separated by commas (--inst 3,5 --inst 10-20 --inst latest). An INST_ID
// the database does not hold, a range that holds none or a selector that
// matches nothing is an error (exit 2), and so is a value that is none of
// these (a usage error).
type instFlag struct{ specs []string }

// addInstFlag adds --inst to cmd, selecting the result sets to what (e.g.
// "copy") and, when none is given, those of dflt ("all").
func addInstFlag(cmd *cobra.Command, what, dflt string) *instFlag {
	f := &instFlag{}
	usage := "`INST_ID`, range A-B or selector (latest, branch:NAME, …) of the result sets to " + what + "; repeat or separate with commas"
	if dflt != "" {
		usage += " (default: " + dflt + ")"
	}
	cmd.Flags().StringSliceVar(&f.specs, "inst", nil, usage) // pflag prints no "(default [])": the usage says it
	return f
}

// given reports whether --inst was given.
func (f *instFlag) given() bool { return len(f.specs) > 0 }

// split parts --inst's values into INST_IDs and ranges, and selectors
// (anything that is neither), parsed.
func (f *instFlag) split() (numeric []string, sels []selector.Selector, err error) {
	for _, spec := range f.specs {
		if _, err := store.ParseSelection([]string{spec}); err == nil {
			numeric = append(numeric, spec)
			continue
		}
		s, err := selector.Parse(spec)
		if err != nil {
			if !strings.ContainsAny(spec, ":~") {
				return nil, nil, usageErrorf("--inst %q: want an INST_ID (1, 2, ...) or a range A-B with A <= B, or a selector (%s)", strings.TrimSpace(spec), selectorForms)
			}
			return nil, nil, usageErrorf("--inst %v", err)
		}
		sels = append(sels, s)
	}
	return numeric, sels, nil
}

// selection parses --inst's INST_IDs and ranges, and checks its selectors;
// a value that is none of these is a usage error. The selectors are
// resolved by resolve.
func (f *instFlag) selection() (store.Selection, error) {
	numeric, _, err := f.split()
	if err != nil {
		return store.Selection{}, err
	}
	sel, err := store.ParseSelection(numeric)
	if err != nil {
		return store.Selection{}, usageErrorf("--inst %v", err)
	}
	return sel, nil
}

// resolve adds the INST_IDs of --inst's selectors to sel.IDs.
func (f *instFlag) resolve(ctx context.Context, db *store.DB, sel *store.Selection) error {
	_, sels, err := f.split()
	if err != nil {
		return err
	}
	r := resolver(db)
	for _, s := range sels {
		l, err := r.Resolve(ctx, s)
		if err != nil {
			return selectorError("--inst", err)
		}
		sel.IDs = append(sel.IDs, l.InstID)
	}
	return nil
}

// pick returns the INST_IDs --inst selects among those db holds,
// ascending, each once; nil when --inst is not given. Only the INSTANCES
// rows it names are read (store.DB.Select), and PROFDB_RESULT_SETS for
// selectors.
func (f *instFlag) pick(ctx context.Context, db *store.DB) ([]int64, error) {
	if !f.given() {
		return nil, nil
	}
	sel, err := f.selection()
	if err != nil {
		return nil, err
	}
	if err := f.resolve(ctx, db, &sel); err != nil {
		return nil, err
	}
	ids, _, err := db.Named(ctx, sel)
	return ids, err
}

// selectorForms lists the forms of a selector, for usage errors.
const selectorForms = "latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV"

// resolver is the selector.Resolver of db, reading git in the working
// directory.
func resolver(db *store.DB) *selector.Resolver { return &selector.Resolver{DB: db} }

// parseSelector parses a result set named on the command line (an INST_ID
// or a selector); what else is a usage error saying what names one.
func parseSelector(what, text string) (selector.Selector, error) {
	s, err := selector.Parse(text)
	if err != nil && !strings.ContainsAny(text, ":~") {
		return selector.Selector{}, usageErrorf("%s: INST_ID must be a positive integer or a selector (%s), not %q", what, selectorForms, text)
	}
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
