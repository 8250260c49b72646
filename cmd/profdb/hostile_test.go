package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/termtext"
)

// hostileFixture holds four result sets, one per profiler, made from the
// examples with every routine, class, module, file and error name (and the
// captions and the counter) carrying markup and what a terminal obeys:
// ESC ] 0 ; … BEL (sets the title), ESC [ 31 m, the 8-bit CSI U+009B, tab,
// CR, LF, DEL, backspace, the right-to-left override, and East Asian wide
// characters.
const hostileFixture = "../../testdata/hostile-names.json"

// fixtureStrings returns every string of the hostile fixture: captions,
// counter names and column values.
func fixtureStrings(t *testing.T) map[string]bool {
	t.Helper()
	var sets []struct {
		Caption string
		Counter map[string]any
		Tables  map[string][]map[string]any
	}
	if err := json.Unmarshal(mustRead(t, hostileFixture), &sets); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	add := func(v any) {
		if s, ok := v.(string); ok {
			out[s] = true
		}
	}
	for _, s := range sets {
		add(s.Caption)
		for _, v := range s.Counter {
			add(v)
		}
		for _, rows := range s.Tables {
			for _, r := range rows {
				for _, v := range r {
					add(v)
				}
			}
		}
	}
	return out
}

// rawControl returns the first character of s a terminal could obey: a C0
// control but the newline ending a line, DEL, a C1 control, the
// right-to-left override, or a byte that is not UTF-8. It is written here
// on its own, not with termtext, which it checks.
func rawControl(s string) (string, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Sprintf("byte 0x%02x at %d", s[i], i), true
		case r < 0x20 && r != '\n', r >= 0x7f && r < 0xa0, r == '\u202e':
			return fmt.Sprintf("U+%04X at %d", r, i), true
		}
	}
	return "", false
}

// checkClean fails when a command's output holds a raw control character.
func checkClean(t *testing.T, what, out string) {
	t.Helper()
	if c, ok := rawControl(out); ok {
		t.Errorf("%s prints a raw control character (%s):\n%q", what, c, out)
	}
}

