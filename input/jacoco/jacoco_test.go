package jacoco

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// counts is what JaCoCo's CSV report gives per class.
type counts struct {
	LineMissed, LineCovered, MethodMissed, MethodCovered int64
}

// csvCounts reads JaCoCo's CSV report: counts by class, as
// "package.Outer$Inner".
func csvCounts(t *testing.T, file string) map[string]counts {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := map[string]counts{}
	for _, r := range recs[1:] {
		n := func(h string) int64 {
			v, err := strconv.ParseInt(r[col[h]], 10, 64)
			if err != nil {
				t.Fatalf("%s: %s %q", file, h, r[col[h]])
			}
			return v
		}
		name := r[col["PACKAGE"]] + "." + strings.ReplaceAll(r[col["CLASS"]], ".", "$")
		out[name] = counts{n("LINE_MISSED"), n("LINE_COVERED"), n("METHOD_MISSED"), n("METHOD_COVERED")}
	}
	return out
}

// setCounts gives the same counts from a result set: per COL_CLASS_NAME,
// the lines of its routines covered or not, and its routines ran or not.
func setCounts(t *testing.T, set resultset.MemorySet) map[string]counts {
	t.Helper()
	out := map[string]counts{}
	for _, r := range inputtest.Routines(t, set) {
		x := out[r.Class]
		if r.Count > 0 {
			x.MethodCovered++
		} else {
			x.MethodMissed++
		}
		for _, c := range r.Lines {
			if c > 0 {
				x.LineCovered++
			} else {
				x.LineMissed++
			}
		}
		out[r.Class] = x
	}
	return out
}

// checkAgainstCSV asserts that per class, lines covered and missed and
// methods covered and missed are JaCoCo's own (its CSV report of the same
// run), and the note gives the totals.
func checkAgainstCSV(t *testing.T, res inputtest.Result, csvFile string) {
	t.Helper()
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
	want := csvCounts(t, csvFile)
	if got := setCounts(t, res.Set); !reflect.DeepEqual(got, want) {
		t.Errorf("per class\n got %+v\nwant %+v (JaCoCo's CSV)", got, want)
	}
	var tot counts
	for _, c := range want {
		tot.LineMissed += c.LineMissed
		tot.LineCovered += c.LineCovered
		tot.MethodMissed += c.MethodMissed
		tot.MethodCovered += c.MethodCovered
	}
	note := fmt.Sprintf("lines: %s, methods: %s", rate(tot.LineCovered, tot.LineCovered+tot.LineMissed, "lines"),
		rate(tot.MethodCovered, tot.MethodCovered+tot.MethodMissed, "methods"))
	if len(res.Notes) != 1 || !strings.HasSuffix(res.Notes[0], note) {
		t.Errorf("notes %q, want %q", res.Notes, note)
	}
}

// TestReport reads the checked-in report of testdata/java: routines are
// the methods, with their classes, modules and files, and the counts per
// class are those of JaCoCo's CSV.
func TestReport(t *testing.T) {
	res := inputtest.ReadFile(t, Read, filepath.Join("testdata", "jacoco.xml"), input.Options{})
	if h := res.Set.Header; h.Caption != "jacoco: jacoco.xml (demo)" || h.Profiler != lightcoverage.Name {
		t.Errorf("header %+v", h)
	}
	checkAgainstCSV(t, res, filepath.Join("testdata", "jacoco.csv"))
	meta := res.Set.Tables[lightcoverage.MetaRoutines]
	var got []string
	for i := range meta.Rows {
		got = append(got, fmt.Sprintf("%s %s.%s %s:%d", inputtest.Str(meta.Value(i, "COL_MODULE_NAME")), inputtest.Str(meta.Value(i, "COL_CLASS_NAME")),
			inputtest.Str(meta.Value(i, "COL_ROUTINE_NAME")), inputtest.Str(meta.Value(i, "COL_SOURCE_FILE")), inputtest.Num(t, meta.Value(i, "COL_SOURCE_LINE"))))
	}
	// In the order of the <sourcefile> elements (Util.java comes first),
	// each file's classes in report order.
	want := []string{
		"demo demo.Util.square demo/Util.java:8", "demo demo.Util.clamp demo/Util.java:12", "demo demo.Util.neverCalled demo/Util.java:22",
		"demo demo.Main.<init> demo/Main.java:3", "demo demo.Main.sumSquares demo/Main.java:5", "demo demo.Main.main demo/Main.java:13",
		"demo demo.Main$Counter.<init> demo/Main.java:19", "demo demo.Main$Counter.add demo/Main.java:23", "demo demo.Main$Counter.reset demo/Main.java:27",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %q\nwant %q", got, want)
	}
	res = inputtest.ReadFile(t, Read, filepath.Join("testdata", "jacoco.xml"), input.Options{SourceRoot: `C:\src`})
	if f := inputtest.Str(res.Set.Tables[lightcoverage.MetaSourceFiles].Value(0, "COL_FILE_NAME")); f != `C:\src\demo\Util.java` {
		t.Errorf("with --source-root C:\\src: %s", f)
	}
}

