package selector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/gitexec"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/store"
)

// DefaultMaxWalk is how many commits ancestor: walks back from its
// revision, at most, when the Resolver does not say.
const DefaultMaxWalk = 100000

// Resolver finds the result sets selectors name in a database.
type Resolver struct {
	DB *store.DB
	// Source, when set, is read instead of DB: a readback.Reader, which
	// reads in its one snapshot, so that a selector is resolved in the
	// same snapshot as the figures read for it.
	Source Source
	// Dir is the working directory whose git repository ancestor: reads;
	// "" for the process's.
	Dir string
	// Git is the git program; "" for "git" on the PATH. It runs through
	// internal/gitexec, as everywhere profdb runs git.
	Git string
	// MaxWalk bounds the commits ancestor: walks; 0 for DefaultMaxWalk.
	MaxWalk int
}

// Source is what a Resolver reads: a store.DB, each call in a snapshot
// of its own, or a readback.Reader, in its snapshot.
type Source interface {
	Select(ctx context.Context, f store.Filter) ([]store.Listing, error)
	Commits(ctx context.Context, profiler string) (map[string]bool, error)
}

// source is Source when set, else DB.
func (r *Resolver) source() Source {
	if r.Source != nil {
		return r.Source
	}
	return r.DB
}

// NotFoundError is the error for a selector that matches no result set:
// it says what was looked for.
type NotFoundError struct {
	Selector string // the selector as given
	Looked   string // what was looked for: "no result set of profiler … on branch main (newest first, skipping 2)"
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: %s", termtext.Short(e.Selector), e.Looked)
}

// AmbiguousError is the error for a commit: prefix that begins the names
// of more than one recorded commit.
type AmbiguousError struct {
	Selector string
	Commits  []string // the commits it begins, sorted
}

func (e *AmbiguousError) Error() string {
	names := e.Commits
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(e.Commits)-5)
	}
	quoted := make([]string, len(names))
	for i, c := range names {
		quoted[i] = termtext.Name(c)
	}
	return fmt.Sprintf("%s is ambiguous: it begins %d recorded commits (%s%s); give more digits",
		termtext.Short(e.Selector), len(e.Commits), strings.Join(quoted, ", "), more)
}

// Resolve returns the result set s names. An INST_ID without ~N is
// returned as it is, without reading the database (the command that reads
// it says whether the database holds it): only its InstID is set.
func (r *Resolver) Resolve(ctx context.Context, s Selector) (store.Listing, error) {
	if s.IsID() {
		return store.Listing{InstID: s.InstID}, nil
	}
	return r.resolve(ctx, s, "", 0)
}

// Selection returns the result sets a list names (ParseList) as a
// store.Selection, for store.DB.Named to pick those the database holds:
// INST_IDs and ranges as they are, every other selector resolved to the
// INST_ID it names (Resolve).
func (r *Resolver) Selection(ctx context.Context, items []Item) (store.Selection, error) {
	var sel store.Selection
	for _, it := range items {
		if it.IsRange() {
			sel.Ranges = append(sel.Ranges, it.Range)
			continue
		}
		l, err := r.Resolve(ctx, it.Selector)
		if err != nil {
			return store.Selection{}, err
		}
		sel.IDs = append(sel.IDs, l.InstID)
	}
	return sel, nil
}

// Second returns the result set s names to be set beside first (compare's
// B, check's --baseline). A selector other than an INST_ID picks among
// the result sets of first's profiler, newest first, first counted among
// them like any other, so that ~N means what it means for the first: N
// of them skipped. Only a selector without ~N passes over first when
// first is the newest of its candidates (branch:main beside main's newest
// is main's newest before it). A selector with ~N that names first itself
// is an error wrapping ErrFirst. An INST_ID without ~N is returned as it
// is. first's profiler is looked up when first does not give it.
func (r *Resolver) Second(ctx context.Context, s Selector, first store.Listing) (store.Listing, error) {
	var l store.Listing
	if s.IsID() {
		l = store.Listing{InstID: s.InstID}
	} else {
		if first.Profiler == "" {
			got, err := r.source().Select(ctx, store.Filter{InstID: first.InstID})
			if err != nil {
				return store.Listing{}, err
			}
			if len(got) == 1 {
				first = got[0]
			}
		}
		var err error
		if l, err = r.resolve(ctx, s, first.Profiler, first.InstID); err != nil {
			return store.Listing{}, err
		}
	}
	if s.HasBack && l.InstID == first.InstID {
		return store.Listing{}, fmt.Errorf("%s: %w, INST_ID %d (~N counts the first among the candidates, newest first)",
			termtext.Short(s.Text), ErrFirst, first.InstID)
	}
	return l, nil
}

