package termtext

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// safe reports whether a rune prints as itself: strconv.IsPrint, the rule
// by which strconv.Quote escapes, and the one rule of this package. (An
// invalid byte decodes as U+FFFD, which is printable: callers check for it.)
func safe(r rune) bool { return strconv.IsPrint(r) }

// Safe reports whether s prints as itself: valid UTF-8 made of printable
// characters only.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !safe(r) {
			return false
		}
		i += size
	}
	return true
}

// Name returns a name (of a routine, file, module, class, …) as it is
// printed: s itself when it is safe (Safe) and does not begin with a
// double quote, else s quoted as strconv.Quote does it, as git quotes an
// unusual path. Either way the name reads back exactly: a printed name
// that begins with a double quote is quoted (strconv.Unquote), any other
// is the name.
func Name(s string) string {
	if Safe(s) && !strings.HasPrefix(s, `"`) {
		return s
	}
	return strconv.Quote(s)
}

// Quote returns s in double quotes with strconv.Quote's escapes, for text
// that is always shown quoted (a caption), cut to QuoteRunes characters
// (Cut).
func Quote(s string) string { return strconv.Quote(Cut(s, QuoteRunes)) }

// Short returns s quoted as Quote does it, cut to ShortRunes characters:
// for data text in an error message (a key, a name, a value).
func Short(s string) string { return strconv.Quote(Cut(s, ShortRunes)) }

// Field returns free text from data that a text or a page shows as a
// value of its own (a branch, a host, an input's name, a build's ID or
// URL, a label) as Name prints it, cut first to QuoteRunes characters
// (Cut), as Quote cuts a caption. Other tools write profdb's tables too:
// a value of a megabyte is shown as its start and "…", which tells it was
// cut; JSON output keeps it whole. A value profdb itself records (a
// branch of at most 255 bytes) is never cut.
func Field(s string) string { return Name(Cut(s, QuoteRunes)) }

// The most characters Quote and Field, and Short, keep.
const (
	QuoteRunes = 256
	ShortRunes = 64
)

// Cut returns s cut to its first n characters followed by "…" when it
// has more than n (an invalid byte counts as a character). Text from data
// may be of any length: a message shows its start.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// Line returns a message with every unsafe character and invalid byte
// replaced by its escape, as strconv.Quote writes it: "\x1b", "\n",
// "\u009b", "\x9b". The rest, backslashes and quotes included, stays as it
// is, so a message whose quoted parts are already escaped prints as
// before. A message so escaped is one line.
func Line(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case safe(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // 'x' with x escaped
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

func hex2(c byte) string {
	return string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
}

const hexDigits = "0123456789abcdef"

// Width returns the number of terminal columns s takes: an East Asian wide
// character two, a combining mark none. s is meant to be safe (Name, Line).
func Width(s string) int { return uniseg.StringWidth(s) }

// Pad returns s followed by the spaces that make it width columns wide
// (none when it is as wide or wider).
func Pad(s string, width int) string {
	if n := width - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// CutLeft shortens s to at most width columns, keeping its end (the telling
// part of a path or a qualified name) behind an ellipsis, and never
// splitting a character or a grapheme cluster. A cut that meets a wide
// character may leave s a column narrower than width.
func CutLeft(s string, width int) string {
	if Width(s) <= width {
		return s
	}
	if width < 1 {
		return ""
	}
	var clusters []string
	var widths []int
	state := -1
	for rest := s; rest != ""; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		clusters = append(clusters, c)
		widths = append(widths, w)
	}
	room := width - 1 // "…" takes one column
	start := len(clusters)
	for start > 0 && widths[start-1] <= room {
		room -= widths[start-1]
		start--
	}
	return "…" + strings.Join(clusters[start:], "")
}

// JSON returns JSON text, as encoding/json writes it, with every character
// that is not printable written as a \u escape: encoding/json escapes the
// C0 controls but writes DEL, the C1 controls (U+009B, the 8-bit CSI) and
// format characters as they are. Outside strings JSON text holds only
// ASCII, so the escapes fall inside strings and the value is unchanged:
// the names in it decode to exactly what they were. An invalid byte, which
// encoding/json never writes (it writes U+FFFD for one), becomes \ufffd.
func JSON(b []byte) []byte {
	var out []byte
	start := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if safe(r) && (r != utf8.RuneError || size > 1) {
			i += size
			continue
		}
		out = append(out, b[start:i]...)
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = appendU(appendU(out, r1), r2)
		} else {
			out = appendU(out, r)
		}
		i += size
		start = i
	}
	if out == nil {
		return b
	}
	return append(out, b[start:]...)
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
