package profilerj_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/profilerj"
	"github.com/profdb/profdb/resultset"
)

// TestBadInput: every broken file fails with FILE:LINE and a message saying
// what is wrong, and nothing reaches the target: not even a Begin.
func TestBadInput(t *testing.T) {
	exampleBytes, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	ex := string(exampleBytes)
	// Breaks in the last section: the three sections before it must not be
	// written either.
	badLast := strings.Replace(ex, "<footprints>605000 605000 0 -1 605000 </footprints>",
		"<footprints>605000 605000 O -1 605000 </footprints>", 1)
	if badLast == ex {
		t.Fatal("example changed: fix the test")
	}
	lineOf := func(doc, s string) int { return strings.Count(doc[:strings.Index(doc, s)], "\n") + 1 }

	cases := []struct {
		name, doc, at, msg string
	}{
		{"empty", "", "in.xml:1:", "no <doc> element"},
		{"not xml", "hello", "in.xml:1:", `unexpected text "hello" before <doc>`},
		{"other root", `<?xml version="1.0"?>` + "\n<report/>", "in.xml:2:", "root element is <report>"},
		{"count not a number", "<doc>\n<profile>\n<thread>\n<profile name=\"a.B.c()\"\n count=\"12x\"/></thread></profile></doc>",
			"in.xml:4:", `<profile count="12x">: not an integer`},
		{"time not a number", `<doc><sampler><thread><profile hits="1.5"/></thread></sampler></doc>`,
			"in.xml:1:", `hits="1.5"`},
		{"thread attribute", "<doc><profile>\n<thread cpuTime=\"fast\"/></profile></doc>", "in.xml:2:", "cpuTime"},
		{"isAlive", `<doc><profile><thread isAlive="yes"/></profile></doc>`, "in.xml:1:", "want true or false"},
		{"memory count", "<doc><memory><thread>\n\n<memory class=\"a.B\" count=\"many\"/></thread></memory></doc>", "in.xml:3:", "count"},
		{"firstline", `<doc><coverage><class><method firstline="ten"/></class></coverage></doc>`, "in.xml:1:", "firstline"},
		{"footprint word", "<doc><coverage><class><method firstline=\"1\"><footprints>1 2\n3 x4 5</footprints></method></class></coverage></doc>",
			"in.xml:2:", `footprint "x4" is not an integer`},
		{"footprint negative", "<doc><coverage><class><method firstline=\"1\"><footprints>\n\n-2</footprints></method></class></coverage></doc>",
			"in.xml:3:", "footprint -2"},
		{"two footprints", "<doc><coverage><class><method><footprints/>\n<footprints/></method></class></coverage></doc>",
			"in.xml:2:", "second <footprints>"},
		{"call outside thread", "<doc>\n<profile>\n  <profile name=\"a.B.c()\"/></profile></doc>", "in.xml:3:", "<profile> is not allowed inside <profile>"},
		{"method outside class", "<doc><coverage>\n<method/></coverage></doc>", "in.xml:2:", "<method> is not allowed inside <coverage>"},
		{"thread in call", "<doc><profile><thread><profile>\n<thread/></profile></thread></profile></doc>", "in.xml:2:", "<thread> is not allowed inside <profile>"},
		{"extra closing tag", "<doc><coverage>\n</coverage></coverage></doc>", "in.xml:2:", "malformed XML: element <doc> closed by </coverage>"},
		{"content after doc", "<doc/>\n<doc/>", "in.xml:2:", "after </doc>"},
		{"text after doc", "<doc/>\n....", "in.xml:2:", "after </doc>"},
		{"cut off", "<doc>\n<profile>\n<thread>\n<profile name=\"x\">", "in.xml:4:", "ends inside <profile> (opened at line 4): cut off?"},
		{"cut off in tag", "<doc>\n<memory><thread><memory cla", "in.xml:2:", "ends inside <thread> (opened at line 2)"},
		{"encoding", `<?xml version="1.0" encoding="EBCDIC"?><doc/>`, "in.xml:1:", "EBCDIC"},
		{"bad entity", "<doc><coverage><class name=\"&nbsp;\"/></coverage></doc>", "in.xml:1:", "malformed XML"},
		{"break in last section", badLast, "in.xml:" + itoa(lineOf(badLast, "605000 605000 O")) + ":", `footprint "O"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rec recorder
			res, err := profilerj.Read(context.Background(), strings.NewReader(c.doc), "in.xml", &rec, input.Options{})
			if err == nil {
				t.Fatalf("no error; results %+v", res)
			}
			if !strings.HasPrefix(err.Error(), c.at) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q, want %q … %q", err, c.at, c.msg)
			}
			if rec.begun != 0 || len(res) != 0 {
				t.Errorf("%d result sets begun, %d results: a broken file must write nothing", rec.begun, len(res))
			}
		})
	}
}

func itoa(i int) string { return sprintf("%d", i) }

// TestDocumentedExcerpts: the excerpts of the format description are not
// snapshots (no-break spaces inside tags, "...." lines, tags left open);
// each fails at the line where it goes wrong.
func TestDocumentedExcerpts(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/doc-profile-excerpt.xml":        "doc-profile-excerpt.xml:4: malformed XML: invalid XML name: <U+00A0>",
		"testdata/doc-profile-excerpt-spaces.xml": `doc-profile-excerpt-spaces.xml:19: unexpected text "..." in a call tree`,
		"testdata/doc-sampler-excerpt.xml":        "doc-sampler-excerpt.xml:18: malformed XML: element <profile> closed by </sampler>",
		"testdata/doc-memory-excerpt.xml":         `doc-memory-excerpt.xml:8: unexpected text "...." inside <thread>`,
		"testdata/cut-off.xml":                    "cut-off.xml:29: the file ends inside <profile> (opened at line 25): cut off?",
	} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		var rec recorder
		_, err = profilerj.Read(context.Background(), f, file, &rec, input.Options{})
		f.Close()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "testdata/") {
			t.Errorf("%s: error %v, want …%s", file, err, want)
		}
		if rec.begun != 0 {
			t.Errorf("%s: %d result sets begun", file, rec.begun)
		}
	}
}

// TestWriteFailure: when the target fails on the second result set, the
// first stays committed, the failing one is not, and the error says which
// section.
func TestWriteFailure(t *testing.T) {
	f, err := os.Open(example)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec := recorder{failBegin: 2}
	res, err := profilerj.Read(context.Background(), f, "snap.xml", &rec, input.Options{})
	if err == nil || !strings.Contains(err.Error(), "snap.xml: writing the sampler section") {
		t.Fatalf("error %v", err)
	}
	if len(res) != 1 || len(rec.committed) != 1 || rec.committed[0].Caption != "snap.xml: profile" {
		t.Errorf("results %+v, committed %+v", res, rec.committed)
	}
}

// TestCanceled: a canceled context stops the parse, and nothing is written.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b strings.Builder
	b.WriteString("<doc><coverage>")
	for i := 0; i < 5000; i++ {
		b.WriteString(`<class name="a.B"/>`)
	}
	b.WriteString("</coverage></doc>")
	var mem resultset.Memory
	_, err := profilerj.Read(ctx, strings.NewReader(b.String()), "x.xml", &mem, input.Options{})
	if err == nil || len(mem.Sets) != 0 {
		t.Errorf("err %v, %d sets", err, len(mem.Sets))
	}
}
