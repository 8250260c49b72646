package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/store"
)

// check --format markdown end to end on SQLite: the pull-request comment
// of checkFixture's result sets, for coverage rules that fail, rules that
// hold and a time rule, with the exit status of the other formats; the
// comment is the library's (gate.Report.WriteMarkdown) of the report
// --format json prints.
func TestCheckMarkdown(t *testing.T) {
	dsn := sqliteDSN(t)
	s := checkFixture(t, dsn)
	diff := tempFile(t, "change.diff", checkDiff)
	now, base := itoa64(s.covNow), itoa64(s.covBase)
	tn, tb := itoa64(s.timeNow), itoa64(s.timeBase)
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"coverage fails", []string{now, "--min-coverage", "40", "--baseline", base, "--max-drop", "1", "--diff", diff, "--min-patch-coverage", "50"}, 1, []string{
			"### ❌ profdb check failed: 2 of 3 rules failed\n\nResult set " + now + " (`light-coverage`) against baseline " + base + ".\n",
			"| min-coverage | ≥ 40% | 50.0% (6 of 12 lines) | ✅ pass |\n",
			"| max-drop | ≤ 1 pt drop | 37.5 pt drop (87.5% → 50.0%) | ❌ fail |\n",
			"| patch-coverage | ≥ 50% | 14.3% (1 of 7 changed lines) | ❌ fail |\n",
			"1 of 7 coverable changed lines ran: **14.3%**.\n\nUncovered changed lines:\n\n- `calc/calc.go`: 11–12, 22–24\n- `new.go`: 3–4\n",
			"Changed files the result set does not name (not counted): `README.md`\n",
			"#### Files that lost most coverage against baseline " + base + "\n",
			"| `example.com/m/calc/calc.go` | 100.0% | 50.0% | -50.0 | +4 |\n| `example.com/m/new.go` | - | 0.0% | - | +2 |\n",
		}},
		{"coverage holds, the diff reported", []string{now, "--min-coverage", "50", "--diff", diff, "--top", "1", "--max-ranges", "1"}, 0, []string{
			"### ✅ profdb check passed: all 2 rules hold\n\nResult set " + now + " (`light-coverage`).\n",
			"| patch-coverage | ≥ 0% | 14.3% (1 of 7 changed lines) | ✅ pass |\n",
			"- `calc/calc.go`: 11–12\n\n… and 2 more ranges\n",
		}},
		{"time fails", []string{tn, "--baseline", tb, "--max-time-increase", "10"}, 1, []string{
			"### ❌ profdb check failed: the rule failed\n",
			"| max-time-increase | ≤ +10% | +20.0% (100 → 120 `Elapsed Time`) | ❌ fail |\n",
			"| `Worker::slow` | `app` | 60 `Elapsed Time` | 90 `Elapsed Time` | +30 (+50.0%) |\n",
		}},
		{"time holds", []string{tn, "--baseline", tb, "--max-time-increase", "20"}, 0, []string{
			"### ✅ profdb check passed: the rule holds\n",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--db", dsn, "--format", "markdown"}, c.args...)
			out, errOut, code := runCLI(t, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			if !strings.HasPrefix(out, gate.MarkdownMarker+"\n### ") {
				t.Errorf("the comment does not start with the marker and the verdict:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the comment lacks\n%s\nin\n%s", w, out)
				}
			}
			if c.code == 1 && !strings.Contains(errOut, "rules failed: ") {
				t.Errorf("standard error does not name the failed rules: %q", errOut)
			}
			jsonOut, _, jsonCode := runCLI(t, append([]string{"check", "--db", dsn, "--format", "json"}, c.args...)...)
			var rep gate.Report
			if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil || jsonCode != code {
				t.Fatalf("--format json: exit %d, %v\n%s", jsonCode, err, jsonOut)
			}
			var lib strings.Builder
			if err := rep.WriteMarkdown(&lib); err != nil {
				t.Fatal(err)
			}
			if lib.String() != out {
				t.Errorf("check --format markdown is not the library's comment of the report:\n%s\nwant\n%s", out, lib.String())
			}
		})
	}
}

// A file name from the data that holds Markdown, HTML, a mention and a
// newline is a code span in its cell of the comment: the table keeps its
// columns and nothing of the name is read as markup.
func TestCheckMarkdownHostileName(t *testing.T) {
	dsn := sqliteDSN(t)
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const name = "src/a|b`<img src=x onerror=alert(1)>@octocat [x](https://evil.example)\n| --- |.go"
	b := lightcoverage.NewBuilder()
	defer b.Close()
	r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "F", Module: "m", SourceFile: name, LineLevel: true, Count: 1})
	r.AddLine(1, 1)
	r.AddLine(2, 0)
	res, err := b.Export(ctx, exporter.New(db, exporter.Options{}), "hostile")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "check", "--db", dsn, itoa64(res.InstID), "--min-coverage", "90", "--format", "markdown")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	want := "| ``\"src/a\\|b`<img src=x onerror=alert(1)>@octocat [x](https://evil.example)\\n\\| --- \\|.go\"`` | 1 of 2 | 50.0% |\n"
	if !strings.Contains(out, want) {
		t.Errorf("the comment lacks the row\n%s\nin\n%s", want, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "onerror") {
			continue
		}
		// The cells' pipes: those no backslash escapes.
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 4 {
			t.Errorf("the row of the name has %d unescaped pipes, want 4 (3 cells): %q", n, line)
		}
	}
}
