package selector

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/runid"
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

// Selector is a parsed selector.
type Selector struct {
	Text    string // as given
	Kind    Kind
	InstID  int64  // the INST_ID of an ID selector
	Value   string // the branch, commit prefix (lower case), label value or revision
	Key     string // the label's key
	Back    int    // N of ~N: how many candidates to skip, newest first
	HasBack bool   // a ~N was given (~0 included)
}

// ErrSyntax is wrapped by the errors of Parse.
var ErrSyntax = errors.New("not a selector")

// Parse parses a selector: an INST_ID, latest, branch:NAME, commit:SHA or
// label:KEY=VALUE, each with an optional ~N suffix, or ancestor:REV, whose
// REV is all the rest of the text, given to git as it is (HEAD~1 is git's
// HEAD~1), with profdb's ~N written on the word: ancestor~N:REV.
func Parse(text string) (Selector, error) {
	s := Selector{Text: text}
	body := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(body, "ancestor"); ok && rest != "" && (rest[0] == ':' || rest[0] == '~') {
		return parseAncestor(s, rest)
	}
	if i := strings.LastIndexByte(body, '~'); i >= 0 {
		n, ok := parseBack(body[i+1:])
		if !ok {
			return Selector{}, syntaxf(text, "~ must be followed by a number of result sets to go back (latest~1)")
		}
		s.Back, s.HasBack, body = n, true, body[:i]
	}
	kind, value, prefixed := strings.Cut(body, ":")
	if !prefixed {
		if body == "latest" {
			s.Kind = Latest
			return s, nil
		}
		id, err := strconv.ParseInt(body, 10, 64)
		if err != nil || id < 1 {
			return Selector{}, syntaxf(text, "want an INST_ID, latest, branch:NAME, commit:SHA or label:KEY=VALUE, each with an optional ~N, or ancestor:REV (ancestor~N:REV)")
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
		p, err := runid.ParseCommitPrefix(value)
		if err != nil {
			return Selector{}, fmt.Errorf("%s: %w: commit: %w", termtext.Short(text), ErrSyntax, runid.ErrCommitPrefix)
		}
		s.Kind, s.Value = Commit, p
	case "label":
		k, v, err := runid.ParseLabel(value)
		if err != nil {
			return Selector{}, fmt.Errorf("%s: %w: %w", termtext.Short(text), ErrSyntax, err)
		}
		s.Kind, s.Key, s.Value = Label, k, v
	default:
		return Selector{}, syntaxf(text, "unknown form %s: (want branch:, commit:, label: or ancestor:)", termtext.Short(kind))
	}
	return s, nil
}

// parseAncestor parses what follows the word ancestor: ":REV" or
// "~N:REV". REV is git's, all of it: a ~ in it is git's too.
func parseAncestor(s Selector, rest string) (Selector, error) {
	if after, ok := strings.CutPrefix(rest, "~"); ok {
		num, rev, ok := strings.Cut(after, ":")
		n, valid := parseBack(num)
		if !ok || !valid {
			return Selector{}, syntaxf(s.Text, "ancestor~N:REV takes a number of result sets to go back, then : and a git revision (ancestor~1:origin/main)")
		}
		s.Back, s.HasBack, rest = n, true, ":"+rev
	}
	rev := rest[1:]
	switch {
	case rev == "":
		return Selector{}, syntaxf(s.Text, "nothing after ancestor:")
	case strings.HasPrefix(rev, "-"):
		return Selector{}, syntaxf(s.Text, "ancestor: takes a git revision, which does not begin with -")
	}
	s.Kind, s.Value = Ancestor, rev
	return s, nil
}

// parseBack reads the N of ~N: a number of 0 or more, digits only.
func parseBack(num string) (int, bool) {
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || num == "" || strings.ContainsAny(num, "+-") {
		return 0, false
	}
	return n, true
}

func syntaxf(text, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", termtext.Short(text), ErrSyntax, fmt.Sprintf(format, args...))
}

// String returns the selector as it was given.
func (s Selector) String() string { return s.Text }

// IsID reports whether the selector is an INST_ID without ~N.
func (s Selector) IsID() bool { return s.Kind == ID && s.Back == 0 }
