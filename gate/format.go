package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

// WriteText writes the report for a terminal: a line per rule (PASS or
// FAIL, its name and summary) and, under a rule, its items. Names from the
// data are printed as termtext.Name prints them.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(termtext.Line(fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	head := fmt.Sprintf("check of result set %d (%s)", r.InstID, termtext.Name(r.Profiler))
	if r.Baseline != 0 {
		head += fmt.Sprintf(" against baseline %d", r.Baseline)
	}
	line("%s", head)
	for _, x := range r.Rules {
		verdict := "PASS"
		if !x.Passed {
			verdict = "FAIL"
		}
		line("%s  %s: %s", verdict, x.Name, x.Summary)
		if len(x.Files) > 0 {
			if x.Name == RuleMaxDrop {
				line("      files that lost most coverage:")
				for _, f := range x.Files {
					line("        %s  %s -> %s  (%s uncovered lines)", termtext.Name(f.Name),
						readback.Percent(f.Before.Covered, f.Before.Total), readback.Percent(f.After.Covered, f.After.Total), signed(f.Missed))
				}
			} else {
				line("      files with the most uncovered lines:")
				for _, f := range x.Files {
					line("        %s  %d of %d lines uncovered (%s covered)", termtext.Name(f.Name),
						f.After.Total-f.After.Covered, f.After.Total, readback.Percent(f.After.Covered, f.After.Total))
				}
			}
		}
		if len(x.Lines) > 0 {
			line("      uncovered changed lines:")
			for _, l := range x.Lines {
				line("        %s", termtext.Name(l.String()))
			}
		}
		if len(x.Routines) > 0 {
			line("      routines that slowed most (own time):")
			for _, rc := range x.Routines {
				name := termtext.Name(rc.FullName())
				if rc.Module != "" {
					name += " (" + termtext.Name(rc.Module) + ")"
				}
				line("        %s  %s -> %s", name, readback.FormatTime(rc.Before, rc.Unit), readback.FormatTime(rc.After, rc.Unit))
			}
		}
		if x.Omitted > 0 {
			line("        ... and %d more", x.Omitted)
		}
		if len(x.Unknown) > 0 {
			names := make([]string, len(x.Unknown))
			for i, u := range x.Unknown {
				names[i] = termtext.Name(u)
			}
			more := ""
			if x.UnknownOmitted > 0 {
				more = fmt.Sprintf(" ... and %d more", x.UnknownOmitted)
			}
			line("      changed files the result set does not name (not counted): %s%s", strings.Join(names, ", "), more)
		}
	}
	if failed := len(r.Failed()); failed > 0 {
		line("%d of %d rules failed", failed, len(r.Rules))
	} else {
		line("all %d rules hold", len(r.Rules))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// signed formats a count with its sign: "+3", "0", "-2".
func signed(n int64) string { return textout.Signed(strconv.FormatInt(n, 10), n) }

// WriteJSON writes the report as `profdb check --format json` prints it:
// one JSON object indented by two spaces, control characters in names
// escaped.
func (r *Report) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// items lists a rule's items, one per line, as the JUnit failure text and
// GitHub annotations give them, each made one safe line by termtext.Line.
func (x Rule) items() []string {
	out := x.rawItems()
	for i, s := range out {
		out[i] = termtext.Line(s)
	}
	return out
}

func (x Rule) rawItems() []string {
	var out []string
	for _, f := range x.Files {
		if x.Name == RuleMaxDrop {
			out = append(out, fmt.Sprintf("%s: %s -> %s (%s uncovered lines)", f.Name,
				readback.Percent(f.Before.Covered, f.Before.Total), readback.Percent(f.After.Covered, f.After.Total), signed(f.Missed)))
		} else {
			out = append(out, fmt.Sprintf("%s: %d of %d lines uncovered", f.Name, f.After.Total-f.After.Covered, f.After.Total))
		}
	}
	for _, l := range x.Lines {
		out = append(out, l.String())
	}
	for _, rc := range x.Routines {
		out = append(out, fmt.Sprintf("%s: %s -> %s", rc.FullName(), readback.FormatTime(rc.Before, rc.Unit), readback.FormatTime(rc.After, rc.Unit)))
	}
	if x.Omitted > 0 {
		out = append(out, fmt.Sprintf("... and %d more", x.Omitted))
	}
	return out
}

// JUnit XML, as CI systems read it: one testsuite, a testcase per rule,
// a failure element on each rule that fails.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as a JUnit XML document: a testsuite
// "profdb check" with a testcase per rule (classname profdb.check), whose
// failure element, on a rule that fails, has the summary as its message and
// the rule's items, one per line, as its text. A rule that holds has its
// summary in system-out.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "profdb check", Tests: len(r.Rules)}
	for _, x := range r.Rules {
		c := junitCase{Name: x.Name, Classname: "profdb.check"}
		if x.Passed {
			c.SystemOut = x.Summary
		} else {
			s.Failures++
			c.Failure = &junitFailure{Message: x.Summary, Type: x.Name, Text: strings.Join(x.items(), "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	out, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header+string(out)+"\n"); err != nil {
		return err
	}
	return nil
}

// WriteGitHub writes the report as GitHub Actions workflow commands: an
// ::error annotation per uncovered changed line range of a failing
// patch-coverage rule (::warning when the rule holds), on the diff's file
// and lines, and an ::error per other failing rule, with its summary and
// items. Control characters from data are escaped as termtext.Line escapes
// them, then everything as GitHub's workflow commands require: %, CR and LF
// in messages, and : and , as well in properties.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
	for _, x := range r.Rules {
		if x.Name == RulePatchCoverage {
			level := "warning"
			if !x.Passed {
				level = "error"
			}
			for _, l := range x.Lines {
				msg := "Line " + strconv.FormatInt(l.From, 10) + " is not covered by tests"
				if l.From != l.To {
					msg = "Lines " + strconv.FormatInt(l.From, 10) + "-" + strconv.FormatInt(l.To, 10) + " are not covered by tests"
				}
				fmt.Fprintf(&b, "::%s file=%s,line=%d,endLine=%d,title=%s::%s\n", level, ghProperty(termtext.Line(l.Path)), l.From, l.To,
					ghProperty("profdb check: "+x.Name), ghMessage(msg+" ("+x.Summary+")"))
			}
			if x.Omitted > 0 && len(x.Lines) > 0 {
				fmt.Fprintf(&b, "::%s title=%s::%s\n", level, ghProperty("profdb check: "+x.Name),
					ghMessage(fmt.Sprintf("... and %d more uncovered changed line ranges, not annotated (%s)", x.Omitted, r.Names.maxRanges())))
			}
		}
		if x.Passed || (x.Name == RulePatchCoverage && len(x.Lines) > 0) {
			continue
		}
		msg := x.Summary
		if items := x.items(); len(items) > 0 {
			msg += "\n" + strings.Join(items, "\n")
		}
		fmt.Fprintf(&b, "::error title=%s::%s\n", ghProperty("profdb check: "+x.Name), ghMessage(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghMessage escapes the message of a workflow command.
func ghMessage(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value of a workflow command.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
