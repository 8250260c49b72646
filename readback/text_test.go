package readback_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/internal/goldentest"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

// A Go user rendering a Summary gets the text and JSON `profdb show` prints
// (cmd/profdb's TestShowIsTheLibrarys checks the command against the
// library): every profiler's tables, at a wide and a narrow width (long
// names cut keeping their end), with lists cut short by Options.Top.
func TestSummaryTextAndJSON(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	ids := exportExamples(t, dsn)
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for profiler, inst := range ids {
		for _, top := range []int{20, 2} {
			s, err := r.Summarize(ctx, inst, readback.Options{Top: top})
			if err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{100, 50} {
				var b bytes.Buffer
				if err := s.WriteText(&b, width); err != nil {
					t.Fatal(err)
				}
				goldentest.Check(t, fmt.Sprintf("show/%s-top%d-w%d.txt", profiler, top, width), b.Bytes(), *update)
			}
			var b bytes.Buffer
			if err := s.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			goldentest.Check(t, fmt.Sprintf("show/%s-top%d.json", profiler, top), b.Bytes(), *update)
		}
	}
}

// show names the run under its head line (commit, +dirty, branch, CI,
// build, URL; labels and merge sources on a second line), and --json gives
// it as the instance's "run"; text from the database is escaped there
// as names are, and given back exactly in JSON. A result set without an
// identity has no such line (the goldens of TestSummaryTextAndJSON).
func TestSummaryNamesTheRun(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	dirty := true
	run := &resultset.Run{Commit: "0123456789abcdef0123456789abcdef01234567", Branch: "feature/\x1b]0;pwned\a<b>", Dirty: &dirty,
		CI: "github-actions", BuildID: "7134", BuildURL: "https://github.com/acme/calc/actions/runs/7134",
		Labels: map[string]string{"suite": "unit", "os": "linux\u202e"}, MergedFrom: []int64{3, 5}}
	inst, err := exampletest.ExportRun(ctx, "..", dsn, "light-coverage", run)
	if err != nil {
		t.Fatal(err)
	}
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Summarize(ctx, inst, readback.Options{Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Instance.Run, run) {
		t.Errorf("Summarize read the run as %+v, want %+v", s.Instance.Run, run)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b, 100); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "show/light-coverage-run-top2-w100.txt", b.Bytes(), *update)
	if strings.ContainsAny(b.String(), "\x1b\a\u202e") {
		t.Errorf("show printed a control character from the database:\n%q", b.String())
	}
	b.Reset()
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "show/light-coverage-run-top2.json", b.Bytes(), *update)
	var back struct {
		Instance struct {
			Run *resultset.Run `json:"run"`
		} `json:"instance"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Instance.Run, run) {
		t.Errorf("show --json gives the run as %+v, want %+v", back.Instance.Run, run)
	}
}

func TestRunLines(t *testing.T) {
	clean, dirty := false, true
	for _, c := range []struct {
		run  *resultset.Run
		head string
		want []string
	}{
		{nil, "", nil},
		{&resultset.Run{}, "", nil},
		{&resultset.Run{Commit: "0123456789abcdef0123456789abcdef01234567", Dirty: &clean, Branch: "main", CI: "git"},
			"commit 0123456789ab  branch main", []string{"Run: commit 0123456789ab  branch main  ci git"}},
		{&resultset.Run{Commit: "0123456789abcdef0123456789abcdef01234567", Dirty: &dirty, BuildURL: "javascript:alert(1)"},
			"commit 0123456789ab+dirty", []string{"Run: commit 0123456789ab+dirty  javascript:alert(1)"}},
		{&resultset.Run{Branch: `"quoted"`, BuildID: "9\n", Labels: map[string]string{"b": "2", "a": "1"}},
			`branch "\"quoted\""`, []string{`Run: branch "\"quoted\""  build "9\n"`, "     labels a=1,b=2"}},
		{&resultset.Run{MergedFrom: []int64{1, 2}}, "", []string{"Run: merged from INST_ID 1, 2"}},
	} {
		if got := readback.RunHead(c.run); got != c.head {
			t.Errorf("RunHead(%+v) = %q, want %q", c.run, got, c.head)
		}
		if got := readback.RunLines(c.run); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RunLines(%+v) = %q, want %q", c.run, got, c.want)
		}
	}
}

// TestRunLinesBounded: a run's identity as another tool may have written
// it, 10,000 labels and values of a megabyte, prints as a few lines: each
// value cut (termtext.Field), runid.MaxLabels labels and how many more.
func TestRunLinesBounded(t *testing.T) {
	labels := map[string]string{}
	for i := 0; i < 10000; i++ {
		labels[fmt.Sprintf("k%05d", i)] = fmt.Sprint(i)
	}
	mb := strings.Repeat("m", 1<<20)
	run := &resultset.Run{Commit: mb, Branch: mb, CI: mb, BuildID: mb, BuildURL: mb, Labels: labels}
	got := readback.RunLines(run)
	text := strings.Join(got, "\n")
	if len(got) != 2 || len(text) > 4000 {
		t.Fatalf("RunLines: %d lines, %d bytes", len(got), len(text))
	}
	want := "     labels k00000=0,k00001=1,k00002=2,k00003=3,k00004=4,k00005=5,k00006=6,k00007=7,k00008=8,k00009=9,k00010=10," +
		"k00011=11,k00012=12,k00013=13,k00014=14,k00015=15,… and 9,984 more labels"
	if got[1] != want {
		t.Errorf("labels line:\n%s\nwant\n%s", got[1], want)
	}
	if !strings.Contains(got[0], "branch "+strings.Repeat("m", termtext.QuoteRunes)+"…  ") {
		t.Errorf("the branch is not cut: %.400s", got[0])
	}
	long := readback.LabelText(map[string]string{"a": mb, "b": "2"})
	if want := "a=" + strings.Repeat("m", termtext.QuoteRunes-2) + "…,b=2"; long != want {
		t.Errorf("LabelText of a 1 MiB value: %.300s…, want %.300s…", long, want)
	}
}