// runClean runs profdb, checks that neither its output nor its messages
// hold a raw control character, and returns its output; want is the exit
// status expected.
func runClean(t *testing.T, want int, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != want {
		t.Fatalf("profdb %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, errOut)
	}
	checkClean(t, args[0]+"'s output", out)
	checkClean(t, args[0]+"'s messages", errOut)
	return out
}

// TestHostileNamesOnEveryDialect exports the hostile fixture and runs every
// command on it: no text output holds a raw control character, names are
// printed escaped (termtext.Name) and tables stay aligned with wide
// characters, while --json gives back every name exactly.
func TestHostileNamesOnEveryDialect(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	want := fixtureStrings(t)
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			out := runClean(t, 0, "export", "--db", dsn, hostileFixture)
			for _, w := range []string{
				`INST_ID 1  light-coverage  64 rows  "unit tests \x1b]0;pwned\a </script><script>window.pwned=3</script>"`,
				`INST_ID 3  resource  28 rows  "handles \u009b31m<img src=x onerror=window.pwned=4>"`,
			} {
				if !strings.Contains(out, w+"\n") {
					t.Errorf("export does not print %s:\n%s", w, out)
				}
			}
			// A second export, as JSON: the captions come back exactly.
			var res []struct {
				InstID  int64 `json:"inst_id"`
				Caption string
			}
			checkJSON(t, runClean(t, 0, "export", "--db", dsn, "--json", hostileFixture), &res)
			if len(res) != 4 || res[0].InstID != 5 {
				t.Fatalf("export --json: %+v", res)
			}
			for _, r := range res {
				if !want[r.Caption] {
					t.Errorf("export --json: caption %q is not the fixture's", r.Caption)
				}
			}

			out = runClean(t, 0, "list", "--db", dsn)
			if w := `  "handles \u009b31m<img src=x onerror=window.pwned=4>"` + "\n"; !strings.Contains(out, w) {
				t.Errorf("list does not print %s:\n%s", w, out)
			}
			var listed []struct{ Caption string }
			checkJSON(t, runClean(t, 0, "list", "--db", dsn, "--json"), &listed)
			for _, l := range listed {
				if !want[l.Caption] {
					t.Errorf("list --json: caption %q is not the fixture's", l.Caption)
				}
			}

			for inst := 1; inst <= 4; inst++ {
				id := fmt.Sprint(inst)
				out := runClean(t, 0, "show", "--db", dsn, id)
				checkAligned(t, "show "+id, out)
				var sum any
				checkJSON(t, runClean(t, 0, "show", "--db", dsn, "--json", id), &sum)
				checkNames(t, "show --json "+id, sum, want)
			}
			show := runClean(t, 0, "show", "--db", dsn, "2")
			for _, name := range []string{"LoadConfig \x1b]0;pwned\a", "Time \x1b[5m"} {
				if !strings.Contains(show, termtext.Name(name)) {
					t.Errorf("show 2 does not print %s:\n%s", termtext.Name(name), show)
				}
			}

			if out := runClean(t, 0, "verify", "--db", dsn); out != "ok\n" {
				t.Errorf("verify: %s", out)
			}
			target := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
			out = runClean(t, 0, "copy", "--from", dsn, "--to", target, "--inst", "3")
			if w := `INST_ID 3 -> INST_ID 1  resource  28 rows  "handles \u009b31m<img src=x onerror=window.pwned=4>"`; !strings.Contains(out, w) {
				t.Errorf("copy does not print %s:\n%s", w, out)
			}
			runClean(t, 0, "delete", "--db", dsn, "--inst", "5-8", "--dry-run")
			runClean(t, 0, "delete", "--db", dsn, "--inst", "5-8")
			html := filepath.Join(t.TempDir(), "r.html")
			runClean(t, 0, "report", "--db", dsn, "-o", html)
		})
	}
}

// checkJSON decodes a command's JSON output.
func checkJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
}

// checkNames checks that every name in show --json's output is one of the
// fixture's strings, byte for byte, and that the hostile ones are there.
func checkNames(t *testing.T, what string, v any, want map[string]bool) {
	t.Helper()
	hostile := 0
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			switch key {
			case "name", "class", "module", "file", "caption", "counter_name", "description":
				if x != "" && !want[x] {
					t.Errorf("%s: %s %q is not the fixture's", what, key, x)
				}
				if _, ok := rawControl(x); ok {
					hostile++
				}
			}
		}
	}
	walk("", v)
	if hostile == 0 {
		t.Errorf("%s: no name with a control character: the fixture is not hostile", what)
	}
}

// numericLast are the last columns of show's tables that hold numbers: a
// table ending in one is right-aligned, so every line of it is equally wide.
var numericLast = []string{"%", "WITH CHILDREN", "TIME", "SIZE"}

// checkAligned checks that the lines of every table of show's output that
// ends in a numeric column take the same number of terminal columns, wide
// characters and escapes included; and that some table holds a wide
// character, so that the check means something.
func checkAligned(t *testing.T, what, out string) {
	t.Helper()
	wide := false
	var block []string
	flush := func() {
		defer func() { block = nil }()
		if len(block) < 2 {
			return
		}
		header := strings.TrimSpace(block[0])
		numeric := false
		for _, s := range numericLast {
			numeric = numeric || strings.HasSuffix(header, "  "+s)
		}
		if !numeric {
			return
		}
		w := uniseg.StringWidth(block[0])
		for _, l := range block[1:] {
			if got := uniseg.StringWidth(l); got != w {
				t.Errorf("%s: line %q is %d columns wide, its header %d:\n%s", what, l, got, w, strings.Join(block, "\n"))
			}
			wide = wide || strings.Contains(l, "漢")
		}
	}
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "  ... and"), l == "  (none)":
		case strings.HasPrefix(l, "  "):
			block = append(block, l)
		default:
			flush()
		}
	}
	flush()
	if !wide && !strings.Contains(what, "show 2") {
		t.Errorf("%s: no table holds a wide character:\n%s", what, out)
	}
}

