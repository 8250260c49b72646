package main

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/store"
)

// filterFlags are the flags that choose result sets by what profdb
// recorded of them (store.Filter): list and trend share them.
type filterFlags struct {
	cmd      string
	profiler string
	branch   string
	commit   string
	labels   []string
	since    string
	caption  string
	last     int
}

// addFilterFlags adds --profiler, --branch, --commit, --label, --since,
// --caption and --last to cmd; last is --last's default (0: all).
func addFilterFlags(cmd *cobra.Command, last int) *filterFlags {
	ff := &filterFlags{cmd: cmd.Name()}
	f := cmd.Flags()
	f.StringVar(&ff.profiler, "profiler", "", "only result sets of this profiler ("+strings.Join(profilers.Names(), ", ")+")")
	f.StringVar(&ff.branch, "branch", "", "only result sets of runs on this branch")
	f.StringVar(&ff.commit, "commit", "", "only result sets of runs of the commit whose name begins with this `PREFIX` of "+strconv.Itoa(runid.MinCommitPrefix)+" or more hexadecimal digits")
	f.StringArrayVar(&ff.labels, "label", nil, "only result sets with this label, `KEY=VALUE` as export --label takes it (repeatable, one value per KEY: all must hold)")
	f.StringVar(&ff.since, "since", "", "only result sets exported at or after this time: a date (2006-01-02, UTC), an RFC 3339 time, or a duration ago (72h, 30d)")
	f.StringVar(&ff.caption, "caption", "", "only result sets whose caption contains this `TEXT` (case-blind; % and _ are plain characters)")
	minIntVar(f, &ff.last, "last", last, 0, "0 (all) or more", "", "only the newest `N` result sets (0: all)")
	return ff
}

// filter returns the store.Filter the flags describe (store.FilterText's
// rule), or a usage error that names the flag at fault. now is the time a
// duration counts back from.
func (ff *filterFlags) filter(now time.Time) (store.Filter, error) {
	t := store.FilterText{Profiler: ff.profiler, Branch: ff.branch, Commit: ff.commit, Labels: ff.labels, Since: ff.since, Caption: ff.caption, Last: ff.last}
	f, err := t.Filter(now)
	var oe *optionerr.Error
	if errors.As(err, &oe) {
		return f, usageErrorf("%s: %s", ff.cmd, oe.Phrase(func(field string) string { return "--" + filterFlagOf[field] }))
	}
	return f, err
}

// filterFlagOf is the flag that sets each store.FilterText field.
var filterFlagOf = map[string]string{"Profiler": "profiler", "Branch": "branch", "Commit": "commit", "Labels": "label", "Since": "since", "Caption": "caption", "Last": "last"}

// parseSince reads --since (store.ParseSince).
func parseSince(s string, now time.Time) (time.Time, error) { return store.ParseSince(s, now) }