// TestRegenerate runs testdata/make.sh (javac, a run with JaCoCo's agent,
// org.jacoco.report's XML and CSV formatters) and checks the XML report
// against the CSV one; under CI=true missing tools fail the test.
func TestRegenerate(t *testing.T) {
	inputtest.NeedTools(t, "default-jdk-headless", "java", "javac", "jar", "sh")
	if _, err := os.Stat("/usr/share/java/org.jacoco.agent.jar"); err != nil {
		inputtest.Missing(t, "JaCoCo", "libjacoco-java", err)
	}
	dir := t.TempDir()
	if b, err := exec.Command("sh", filepath.Join("testdata", "make.sh"), dir).CombinedOutput(); err != nil {
		t.Fatalf("make.sh: %v\n%s", err, b)
	}
	checkAgainstCSV(t, inputtest.ReadFile(t, Read, filepath.Join(dir, "jacoco.xml"), input.Options{}), filepath.Join(dir, "jacoco.csv"))
}

// TestRefused: an internal subset, undefined entities and malformed
// reports are errors naming the file and line; JaCoCo's DOCTYPE is read
// without fetching its DTD.
func TestRefused(t *testing.T) {
	const doctype = `<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "http://127.0.0.1:1/report.dtd">`
	if _, err := inputtest.Read(t, Read, "ok.xml", []byte(doctype+`<report name="x"><package name="p"><class name="p/A"><method name="m"/></class></package></report>`), input.Options{}); err != nil {
		t.Errorf("JaCoCo's DOCTYPE: %v", err)
	}
	inputtest.CheckRefused(t, Read, "bad.xml", input.Options{}, []inputtest.Refused{
		{"<?xml version='1.0'?>\n<!DOCTYPE report [\n<!ENTITY a 'x'>\n]>\n<report/>", "bad.xml:4: a DOCTYPE with an internal subset"},
		{"<report>\n<package name='&a;'/></report>", "bad.xml:2: invalid character entity &a;"},
		{"<report><package name='p'>\n<class/></package></report>", "bad.xml:2: <class> without a name"},
		{"<report><package name='p'><class name='c'>\n<method name='m' line='x'/></class></package></report>", `bad.xml:2: <method> line="x" is not an integer`},
		{"<report><package name='p'><sourcefile name='s'>\n<line nr='1'/></sourcefile></package></report>", "bad.xml:2: <line> without a ci attribute"},
		{"<report><package name='p'><sourcefile name='s'>\n<line nr='1' ci='-2'/></sourcefile></package></report>", `bad.xml:2: <line> ci="-2"`},
		{"<report><package name='p'>\n<sourcefile/></package></report>", "bad.xml:2: <sourcefile> without a name"},
		{"<report><package name='p'>\n<class name='c'>", "bad.xml:2: the file ends inside <class>"},
		{"<coverage/>", "bad.xml:1: element <coverage> where the root <report> was expected"},
	})
}

// TestOutside: lines before every method of their file are warned about
// and not counted; classes without a <sourcefile> keep their methods.
func TestOutside(t *testing.T) {
	doc := `<report><package name="p"><class name="p/A" sourcefilename="A.java"><method name="m" line="5"><counter type="METHOD" missed="0" covered="1"/></method></class>` +
		`<class name="p/B" sourcefilename="B.java"><method name="n"/></class>` +
		`<sourcefile name="A.java"><line nr="2" mi="1" ci="0"/><line nr="5" mi="0" ci="3"/><line nr="6" mi="2" ci="0"/></sourcefile></package></report>`
	res, err := inputtest.Read(t, Read, "o.xml", []byte(doc), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"o.xml: 1 line (first in p/A.java) lies before every method of its file and is not counted"}; !reflect.DeepEqual(res.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
	if got, want := setCounts(t, res.Set), map[string]counts{"p.A": {1, 1, 0, 1}, "p.B": {0, 0, 1, 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestRegistered(t *testing.T) {
	inputtest.CheckRegistered(t, FormatName, map[string]bool{
		"<report name='x'>\n<sessioninfo id=''": true,
		"<report><title>x</title>":              false,
		"<coverage>":                            false,
		"":                                      false,
	}, filepath.Join("testdata", "jacoco.xml"), 150, input.Options{}, map[string]int64{lightcoverage.RoutinesData: 9})
}

// TestEmpty: a report with no method and no line holds no result set, so
// that export refuses it unless --allow-empty; a report of methods without
// lines (classes compiled without debug information) is read.
func TestEmpty(t *testing.T) {
	inputtest.CheckEmpty(t, Read, "empty.xml",
		`<report name="x"/>`,
		`<report name="x"><sessioninfo id="s" start="1" dump="2"/><counter type="LINE" missed="0" covered="0"/></report>`,
		`<report name="x"><group name="g"><package name="p"/></group></report>`,
		`<report name="x"><package name="p"><class name="p/I" sourcefilename="I.java"/><sourcefile name="I.java"/></package></report>`,
	)
	inputtest.CheckRows(t, Read, "methods.xml", `<report name="x"><package name="p"><class name="p/A"><method name="m"><counter type="METHOD" missed="0" covered="1"/></method></class></package></report>`, lightcoverage.RoutinesData, 1)
}

// TestDeep: elements nested deeper than xmlscan.MaxDepth are refused with
// an error naming the line, without recursion (3 million groups once
// overflowed the stack).
func TestDeep(t *testing.T) {
	inputtest.CheckDeep(t, Read,
		"<report name='r'>\n"+strings.Repeat("<group name='g'>", 3_000_000),
		"<report name='r'>\n"+strings.Repeat("<x>", 300)+strings.Repeat("</x>", 300)+"</report>",
	)
}
