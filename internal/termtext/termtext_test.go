package termtext

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are names a profiler's output or a database may hold.
var hostile = []string{
	"\x1b]0;owned\x07",             // sets the terminal's title
	"Worker::\x1b[31mCompute",      // colour
	"\u009b2J",                     // the 8-bit CSI, as UTF-8
	"\x9b2J",                       // the 8-bit CSI as a raw byte: invalid UTF-8
	"a\tb\nc\rd\x7fe\x00f\x08",     // layout controls, DEL, NUL, backspace
	"evil\u202etxt.exe",            // right-to-left override
	"</script><img onerror=x>",     // markup is no terminal's business
	"\xff\xfe",                     // invalid UTF-8
	`"quoted" at the start`,        // would read as a quoted name
	`C:\src\app\main.cpp` + "\x1b", // a backslash in a name that is quoted
}

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main", "main"},
		{`C:\src\app\main.cpp`, `C:\src\app\main.cpp`},
		{"Worker::Compute", "Worker::Compute"},
		{"漢字ルーチン", "漢字ルーチン"},
		{"naïve café", "naïve café"},
		{"say \"hi\"", "say \"hi\""},
		{"", ""},
		{"\x1b]0;owned\x07", `"\x1b]0;owned\a"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{"\u009b2J", `"\u009b2J"`},
		{"\x9b2J", `"\x9b2J"`},
		{"a\tb", `"a\tb"`},
		{"x\x7f", `"x\x7f"`},
		{"evil\u202etxt", `"evil\u202etxt"`},
		{`"quoted"`, `"\"quoted\""`},
		{`C:\a` + "\n", `"C:\\a\n"`},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A printed name reads back exactly and holds no unsafe character.
func checkName(t *testing.T, s string) {
	t.Helper()
	p := Name(s)
	if !Safe(p) {
		t.Errorf("Name(%q) = %q is not safe", s, p)
	}
	back := p
	if strings.HasPrefix(p, `"`) {
		var err error
		if back, err = strconv.Unquote(p); err != nil {
			t.Errorf("Name(%q) = %s does not unquote: %v", s, p, err)
		}
	}
	if back != s {
		t.Errorf("Name(%q) = %s reads back as %q", s, p, back)
	}
}

func TestNameReadsBack(t *testing.T) {
	for _, s := range hostile {
		checkName(t, s)
	}
}

func FuzzName(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkName(t, s)
		if l := Line(s); !Safe(l) {
			t.Errorf("Line(%q) = %q is not safe", s, l)
		}
		for w := 0; w < 12; w++ {
			c := CutLeft(Name(s), w)
			if Width(c) > w {
				t.Errorf("CutLeft(%q, %d) = %q is %d wide", Name(s), w, c, Width(c))
			}
		}
	})
}

