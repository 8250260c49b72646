package selector

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/store"
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

// forms lists the forms of a selector besides an INST_ID, for errors.
const forms = "latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV"

// Parse parses a selector: an INST_ID, latest, branch:NAME, commit:SHA or
// label:KEY=VALUE, each with an optional ~N suffix, or ancestor:REV, whose
// REV is all the rest of the text, given to git as it is (HEAD~1 is git's
// HEAD~1), with profdb's ~N written on the word: ancestor~N:REV. Space
// around the text is ignored. A commit prefix and a label are read by
// runid's rules (ParseCommitPrefix, ParseLabel). Text that is none of
// these is an error wrapping ErrSyntax that says what is wrong: for text
// of no form at all, what a selector is.
func Parse(text string) (Selector, error) { return parse(text, false) }

// Item is one value of a list of result sets (ParseList): a range of
// INST_IDs, or a selector (an INST_ID is one).
type Item struct {
	Range    store.Range // A-B, both ends included; zero for a selector
	Selector Selector    // when Range is zero
}

// IsRange reports whether the item is a range A-B.
func (it Item) IsRange() bool { return it.Range != (store.Range{}) }

// ParseList parses a list of result sets, as --inst takes it in every
// command that has it: values separated by commas (each of values may hold
// several), each an INST_ID (7), a range A-B (3-7: two INST_IDs, A <= B,
// space around either ignored) or a selector (Parse). A value is a range
// when what comes before its first '-' is a number, which begins no
// selector. A value that is none of these is an error wrapping ErrSyntax;
// for one of no form at all it says what a list's value is. A list of no
// value is nil.
func ParseList(values []string) ([]Item, error) {
	var items []Item
	for _, v := range values {
		for _, text := range strings.Split(v, ",") {
			it, err := parseItem(text)
			if err != nil {
				return nil, err
			}
			items = append(items, it)
		}
	}
	return items, nil
}

// parseItem parses one value of a list.
func parseItem(text string) (Item, error) {
	if a, b, ok := strings.Cut(text, "-"); ok && digits(strings.TrimSpace(a)) {
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		from, err1 := strconv.ParseInt(a, 10, 64)
		to, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || err2 != nil || !digits(b) || from < 1 || to < from {
			return Item{}, noForm(text, true)
		}
		return Item{Range: store.Range{From: from, To: to}}, nil
	}
	s, err := parse(text, true)
	if err != nil {
		return Item{}, err
	}
	return Item{Selector: s}, nil
}

// digits reports whether s is one or more decimal digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// noForm is the error of text that has no form of a selector (nor, in a
// list, of a range).
func noForm(text string, list bool) error {
	if list {
		return syntaxError(fmt.Sprintf("%s: want an INST_ID (1, 2, ...) or a range A-B with A <= B, or a selector (%s)",
			termtext.Short(strings.TrimSpace(text)), forms))
	}
	return syntaxError(fmt.Sprintf("INST_ID must be a positive integer or a selector (%s), not %s", forms, termtext.Short(text)))
}

// syntaxError is an error of text that has no form at all: its text says
// what a selector is, and it matches ErrSyntax.
type syntaxError string

func (e syntaxError) Error() string { return string(e) }
func (e syntaxError) Unwrap() error { return ErrSyntax }

// parse parses a selector, alone or as a value of a list.
func parse(text string, list bool) (Selector, error) {
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
			return Selector{}, noForm(text, list)
		}
		s.Kind, s.InstID = ID, id
		return s, nil
	}
	switch {
	case kind != "branch" && kind != "commit" && kind != "label":
		return Selector{}, syntaxf(text, "unknown form %s: (want branch:, commit:, label: or ancestor:)", termtext.Short(kind))
	case value == "":
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
