package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/store"
)

// listFilter are list's flags that choose result sets.
type listFilter struct {
	branch, profiler, since string
	labels                  []string
	last                    int
}

// given reports whether any filter was given.
func (f *listFilter) given() bool {
	return f.branch != "" || f.profiler != "" || f.since != "" || len(f.labels) > 0 || f.last > 0
}

// filter returns the store.Filter of the flags; a value that means nothing
// is a usage error. now is the time --since's durations count back from.
func (f *listFilter) filter(now time.Time) (store.Filter, error) {
	out := store.Filter{Branch: f.branch, Profiler: f.profiler, Last: f.last, Counted: true}
	if f.profiler != "" {
		if _, err := profilers.Lookup(f.profiler); err != nil {
			return store.Filter{}, usageErrorf("list: --profiler: %v", err)
		}
	}
	for _, kv := range f.labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return store.Filter{}, usageErrorf("list: --label %s: want KEY=VALUE", termtext.Short(kv))
		}
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[k] = v
	}
	if f.since != "" {
		t, err := parseSince(f.since, now)
		if err != nil {
			return store.Filter{}, usageErrorf("list: --since: %v", err)
		}
		out.Since = t.UTC().Format(store.TimeFormat)
	}
	return out, nil
}

// parseSince parses --since: a date (2026-01-31, midnight UTC), a time in
// RFC 3339, or an age (90m, 36h, 7d, 2w) counted back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	age, err := parseAge(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date (2026-01-31), a time (2026-01-31T12:00:00Z) or an age (90m, 36h, 7d, 2w)", s)
	}
	return now.Add(-age), nil
}

func newListCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var lf listFilter
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "list [--db DSN] [--branch B] [--label KEY=VALUE]... [--profiler P] [--since WHEN] [--last N] [--json]",
		Short: "List the result sets in a database",
		Long: `list prints the result sets in INSTANCES: each one's INST_ID, profiler (found
from its RELATIONS rows), row count and caption, and, where the database has
profdb's own PROFDB_RESULT_SETS table, when it was exported (UTC), on which
host, by which profdb version and from what input ("-" where not recorded).

The filters choose result sets by what profdb recorded at export, and
combine: --branch the branch, --label KEY=VALUE a label (repeat for more,
all must match), --profiler the profiler, --since the export time (a date,
2026-01-31, from midnight UTC; a time in RFC 3339; or an age, 90m, 36h, 7d,
2w, counted back from now), --last N the newest N of those. With a filter,
list reads only the result sets it prints (their rows are counted, no
others'), prints the commit and branch of each, and --json gives each one's
"run" (commit, branch, CI, build, labels). A database without
PROFDB_RESULT_SETS records no branch, label or time: only --profiler and
--last find result sets there.`,
		Example: `  profdb list
  profdb list --branch main --last 20
  profdb list --label suite=unit --since 7d --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("last") && lf.last < 1 {
				return usageErrorf("--last must be at least 1, not %d", lf.last)
			}
			var f store.Filter
			if lf.given() {
				var err error
				if f, err = lf.filter(time.Now()); err != nil {
					return err
				}
			}
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			var list []store.Listing
			if lf.given() {
				list, err = db.Select(cmd.Context(), f)
			} else {
				list, err = db.List(cmd.Context())
			}
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []store.Listing{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			return printListing(cmd.OutOrStdout(), list)
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVar(&lf.branch, "branch", "", "only the result sets of this branch")
	f.StringArrayVar(&lf.labels, "label", nil, "only the result sets with this label, as `KEY=VALUE` (repeat: all must match)")
	f.StringVar(&lf.profiler, "profiler", "", "only the result sets of this profiler")
	f.StringVar(&lf.since, "since", "", "only the result sets exported since `WHEN`: a date, an RFC 3339 time, or an age (7d)")
	f.IntVar(&lf.last, "last", 0, "only the newest `N` result sets (of those the other filters choose; at least 1)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

// printListing prints the result sets as a table. What PROFDB_RESULT_SETS
// records is shown when the database has it for any result set, and the
// commit (its first 12 digits) and branch when any result set has them.
// Names from the database are printed as termtext.Name prints them,
// captions quoted.
func printListing(w io.Writer, list []store.Listing) error {
	recorded := slices.ContainsFunc(list, func(l store.Listing) bool { return l.ExportedAt != "" })
	identity := slices.ContainsFunc(list, func(l store.Listing) bool {
		return l.Run != nil && (l.Run.Commit != "" || l.Run.Branch != "")
	})
	head := []string{"INST_ID", "PROFILER", "ROWS"}
	if recorded {
		head = append(head, "EXPORTED (UTC)", "HOST", "VERSION", "INPUT")
	}
	if identity {
		head = append(head, "COMMIT", "BRANCH")
	}
	lines := [][]string{append(head, "CAPTION")}
	name := termtext.Name
	for _, l := range list {
		p := l.Profiler
		if p == "" {
			p = "?"
		}
		line := []string{itoa(l.InstID), name(p), itoa(l.Rows)}
		if recorded {
			version, _, _ := strings.Cut(l.Version, " ")
			line = append(line, name(textout.OrDash(strings.TrimSuffix(strings.Replace(l.ExportedAt, "T", " ", 1), "Z"))),
				name(textout.OrDash(l.Host)), name(textout.OrDash(version)), name(textout.OrDash(l.Input)))
		}
		if identity {
			var commit, branch string
			if l.Run != nil {
				commit, branch = l.Run.Commit, l.Run.Branch
				if len(commit) > 12 {
					commit = commit[:12]
				}
			}
			line = append(line, name(textout.OrDash(commit)), name(textout.OrDash(branch)))
		}
		lines = append(lines, append(line, termtext.Quote(l.Caption)))
	}
	return textout.Columns(w, lines)
}
