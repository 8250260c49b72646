package readback

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/resultset"
)

// Runs returns the identity profdb recorded of each result set ids names,
// by INST_ID (store.Catalog.Runs: commit, branch, CI, build, labels, and
// what a merge combined), read in the reader's snapshot by INST_ID. A
// result set with nothing recorded has no entry; a database without
// profdb's own tables (one AQTime wrote) gives none.
func (r *Reader) Runs(ctx context.Context, ids ...int64) (map[int64]*resultset.Run, error) {
	runs, err := r.cat.Runs(ctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return runs, nil
}

// ShortCommit is a commit's object name as profdb's text and pages print
// it: its first 12 digits.
func ShortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// LabelText is a run's labels as list and show print them: KEY=VALUE,
// sorted, comma-separated; "" for none.
func LabelText(labels map[string]string) string {
	out := make([]string, 0, len(labels))
	for k, v := range labels {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// RunHead names a run's commit and branch as show and compare print
// them: "commit 0123456789ab+dirty  branch main", each where recorded (the
// commit's first 12 digits, "+dirty" when the tree had changes not
// committed); "" when neither is (or run is nil). The branch is printed as
// termtext.Name prints a name.
func RunHead(run *resultset.Run) string {
	if run == nil {
		return ""
	}
	var parts []string
	if run.Commit != "" {
		c := termtext.Name(ShortCommit(run.Commit))
		if run.Dirty != nil && *run.Dirty {
			c += "+dirty"
		}
		parts = append(parts, "commit "+c)
	}
	if run.Branch != "" {
		parts = append(parts, "branch "+termtext.Name(run.Branch))
	}
	return strings.Join(parts, "  ")
}

// RunLines are the lines of show's head that name the run, none when
// nothing is recorded: "Run: " then the commit and branch (RunHead), the
// CI, the build's ID and URL; then, indented under it, the labels
// (LabelText) and the INST_IDs a merge combined. Text from the database
// is printed as termtext.Name prints a name.
func RunLines(run *resultset.Run) []string {
	if run == nil {
		return nil
	}
	var first, second []string
	if h := RunHead(run); h != "" {
		first = append(first, h)
	}
	if run.CI != "" {
		first = append(first, "ci "+termtext.Name(run.CI))
	}
	if run.BuildID != "" {
		first = append(first, "build "+termtext.Name(run.BuildID))
	}
	if run.BuildURL != "" {
		first = append(first, termtext.Name(run.BuildURL))
	}
	if len(run.Labels) > 0 {
		second = append(second, "labels "+termtext.Name(LabelText(run.Labels)))
	}
	if len(run.MergedFrom) > 0 {
		ids := make([]string, len(run.MergedFrom))
		for i, id := range run.MergedFrom {
			ids[i] = strconv.FormatInt(id, 10)
		}
		second = append(second, "merged from INST_ID "+strings.Join(ids, ", "))
	}
	var out []string
	for _, parts := range [][]string{first, second} {
		if len(parts) == 0 {
			continue
		}
		lead := "Run: "
		if len(out) > 0 {
			lead = "     "
		}
		out = append(out, lead+strings.Join(parts, "  "))
	}
	return out
}
