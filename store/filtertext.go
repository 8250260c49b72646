package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers"
)

// FilterText is a Filter as a person writes it: the values of list's and
// trend's --profiler, --branch, --commit, --label, --since, --caption and --last,
// or of the same query parameters of profdb serve. Filter reads it, the
// one rule for both.
type FilterText struct {
	Profiler string   // a registered profiler's name
	Branch   string   // the exact branch name
	Commit   string   // a commit prefix (runid.ParseCommitPrefix)
	Labels   []string // KEY=VALUE each (runid.ParseLabels)
	Since    string   // a date (UTC), an RFC 3339 time or an age before now (ParseAge)
	Caption  string   // text the caption contains (Filter.Caption)
	Last     int      // the newest N; 0 for all
}

// Filter returns the Filter t describes; now is the time an age counts
// back from. An error is an *optionerr.Error naming the FilterText field
// at fault.
func (t FilterText) Filter(now time.Time) (Filter, error) {
	const typ = "store.FilterText"
	f := Filter{Profiler: t.Profiler, Branch: t.Branch, Commit: t.Commit, Caption: t.Caption, Last: t.Last}
	if t.Last < 0 {
		return f, optionerr.New(nil, typ, "%s must be 0 (all) or more", "Last")
	}
	if f.Profiler != "" {
		if _, err := profilers.Lookup(f.Profiler); err != nil {
			return f, optionerr.New(nil, typ, "%s: "+verbless(err.Error()), "Profiler")
		}
	}
	if f.Commit != "" {
		p, err := runid.ParseCommitPrefix(f.Commit)
		if err != nil {
			return f, optionerr.New(nil, typ, "%s "+verbless(err.Error()), "Commit")
		}
		f.Commit = p
	}
	labels, err := runid.ParseLabels(t.Labels)
	if err != nil {
		return f, optionerr.New(nil, typ, "%s: "+verbless(err.Error()), "Labels")
	}
	f.Labels = labels
	if t.Since != "" {
		s, err := ParseSince(t.Since, now)
		if err != nil {
			return f, optionerr.New(nil, typ, "%s: "+verbless(termtext.Short(t.Since))+" is not a date (2006-01-02), an RFC 3339 time or a duration (72h, 30d)", "Since")
		}
		f.Since = s.UTC().Format(TimeFormat)
	}
	return f, nil
}

// verbless escapes the % of text for an optionerr message.
func verbless(text string) string { return strings.ReplaceAll(text, "%", "%%") }

// ParseSince reads a time as --since takes it: a date (midnight UTC), an
// RFC 3339 time, or an age before now (ParseAge: 90m, 36h, 30d, 2w).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	age, err := ParseAge(s)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-age), nil
}

// ParseAge reads an age as delete --older-than and --since take it: a Go
// duration (90m, 36h), or a whole number of days or weeks (30d, 2w).
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseUint(n, 10, 31)
			if err != nil {
				return 0, fmt.Errorf("%q is not an age (90m, 36h, 30d, 2w)", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age (90m, 36h, 30d, 2w)", s)
	}
	return d, nil
}