// ErrFirst is wrapped by the error of Second for a selector with ~N that
// names the first result set itself.
var ErrFirst = errors.New("names the first result set itself")

// resolve returns the result set s names among those of profiler (any
// when ""); first is the result set it is set beside (none when 0).
func (r *Resolver) resolve(ctx context.Context, s Selector, profiler string, first int64) (store.Listing, error) {
	back := s.Back
	if s.Kind == ID && back > 0 {
		back-- // the result sets before the INST_ID are the candidates: N~1 is the first of them
	}
	skipFirst := first > 0 && !s.HasBack // passed over when it is the newest candidate
	want := back + 1                     // candidates needed, newest first
	if skipFirst {
		want++
	}
	f := store.Filter{Profiler: profiler, Last: want}
	switch s.Kind {
	case ID:
		f.Before = s.InstID
	case Latest:
	case Branch:
		f.Branch = s.Value
	case Label:
		f.Labels = map[string]string{s.Key: s.Value}
	case Commit:
		f.Commit, f.Last = s.Value, 0
	case Ancestor:
		return r.ancestor(ctx, s, profiler, first, skipFirst)
	}
	got, err := r.source().Select(ctx, f)
	if err != nil {
		return store.Listing{}, err
	}
	if s.Kind == Commit {
		commits := map[string]bool{}
		for _, l := range got {
			if l.Run != nil {
				commits[strings.ToLower(l.Run.Commit)] = true
			}
		}
		if len(commits) > 1 {
			e := &AmbiguousError{Selector: s.Text}
			for c := range commits {
				e.Commits = append(e.Commits, c)
			}
			sort.Strings(e.Commits)
			return store.Listing{}, e
		}
	}
	if skipFirst && len(got) > 0 && got[len(got)-1].InstID == first {
		got = got[:len(got)-1]
	} else {
		skipFirst = false
	}
	if back < len(got) {
		return got[len(got)-1-back], nil
	}
	return store.Listing{}, r.notFound(s, profiler, skipped(skipFirst, first), len(got), "")
}

// skipped returns first when it was passed over, else 0.
func skipped(skip bool, first int64) int64 {
	if skip {
		return first
	}
	return 0
}

// notFound says what s looked for; passed is the first result set when it
// was passed over (0 when not), matched how many result sets did match
// (fewer than ~N needs), extra a note on what was searched.
func (r *Resolver) notFound(s Selector, profiler string, passed int64, matched int, extra string) error {
	var b strings.Builder
	b.WriteString("no result set")
	if profiler != "" {
		b.WriteString(" of profiler " + termtext.Name(profiler))
	}
	switch s.Kind {
	case ID:
		fmt.Fprintf(&b, " %d back from INST_ID %d", s.Back, s.InstID)
	case Branch:
		b.WriteString(" on branch " + termtext.Name(s.Value))
	case Commit:
		b.WriteString(" at a commit beginning " + termtext.Name(s.Value))
	case Label:
		b.WriteString(" labelled " + termtext.Name(s.Key+"="+s.Value))
	case Ancestor:
		b.WriteString(" at " + termtext.Name(s.Value) + " or an ancestor of it")
	}
	if passed > 0 {
		fmt.Fprintf(&b, " other than INST_ID %d", passed)
	}
	switch {
	case s.Kind == ID:
		fmt.Fprintf(&b, " (%d before it)", matched)
	case s.Back > 0:
		fmt.Fprintf(&b, " (newest first, skipping %d; %d match)", s.Back, matched)
	}
	if extra != "" {
		b.WriteString(extra)
	}
	return &NotFoundError{Selector: s.Text, Looked: b.String()}
}