func TestQuoteIsStrconvQuote(t *testing.T) {
	for _, s := range append([]string{"nightly 42", "Sample.exe - unit tests", ""}, hostile...) {
		if got, want := Quote(s), strconv.Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`show: no result set 7 in INSTANCES`, `show: no result set 7 in INSTANCES`},
		{`table X: routine "a\x1bb" unknown`, `table X: routine "a\x1bb" unknown`}, // already escaped: as it is
		{"routine a\x1b]0;t\x07 unknown", `routine a\x1b]0;t\a unknown`},
		{"file \x9b.cpp", `file \x9b.cpp`},
		{"file \u009b.cpp", `file \u009b.cpp`},
		{"two\nlines", `two\nlines`},
		{`C:\src\main.cpp: 漢字`, `C:\src\main.cpp: 漢字`},
		{"rlo \u202e", `rlo \u202e`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestSafe(t *testing.T) {
	for _, s := range []string{"main", "漢字", `C:\x`, "a b", "\ufffd"} {
		if !Safe(s) {
			t.Errorf("Safe(%q) = false", s)
		}
	}
	// Markup and a leading quote are safe on a terminal; every other
	// hostile name holds a control character or an invalid byte.
	for _, s := range hostile {
		wantSafe := strings.HasPrefix(s, "<") || strings.HasPrefix(s, `"`)
		if Safe(s) != wantSafe {
			t.Errorf("Safe(%q) = %v", s, Safe(s))
		}
	}
	// Every C0 and C1 control and DEL is unsafe, alone or in a name.
	for r := rune(0); r < 0xa0; r++ {
		if r >= 0x20 && r < 0x7f {
			continue
		}
		s := "x" + string(r) + "y"
		if Safe(s) || !utf8.ValidString(Line(s)) || strings.ContainsRune(Line(s), r) {
			t.Errorf("U+%04X: Safe %v, Line %q", r, Safe(s), Line(s))
		}
	}
}

func TestWidthAndPad(t *testing.T) {
	for _, c := range []struct {
		s string
		w int
	}{{"main", 4}, {"漢字", 4}, {"ルーチン", 8}, {"e\u0301", 1}, {`"\x1b"`, 6}, {"", 0}} {
		if got := Width(c.s); got != c.w {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.w)
		}
		if p := Pad(c.s, 10); Width(p) != 10 || !strings.HasPrefix(p, c.s) {
			t.Errorf("Pad(%q, 10) = %q", c.s, p)
		}
	}
	if got := Pad("toolong", 3); got != "toolong" {
		t.Errorf("Pad(toolong, 3) = %q", got)
	}
}

func TestCutLeft(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{`C:\src\strutil\strutil.cpp`, 12, "…strutil.cpp"},
		{"漢字ルーチン", 7, "…ーチン"}, // 6 columns: the next wide one does not fit
		{"漢字ルーチン", 8, "…ーチン"},
		{"漢字ルーチン", 12, "漢字ルーチン"},
		{"abce\u0301", 3, "…ce\u0301"}, // the accent stays with its letter
		{"abc", 0, ""},
	} {
		got := CutLeft(c.s, c.w)
		if got != c.want {
			t.Errorf("CutLeft(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
		if Width(got) > c.w {
			t.Errorf("CutLeft(%q, %d) = %q is %d wide", c.s, c.w, got, Width(got))
		}
	}
}

func TestJSON(t *testing.T) {
	names := append([]string{"main", "漢字", "del\x7f", "\U000e0001tag", "a\u2028b", `C:\x`}, hostile...)
	in, err := json.MarshalIndent(map[string]any{"names": names}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(in)
	for _, l := range strings.Split(string(out), "\n") {
		if !Safe(l) {
			t.Errorf("JSON left an unsafe character in %q", l)
		}
	}
	var back struct{ Names []string }
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	for i, s := range names {
		want := strings.Map(func(r rune) rune { return r }, s) // U+FFFD for each invalid byte, as encoding/json
		if i >= len(back.Names) || back.Names[i] != want {
			t.Errorf("name %d reads back as %q, want %q", i, back.Names[i], want)
		}
	}
	if plain := []byte(`{"name": "main"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("JSON copied text it had nothing to escape in")
	}
	if got := string(JSON([]byte("\"\x9b\u009b\U0001d173\""))); got != `"\ufffd\u009b\ud834\udd73"` {
		t.Errorf("JSON = %s", got)
	}
}

// TestCut: long text is cut to its first characters and "…", never inside
// a character; Quote and Short cut before they quote, so a caption or a
// key of 200 MB prints as a short line.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"日本語です", 2, "日本…"},
		{"日本語", 3, "日本語"},
		{"a\xffb\xfec", 2, "a\xff…"},
		{"", 0, ""},
		{"x", 0, "…"},
	} {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	long := strings.Repeat("é\x1b", 1<<20)
	if got, want := Quote(long), strconv.Quote(strings.Repeat("é\x1b", QuoteRunes/2)+"…"); got != want {
		t.Errorf("Quote of %d bytes: %.80s…, want %.80s…", len(long), got, want)
	}
	if got, want := Short(long), strconv.Quote(strings.Repeat("é\x1b", ShortRunes/2)+"…"); got != want {
		t.Errorf("Short of %d bytes: %s, want %s", len(long), got, want)
	}
	if got := Short("short"); got != `"short"` {
		t.Errorf("Short(short) = %s", got)
	}
}

// TestField: a value from data is printed as Name prints it, cut first to
// QuoteRunes characters: a branch profdb records (at most 255 bytes) is
// whole, a megabyte another tool wrote is a line's worth ending in "…".
func TestField(t *testing.T) {
	for _, s := range []string{"main", "feature/" + strings.Repeat("x", 247), "", "\x1b[2J", `"quoted"`} {
		if got := Field(s); got != Name(s) {
			t.Errorf("Field(%q) = %s, want %s", s, got, Name(s))
		}
	}
	long := strings.Repeat("b", 1<<20)
	if got, want := Field(long), strings.Repeat("b", QuoteRunes)+"…"; got != want {
		t.Errorf("Field of 1 MiB: %d bytes, want %d", len(got), len(want))
	}
	hostile := strings.Repeat("\x1b", 1<<20)
	if got := Field(hostile); !Safe(got) || len(got) > 8*QuoteRunes {
		t.Errorf("Field of 1 MiB of escapes: %d bytes, safe %v", len(got), Safe(got))
	}
}
