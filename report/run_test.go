package report_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/report"
)

// TestReportNamesEachRun: each result set's page names its run as show
// does — commit (its 12 digits, the whole name in the title), branch, CI,
// build, labels, what a merge combined — with text from the database
// escaped, and the build linked only when its URL is http(s): the first
// coverage run's javascript: URL is neither a link nor shown.
func TestReportNamesEachRun(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	h, err := trendtest.Export(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	first, second := h.Coverage[0], h.Coverage[1]
	db := dbtest.Open(t, dsn)
	for _, q := range []string{
		fmt.Sprintf(`UPDATE PROFDB_RESULT_SETS SET VCS_BRANCH = '<script>alert(1)</script>' || char(27) || '[2J', VCS_DIRTY = 1 WHERE INST_ID = %d`, second),
		fmt.Sprintf(`INSERT INTO PROFDB_LABELS (INST_ID, LABEL_KEY, LABEL_VALUE) VALUES (%d, 'os', '"><img src=x onerror=alert(2)>')`, second),
		fmt.Sprintf(`INSERT INTO PROFDB_MERGE_SOURCES (INST_ID, SOURCE_INST_ID) VALUES (%d, %d), (%d, %d)`, second, h.Trace[1], second, h.Trace[0]),
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	page := render(t, dsn, report.Options{Inst: []int64{first, second, h.Trace[0]}})
	run := func(inst int64) string {
		return between(between(page, fmt.Sprintf(`id="view-inst-%d"`, inst), "</section>"), `<div class="meta run">`, "</div>")
	}
	if got := run(first); got == "" || strings.Contains(got, "<a ") || strings.Contains(got, "javascript:") ||
		!strings.Contains(got, `<span class="id">build 1</span>`) || !strings.Contains(got, "branch <span class=\"branch\">main</span>") {
		t.Errorf("the first coverage run (javascript: URL) is shown as\n%s", got)
	}
	got := run(second)
	for _, want := range []string{
		`commit <code class="commit" title="`,
		`</code>+dirty</span>`,
		`branch <span class="branch">&#34;&lt;script&gt;alert(1)&lt;/script&gt;\x1b[2J&#34;</span>`,
		`<span class="id">ci github-actions</span>`,
		`<span class="id"><a class="build" href="https://ci.example/build/2?a=1&amp;b=%3c2%3e" rel="noopener noreferrer">build 2</a></span>`,
		`labels <span class="labels">os=&#34;&gt;&lt;img src=x onerror=alert(2)&gt;,suite=unit</span>`,
		fmt.Sprintf(`merged from INST_ID %d, %d</span>`, h.Trace[0], h.Trace[1]),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the second coverage run's line lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range []string{"<script>alert", "<img", "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if run(h.Trace[0]) == "" {
		t.Errorf("the trace's page names no run")
	}
}