// ancestor resolves ancestor:REV: it walks git rev-list REV, newest
// first, and takes the result sets of each commit that has any, newest
// first, until it has skipped s.Back of them (first passed over when
// skipFirst and it is the first met). The recorded commits are read once;
// a commit's result sets are read only when it has some. git runs through
// gitexec, as everywhere profdb runs it.
func (r *Resolver) ancestor(ctx context.Context, s Selector, profiler string, first int64, skipFirst bool) (store.Listing, error) {
	recorded, err := r.source().Commits(ctx, profiler)
	if err != nil {
		return store.Listing{}, err
	}
	walk := r.MaxWalk
	if walk <= 0 {
		walk = DefaultMaxWalk
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, err := gitexec.New(wctx, r.Git, r.Dir)
	if err != nil {
		var notRun *exec.Error
		switch {
		case ctx.Err() != nil:
			return store.Listing{}, ctx.Err()
		case errors.As(err, &notRun):
			return store.Listing{}, fmt.Errorf("%s: %w", termtext.Short(s.Text), err)
		}
		return store.Listing{}, fmt.Errorf("%s: git in %s: %w: %w", termtext.Short(s.Text), dirName(r.Dir), ErrGit, err)
	}
	cmd := g.Command(wctx, "rev-list", "--max-count="+strconv.Itoa(walk), s.Value, "--")
	stderr := &gitexec.Capped{Max: 4096}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return store.Listing{}, fmt.Errorf("%s: git rev-list: %w", termtext.Short(s.Text), err)
	}
	if err := cmd.Start(); err != nil {
		return store.Listing{}, fmt.Errorf("%s: git rev-list: %w", termtext.Short(s.Text), err)
	}
	var found *store.Listing
	back, walked, matched, met := s.Back, 0, 0, 0
	passed := int64(0) // first, when passed over
	sc := bufio.NewScanner(out)
	for sc.Scan() && found == nil {
		walked++
		commit := strings.ToLower(strings.TrimSpace(sc.Text()))
		if !recorded[commit] {
			continue
		}
		got, err := r.source().Select(ctx, store.Filter{Commit: commit, Profiler: profiler, Last: back + 2})
		if err != nil {
			cancel()
			_ = cmd.Wait() // the walk is abandoned: its outcome no longer matters
			return store.Listing{}, err
		}
		for i := len(got) - 1; i >= 0; i-- {
			if got[i].Run == nil || !strings.EqualFold(got[i].Run.Commit, commit) {
				continue
			}
			met++
			if met == 1 && skipFirst && got[i].InstID == first {
				passed = first
				continue
			}
			matched++
			if back == 0 {
				found = &got[i]
				break
			}
			back--
		}
	}
	if found != nil {
		cancel()
		_ = cmd.Wait() // killed on purpose once the answer was found
		return *found, nil
	}
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return store.Listing{}, err
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return store.Listing{}, fmt.Errorf("%s: git rev-list %s in %s: %w: %s", termtext.Short(s.Text), termtext.Name(s.Value), dirName(r.Dir), ErrGit, termtext.Line(msg))
	}
	if err := sc.Err(); err != nil {
		return store.Listing{}, fmt.Errorf("%s: read git rev-list: %w", termtext.Short(s.Text), err)
	}
	extra := fmt.Sprintf(" (%d commits walked; the database records %d commits)", walked, len(recorded))
	if len(recorded) == 0 {
		extra = " (the database records no commit)"
	}
	s2 := s
	s2.Back = 0
	e := r.notFound(s2, profiler, passed, matched, extra)
	if s.Back > 0 {
		e.(*NotFoundError).Looked += fmt.Sprintf(" (newest first, skipping %d; %d match)", s.Back, matched)
	}
	return store.Listing{}, e
}

// ErrGit is wrapped by the error of an ancestor: selector whose git
// rev-list failed (no repository, an unknown revision).
var ErrGit = errors.New("git failed")

func dirName(dir string) string {
	if dir == "" {
		return "the working directory"
	}
	return termtext.Name(dir)
}
