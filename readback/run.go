package readback

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/profdb/profdb/internal/runid"
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

// LabelText is a run's labels as list, show and report print them:
// KEY=VALUE, sorted by key, comma-separated, each cut to
// termtext.QuoteRunes characters (termtext.Cut), as termtext.Field cuts a
// value; "" for none. It shows runid.MaxLabels of them, every label of a
// run profdb wrote; a run that another tool gave more ends in "… and
// 9,984 more labels". JSON output holds them all, whole.
func LabelText(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	shown := keys[:min(len(keys), runid.MaxLabels)]
	out := make([]string, len(shown))
	for i, k := range shown {
		out[i] = termtext.Cut(k+"="+termtext.Cut(labels[k], termtext.QuoteRunes), termtext.QuoteRunes)
	}
	text := strings.Join(out, ",")
	if more := len(keys) - len(shown); more > 0 {
		text += ",… and " + humanize.Comma(int64(more)) + " more labels"
	}
	return text
}

// RunHead names a run's commit and branch as show and compare print
// them: "commit 0123456789ab+dirty  branch main", each where recorded (the
// commit's first 12 digits, "+dirty" when the tree had changes not
// committed); "" when neither is (or run is nil). The branch is printed as
// termtext.Field prints a value: escaped, a long one cut.
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
		parts = append(parts, "branch "+termtext.Field(run.Branch))
	}
	return strings.Join(parts, "  ")
}

// RunLines are the lines of show's head that name the run, none when
// nothing is recorded: "Run: " then the commit and branch (RunHead), the
// CI, the build's ID and URL; then, indented under it, the labels
// (LabelText) and the INST_IDs a merge combined. Text from the database
// is printed as termtext.Field prints a value: escaped, a long one cut.
func RunLines(run *resultset.Run) []string {
	if run == nil {
		return nil
	}
	var first, second []string
	if h := RunHead(run); h != "" {
		first = append(first, h)
	}
	if run.CI != "" {
		first = append(first, "ci "+termtext.Field(run.CI))
	}
	if run.BuildID != "" {
		first = append(first, "build "+termtext.Field(run.BuildID))
	}
	if run.BuildURL != "" {
		first = append(first, termtext.Field(run.BuildURL))
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
