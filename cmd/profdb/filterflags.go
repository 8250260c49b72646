package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/internal/termtext"
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
	last     int
}

// addFilterFlags adds --profiler, --branch, --commit, --label, --since and
// --last to cmd; last is --last's default (0: all).
func addFilterFlags(cmd *cobra.Command, last int) *filterFlags {
	ff := &filterFlags{cmd: cmd.Name()}
	f := cmd.Flags()
	f.StringVar(&ff.profiler, "profiler", "", "only result sets of this profiler ("+strings.Join(profilers.Names(), ", ")+")")
	f.StringVar(&ff.branch, "branch", "", "only result sets of runs on this branch")
	f.StringVar(&ff.commit, "commit", "", "only result sets of runs of the commit whose name begins with this `PREFIX` of "+strconv.Itoa(runid.MinCommitPrefix)+" or more hexadecimal digits")
	f.StringArrayVar(&ff.labels, "label", nil, "only result sets with this label, `KEY=VALUE` as export --label takes it (repeatable, one value per KEY: all must hold)")
	f.StringVar(&ff.since, "since", "", "only result sets exported at or after this time: a date (2006-01-02, UTC), an RFC 3339 time, or a duration ago (72h, 30d)")
	minIntVar(f, &ff.last, "last", last, 0, "0 (all) or more", "", "only the newest `N` result sets (0: all)")
	return ff
}

// filter returns the store.Filter the flags describe, or a usage error
// that names the flag at fault. now is the time a duration counts back
// from.
func (ff *filterFlags) filter(now time.Time) (store.Filter, error) {
	f := store.Filter{Profiler: ff.profiler, Branch: ff.branch, Commit: ff.commit, Last: ff.last}
	if f.Profiler != "" {
		if _, err := profilers.Lookup(f.Profiler); err != nil {
			return f, usageErrorf("%s: --profiler: %v", ff.cmd, err)
		}
	}
	if f.Commit != "" {
		p, err := runid.ParseCommitPrefix(f.Commit)
		if err != nil {
			return f, usageErrorf("%s: --commit %v", ff.cmd, err)
		}
		f.Commit = p
	}
	labels, err := runid.ParseLabels(ff.labels)
	if err != nil {
		return f, usageErrorf("%s: --label: %v", ff.cmd, err)
	}
	f.Labels = labels
	if ff.since != "" {
		t, err := parseSince(ff.since, now)
		if err != nil {
			return f, usageErrorf("%s: --since: %s is not a date (2006-01-02), an RFC 3339 time or a duration (72h, 30d)", ff.cmd, termtext.Short(ff.since))
		}
		f.Since = t.UTC().Format(store.TimeFormat)
	}
	return f, nil
}

// parseSince reads --since: a date (midnight UTC), an RFC 3339 time, or
// an age before now as --older-than takes it (parseAge: 90m, 36h, 30d,
// 2w).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	age, err := parseAge(s)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-age), nil
}