// TestHostileNamesFromTheDatabase writes into a SQLite database, as another
// program may, names that are not UTF-8 and a RELATIONS row naming a table
// with control characters, which export never writes: show prints the
// names' bytes escaped, verify its finding escaped, and --json stays
// valid JSON free of control characters.
func TestHostileNamesFromTheDatabase(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	dsn := sqliteDSN(t)
	runClean(t, 0, "export", "--db", dsn, hostileFixture)
	db := dbtest.Open(t, dsn)
	for _, q := range []string{
		`UPDATE LIGHT_COVERAGE_PROFILER_ROUTINES_DATA SET COL_SOURCE_FILE = CAST(X'433A5C9B1B5B33316D2E637070' AS TEXT),
			COL_MODULE_NAME = CAST(X'6D6F64FF9B' AS TEXT) WHERE ID = 0 AND INST_ID = 1`,
		`UPDATE LIGHT_COVERAGE_PROFILER_META_ROUTINES SET COL_ROUTINE_NAME = CAST(X'72FF1B9B' AS TEXT) WHERE ID = 0 AND INST_ID = 1`,
		`INSERT INTO RELATIONS (COL_CHILD_TABLE, COL_PARENT_TABLE, ID, INST_ID) VALUES ('EVIL' || char(27) || ']0;T' || char(7), NULL, 999, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	out := runClean(t, 0, "show", "--db", dsn, "1")
	checkAligned(t, "show 1", out)
	for _, w := range []string{`"mod\xff\x9b"`, `"C:\\\x9b\x1b[31m.cpp"`, `"r\xff\x1b\x9b"`} {
		if !strings.Contains(out, w) {
			t.Errorf("show does not print %s:\n%s", w, out)
		}
	}
	var sum any
	checkJSON(t, runClean(t, 0, "show", "--db", dsn, "--json", "1"), &sum)

	out = runClean(t, 1, "verify", "--db", dsn)
	if w := `INST_ID 1: RELATIONS: row for table EVIL\x1b]0;T\a, which profiler light-coverage does not have`; !strings.Contains(out, w) {
		t.Errorf("verify does not print %s:\n%s", w, out)
	}
	var findings []struct{ Message string }
	checkJSON(t, runClean(t, 1, "verify", "--db", dsn, "--json"), &findings)
	if len(findings) != 1 || !strings.Contains(findings[0].Message, "EVIL\x1b]0;T\a,") {
		t.Errorf("verify --json does not give the table's name exactly: %+v", findings)
	}
}

// TestErrorsEscapeNames: an error quoting a name raw (here the operating
// system's, naming a file) is printed escaped, on one line.
func TestErrorsEscapeNames(t *testing.T) {
	name := filepath.Join(t.TempDir(), "run\x1b]0;pwned\a\x9b\nx.json")
	_, errOut, code := runCLI(t, "export", "--db", sqliteDSN(t), name)
	checkClean(t, "export's error", errOut)
	if w := `run\x1b]0;pwned\a\x9b\nx.json: no such file or directory` + "\n"; code != exitCannotRun || !strings.Contains(errOut, w) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, messages %q; want one line ending %q", code, errOut, w)
	}
	// The same file, existing but empty of result sets.
	if err := os.WriteFile(name, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ = runCLI(t, "export", "--db", sqliteDSN(t), "--allow-empty", name)
	checkClean(t, "export's note", errOut)
	if !strings.Contains(errOut, `run\x1b]0;pwned\a\x9b\nx.json: holds no result set`) {
		t.Errorf("export --allow-empty: %q", errOut)
	}
}
