package selector

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
)

// Kind is a selector's form.
type Kind int

// The forms of a selector.
const (
	ID       Kind = iota // an INST_ID
	Latest               // latest
	Branch               // branch:NAME
	Commit               // commit:SHA
	Label                // label:KEY=VALUE
	Ancestor             // ancestor:REV
)

// MinCommit is the fewest hexadecimal digits commit: takes.
const MinCommit = 7

// Selector is a parsed selector.
type Selector struct {
	Text   string // as given
	Kind   Kind
	InstID int64  // the INST_ID of an ID selector
	Value  string // the branch, commit prefix (lower case), label value or revision
	Key    string // the label's key
	Back   int    // the ~N suffix: how many candidates to skip, newest first
}

// ErrSyntax is wrapped by the errors of Parse.
var ErrSyntax = errors.New("not a selector")

// Parse parses a selector: an INST_ID, latest, branch:NAME, commit:SHA,
// label:KEY=VALUE or ancestor:REV, each with an optional ~N suffix.
func Parse(text string) (Selector, error) {
	s := Selector{Text: text}
	body := strings.TrimSpace(text)
	if i := strings.LastIndexByte(body, '~'); i >= 0 {
		n, err := strconv.Atoi(body[i+1:])
		if err != nil || n < 0 || body[i+1:] == "" || strings.ContainsAny(body[i+1:], "+-") {
			return Selector{}, syntaxf(text, "~ must be followed by a number of result sets to go back (latest~1)")
		}
		s.Back, body = n, body[:i]
	}
	kind, value, prefixed := strings.Cut(body, ":")
	if !prefixed {
		if body == "latest" {
			s.Kind = Latest
			return s, nil
		}
		id, err := strconv.ParseInt(body, 10, 64)
		if err != nil || id < 1 {
			return Selector{}, syntaxf(text, "want an INST_ID, latest, branch:NAME, commit:SHA, label:KEY=VALUE or ancestor:REV, each with an optional ~N")
		}
		s.Kind, s.InstID = ID, id
		return s, nil
	}
	if value == "" {
		return Selector{}, syntaxf(text, "nothing after %s:", kind)
	}
	s.Value = value
	switch kind {
	case "branch":
		s.Kind = Branch
	case "commit":
		s.Kind, s.Value = Commit, strings.ToLower(value)
		if len(value) < MinCommit || strings.Trim(s.Value, "0123456789abcdef") != "" {
			return Selector{}, syntaxf(text, "commit: takes %d or more hexadecimal digits of a commit's name", MinCommit)
		}
	case "label":
		k, v, ok := strings.Cut(value, "=")
		if !ok || k == "" {
			return Selector{}, syntaxf(text, "label: takes KEY=VALUE")
		}
		s.Kind, s.Key, s.Value = Label, k, v
	case "ancestor":
		if strings.HasPrefix(value, "-") {
			return Selector{}, syntaxf(text, "ancestor: takes a git revision, which does not begin with -")
		}
		s.Kind = Ancestor
	default:
		return Selector{}, syntaxf(text, "unknown form %s: (want branch:, commit:, label: or ancestor:)", termtext.Short(kind))
	}
	return s, nil
}

func syntaxf(text, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", termtext.Short(text), ErrSyntax, fmt.Sprintf(format, args...))
}

// String returns the selector as it was given.
func (s Selector) String() string { return s.Text }

// IsID reports whether the selector is an INST_ID without ~N.
func (s Selector) IsID() bool { return s.Kind == ID && s.Back == 0 }
