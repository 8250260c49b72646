package gate

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/profdb/profdb/readback"
)

// sampleReport has a failing rule of each kind and one that holds; a path
// holds the characters GitHub's commands escape and a name a control
// character.
func sampleReport() *Report {
	return &Report{InstID: 2, Profiler: "light-coverage", Baseline: 1, Rules: []Rule{
		{Name: RuleMinCoverage, Passed: true, Value: 50, Limit: 50, Summary: "line coverage 50.0% (6 of 12 lines), at least 50% required"},
		{Name: RuleMaxDrop, Value: 37.5, Limit: 1, Summary: "line coverage fell 37.5 points",
			Files: []FileDrop{{Name: "calc\x1b.go", Before: readback.Ratio{Covered: 6, Total: 6}, After: readback.Ratio{Covered: 4, Total: 8}, Missed: 4}}},
		{Name: RulePatchCoverage, Value: 14.3, Limit: 50, Summary: "patch coverage 14.3% (1 of 7 changed lines covered)",
			Lines: []LineRange{{Path: "dir,x/a:b%.go", From: 11, To: 12}, {Path: "new.go", From: 3, To: 3}}},
		{Name: RuleMaxTimeIncrease, Value: 20, Limit: 10, Summary: "total time changed +20.0%",
			Routines: []RoutineChange{{Class: "Worker", Name: "slow", Before: 60, After: 90, Unit: "ticks"}}, Omitted: 2},
	}}
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, b.String())
	}
	if s.Name != "profdb check" || s.Tests != 4 || s.Failures != 3 || len(s.Cases) != 4 {
		t.Fatalf("suite %+v", s)
	}
	if s.Cases[0].Name != RuleMinCoverage || s.Cases[0].Failure != nil {
		t.Errorf("case 0 %+v", s.Cases[0])
	}
	wantText := map[string]string{
		RuleMaxDrop:         `calc\x1b.go: 100.0% -> 50.0% (+4 uncovered lines)`,
		RulePatchCoverage:   "dir,x/a:b%.go:11-12\nnew.go:3",
		RuleMaxTimeIncrease: "Worker::slow: 60 ticks -> 90 ticks\n... and 2 more",
	}
	for _, c := range s.Cases[1:] {
		if c.Failure == nil {
			t.Errorf("%s: no failure", c.Name)
			continue
		}
		if c.Failure.Text != wantText[c.Name] {
			t.Errorf("%s: failure text %q, want %q", c.Name, c.Failure.Text, wantText[c.Name])
		}
		if !strings.HasPrefix(c.Failure.Message, "line coverage") && !strings.HasPrefix(c.Failure.Message, "patch") && !strings.HasPrefix(c.Failure.Message, "total time") {
			t.Errorf("%s: message %q", c.Name, c.Failure.Message)
		}
	}
}

func TestWriteGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteGitHub(&b); err != nil {
		t.Fatal(err)
	}
	want := "::error title=profdb check%3A max-drop::line coverage fell 37.5 points%0Acalc\\x1b.go: 100.0%25 -> 50.0%25 (+4 uncovered lines)\n" +
		"::error file=dir%2Cx/a%3Ab%25.go,line=11,endLine=12,title=profdb check%3A patch-coverage::Lines 11-12 are not covered by tests (patch coverage 14.3%25 (1 of 7 changed lines covered))\n" +
		"::error file=new.go,line=3,endLine=3,title=profdb check%3A patch-coverage::Line 3 is not covered by tests (patch coverage 14.3%25 (1 of 7 changed lines covered))\n" +
		"::error title=profdb check%3A max-time-increase::total time changed +20.0%25%0AWorker::slow: 60 ticks -> 90 ticks%0A... and 2 more\n"
	if b.String() != want {
		t.Errorf("annotations\n%s\nwant\n%s", b.String(), want)
	}
}

// The annotation that says patch coverage left ranges out names what sets
// Options.MaxRanges as Names says, else as the API does.
func TestWriteGitHubOmitted(t *testing.T) {
	for names, want := range map[Names]string{
		{}:                          "(gate.Options.MaxRanges)",
		{MaxRanges: "--max-ranges"}: "(--max-ranges)",
	} {
		r := &Report{Rules: []Rule{{Name: RulePatchCoverage, Omitted: 35, Lines: []LineRange{{Path: "a.go", From: 1, To: 1}}}}, Names: names}
		var b bytes.Buffer
		if err := r.WriteGitHub(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), "::error title=profdb check%3A patch-coverage::... and 35 more uncovered changed line ranges, not annotated "+want+"\n") {
			t.Errorf("Names %+v: annotations\n%s\nwant the last to end %s", names, b.String(), want)
		}
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"check of result set 2 (light-coverage) against baseline 1\n",
		"PASS  min-coverage: line coverage 50.0%",
		"FAIL  max-drop: line coverage fell 37.5 points\n      files that lost most coverage:\n        \"calc\\x1b.go\"  100.0% -> 50.0%  (+4 uncovered lines)\n",
		"      uncovered changed lines:\n        dir,x/a:b%.go:11-12\n        new.go:3\n",
		"        Worker::slow  60 ticks -> 90 ticks\n        ... and 2 more\n",
		"3 of 4 rules failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out, '\x1b') {
		t.Errorf("text report has a raw escape: %q", out)
	}
}
