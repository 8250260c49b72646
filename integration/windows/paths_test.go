package windows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sources is a source tree for --source-root: each file holds a marker the
// report must show once the file is found.
var sources = map[string]string{
	"go.mod":            "module example.com/m\n",
	"calc/calc.c":       "int add(int a, int b)\n{\n\treturn a + b; /* MARK-CALC */\n}\n",
	"util/Util.c":       "int one(void)\n{\n\treturn 1; /* MARK-UTIL */\n}\n",
	"mixed/mixed.c":     "int two(void)\n{\n\treturn 2; /* MARK-MIXED */\n}\n",
	"ünï/čalc.c":        "int three(void)\n{\n\treturn 3; /* MARK-UTF8 */\n}\n",
	"upper/Case.c":      "int four(void)\n{\n\treturn 4; /* MARK-CASE */\n}\n",
	"gocalc/gocalc.go":  "package gocalc\n\nfunc Add(a, b int) int {\n\treturn a + b // MARK-GO\n}\n",
	"deep/x/y/z/deep.c": "int five(void)\n{\n\treturn 5; /* MARK-DEEP */\n}\n",
}

// lcovRecord is one LCOV record of name with lines 1 to 3, line 3 run
// hits times.
func lcovRecord(name string, hits int) string {
	h := "0"
	if hits > 0 {
		h = "1"
	}
	return "TN:\nSF:" + name + "\nFN:1,f\nFNDA:" + h + ",f\nDA:1," + h + "\nDA:3," + h + "\nLF:2\nLH:" + map[bool]string{true: "2", false: "0"}[hits > 0] + "\nend_of_record\n"
}

// Names as Windows tools write them into coverage files: drive letters,
// backslashes, UNC, mixed separators, "..\" out of the root, C:\ outside
// it, a name in another case than on disk, UTF-8; read through
// --source-root C:\…\src, in CRLF LCOV. Every file under the root is
// found and shown; nothing outside it is read.
func TestSourceRootOnDriveC(t *testing.T) {
	needWine(t)
	cLinux, cWin := driveC(t)
	write(t, filepath.Join(cLinux, "src"), sources)
	// Beside the root, not under it: what "..\" and C:\ names point at.
	write(t, cLinux, map[string]string{"secret.c": "SECRET-OUTSIDE\n", "src2/calc/calc.c": "SECRET-SIBLING\n"})
	lcov := lcovRecord(`C:\build\agent\_work\1\s\calc\calc.c`, 1) +
		lcovRecord(`\\server\share\repo\util\Util.c`, 1) +
		lcovRecord(`src/mixed\mixed.c`, 1) +
		lcovRecord(`D:\a\ünï\čalc.c`, 1) +
		lcovRecord(`C:\BUILD\UPPER\case.C`, 1) +
		lcovRecord(`\\?\C:\x\deep\x\y\z\deep.c`, 1) +
		lcovRecord(`..\secret.c`, 0) +
		lcovRecord(cWin+`\secret.c`, 0)
	dir := t.TempDir()
	write(t, dir, map[string]string{"cov.info": crlf(lcov)})
	mustWin(t, dir, "export", "--db", "sqlite:p.db", "cov.info")
	root := cWin + `\src`
	// The same tree on drive Z: too (not under the Wine prefix, which
	// Wine hides from Z:).
	write(t, filepath.Join(dir, "zsrc"), sources)
	for _, r := range []string{root, root + `\`, strings.ToLower(root), cWin + `\src\..\src`, `zsrc`, winPath(filepath.Join(dir, "zsrc"))} {
		mustWin(t, dir, "report", "--db", "sqlite:p.db", "--inst", "1", "--source-root", r, "-o", "r.html")
		b, err := os.ReadFile(filepath.Join(dir, "r.html"))
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		for _, m := range []string{"MARK-CALC", "MARK-UTIL", "MARK-MIXED", "MARK-UTF8", "MARK-CASE", "MARK-DEEP"} {
			if !strings.Contains(html, m) {
				t.Errorf("report --source-root %s: the source of %s is not shown", r, m)
			}
		}
		for _, m := range []string{"SECRET-OUTSIDE", "SECRET-SIBLING"} {
			if strings.Contains(html, m) {
				t.Errorf("report --source-root %s: a file outside the root was read (%s)", r, m)
			}
		}
	}
	// A root that is not there, or a file: refused with the message Linux
	// gives.
	wantWin(t, dir, 2, []string{"source root"}, "report", "--db", "sqlite:p.db", "--inst", "1", "--source-root", cWin+`\nowhere`, "-o", "r.html")
	wantWin(t, dir, 2, []string{"is not a folder"}, "report", "--db", "sqlite:p.db", "--inst", "1", "--source-root", cWin+`\secret.c`, "-o", "r.html")
}

// Go coverage, Cobertura and LCOV with CRLF line ends read as with LF: the
// same result sets, the same figures as the Linux binary reads from the
// LF files.
func TestCRLFInputs(t *testing.T) {
	needWine(t)
	cLinux, cWin := driveC(t)
	write(t, filepath.Join(cLinux, "src"), sources)
	gocover := "mode: set\nexample.com/m/gocalc/gocalc.go:3.25,5.2 1 1\n"
	cobertura := `<?xml version="1.0" ?>
<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
<coverage line-rate="0.5" branch-rate="0" lines-covered="1" lines-valid="2" branches-covered="0" branches-valid="0" complexity="0" timestamp="1" version="gcovr 5.2">
  <sources>
    <source>C:\build\src</source>
  </sources>
  <packages>
    <package name="calc" line-rate="0.5" branch-rate="0" complexity="0">
      <classes>
        <class name="calc_c" filename="calc\calc.c" line-rate="0.5" branch-rate="0" complexity="0">
          <methods/>
          <lines>
            <line number="1" hits="1" branch="false"/>
            <line number="3" hits="0" branch="false"/>
          </lines>
        </class>
      </classes>
    </package>
  </packages>
</coverage>
`
	lcov := lcovRecord(`C:\build\src\calc\calc.c`, 1) + lcovRecord(`C:\build\src\util\Util.c`, 0)
	inputs := map[string]string{"go.out": gocover, "coverage.xml": cobertura, "lcov.info": lcov}
	// The same inputs with CRLF and with LF, read by profdb.exe against
	// the same source root.
	dirCRLF, dirLF := t.TempDir(), t.TempDir()
	for name, text := range inputs {
		write(t, dirCRLF, map[string]string{name: crlf(text)})
		write(t, dirLF, map[string]string{name: text})
	}
	for _, file := range []string{"go.out", "coverage.xml", "lcov.info"} {
		c := mustWin(t, dirCRLF, "export", "--db", "sqlite:p.db", "--source-root", cWin+`\src`, file)
		l := mustWin(t, dirLF, "export", "--db", "sqlite:p.db", "--source-root", cWin+`\src`, file)
		if c != l {
			t.Errorf("export %s: with CRLF\n%s\nwith LF\n%s", file, c, l)
		}
	}
	for _, set := range []string{"1", "2", "3"} {
		c := mustWin(t, dirCRLF, "show", "--db", "sqlite:p.db", set)
		if l := mustWin(t, dirLF, "show", "--db", "sqlite:p.db", set); c != l {
			t.Errorf("show %s: with CRLF inputs:\n%s\nwith LF:\n%s", set, c, l)
		}
		if !strings.Contains(c, "%") || strings.Contains(c, "\r") {
			t.Errorf("show %s:\n%q", set, c)
		}
	}
}
