package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// forceExitAfter is how long profdb waits, after SIGINT or SIGTERM, for the
// command to give up on its own (its connections are closed at once, so a
// blocked statement returns) before it exits anyway. The server rolls back
// the transaction of a connection that went away; SQLite rolls back the
// journal of an unfinished transaction when the file is next opened.
const forceExitAfter = 1500 * time.Millisecond

// interrupted is the cancellation cause of a command's context when profdb
// receives SIGINT or SIGTERM.
type interrupted struct{ sig syscall.Signal }

func (e interrupted) Error() string { return "interrupted by " + signalName(e.sig) }

// status is the exit status for the signal: 128 plus its number (130 for
// SIGINT, 143 for SIGTERM), as shells report a process the signal ended.
func (e interrupted) status() int { return 128 + int(e.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// watchSignals returns a context cancelled, with an interrupted cause, by
// the first SIGINT or SIGTERM. When the command has not returned
// forceExitAfter later, profdb prints what the ledger says and exits with the
// signal's status. stop ends the watch.
func watchSignals(stderr io.Writer, r *ledger) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			in := interrupted{s.(syscall.Signal)}
			cancel(in)
			select {
			case <-done:
			case <-time.After(r.graceAfter()):
				fmt.Fprintf(stderr, "profdb: %s\n", termtext.Line(r.message(in)))
				os.Exit(in.status())
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// ledger records what a command has finished and what it is in the middle
// of, for the message that an interrupted command prints.
type ledger struct {
	mu        sync.Mutex
	committed []string // e.g. "INST_ID 3"
	current   string   // e.g. "result set INST_ID 4"; "" for nothing under way
	undo      string   // what rolling current back means, e.g. "nothing written"
	unsure    bool     // current was interrupted while committing
	abandoned string   // the last work ended without commit, with its undo
	dbs       []*store.DB
	grace     time.Duration // how long a command may take to end after a signal; 0 for forceExitAfter
}

// graceAfter is how long profdb waits, after a signal, for the command to
// end: forceExitAfter, or what the command asked for (serve lets the
// requests in flight finish).
func (r *ledger) graceAfter() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.grace > 0 {
		return r.grace
	}
	return forceExitAfter
}

// watch adds a database whose lost connection explains a failure.
func (r *ledger) watch(db *store.DB) {
	r.mu.Lock()
	r.dbs = append(r.dbs, db)
	r.mu.Unlock()
}

// explain adds to err why a watched database's connection was lost, when
// err does not say so already.
func (r *ledger) explain(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, db := range r.dbs {
		if lost := db.ConnectionLost(); lost != nil && !strings.Contains(err.Error(), lost.Error()) {
			err = fmt.Errorf("%w; %w", err, lost)
		}
	}
	return err
}

// start records the work under way and what undoing it means.
func (r *ledger) start(what, undo string) {
	r.mu.Lock()
	r.current, r.undo, r.unsure, r.abandoned = what, undo, false, ""
	r.mu.Unlock()
}

// committing records that the work under way is being committed: an
// interruption now leaves its outcome to the server.
func (r *ledger) committing() {
	r.mu.Lock()
	r.unsure = true
	r.mu.Unlock()
}

// finish records the work under way as committed, described by done.
func (r *ledger) finish(done string) {
	r.mu.Lock()
	if done != "" {
		r.committed = append(r.committed, done)
	}
	r.current, r.unsure = "", false
	r.mu.Unlock()
}

// abandon records that the work under way ended without being committed,
// or, when its commit had begun (its connection lost, say), with an
// outcome only the server knows.
func (r *ledger) abandon() {
	r.mu.Lock()
	switch {
	case r.current != "" && r.unsure:
		r.abandoned = r.current + unsureCommit
	case r.current != "":
		r.abandoned = r.current + " rolled back, " + r.undo
	}
	r.current, r.unsure = "", false
	r.mu.Unlock()
}

// unsureCommit follows the work whose commit an interruption cut short.
const unsureCommit = " was interrupted while committing: whether it was committed is up to the server (profdb list shows it if so)"

// message says what an interruption left behind, for example
// "interrupted by SIGINT; result set INST_ID 4 rolled back, nothing written"
// or "interrupted by SIGTERM; INST_ID 1, INST_ID 2 committed; result set
// INST_ID 3 rolled back, nothing of it written".
func (r *ledger) message(in interrupted) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	parts := []string{in.Error()}
	if len(r.committed) > 0 {
		parts = append(parts, strings.Join(r.committed, ", ")+" committed")
	}
	switch {
	case r.current != "" && r.unsure:
		parts = append(parts, r.current+unsureCommit)
	case r.current != "":
		parts = append(parts, r.current+" rolled back, "+r.undo)
	case r.abandoned != "":
		parts = append(parts, r.abandoned)
	case len(r.committed) == 0:
		parts = append(parts, "nothing written")
	}
	msg := strings.Join(parts, "; ")
	if len(r.committed) > 0 {
		msg = strings.Replace(msg, ", nothing written", ", nothing of it written", 1)
	}
	return msg
}

// interruption returns the interruption that cancelled ctx, if one did.
func interruption(ctx context.Context) (interrupted, bool) {
	var in interrupted
	ok := errors.As(context.Cause(ctx), &in)
	return in, ok
}

// ledgerTarget records the result sets written through it in a ledger:
// started at Begin, being committed from the moment Commit is called (an
// interruption then leaves the outcome to the server, and says so), and
// committed once Commit returns.
type ledgerTarget struct {
	resultset.Target
	r *ledger
	// work and undo describe the result set to the ledger; "" for "result
	// set INST_ID n" and "nothing written".
	work, undo string
	// done describes it once committed; nil for "INST_ID n".
	done func(resultset.Result) string
}

func (t ledgerTarget) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	w, err := t.Target.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	what, undo := t.work, t.undo
	if what == "" {
		what = "result set"
		if id, ok := w.(interface{ InstID() int64 }); ok {
			what = fmt.Sprintf("result set INST_ID %d", id.InstID())
		}
	}
	if undo == "" {
		undo = "nothing written"
	}
	t.r.start(what, undo)
	return ledgerWriter{w, t}, nil
}

type ledgerWriter struct {
	resultset.ResultWriter
	t ledgerTarget
}

func (w ledgerWriter) Commit() (resultset.Result, error) {
	w.t.r.committing()
	res, err := w.ResultWriter.Commit()
	if err == nil {
		done := fmt.Sprintf("INST_ID %d", res.InstID)
		if w.t.done != nil {
			done = w.t.done(res)
		}
		w.t.r.finish(done)
	}
	return res, err
}

func (w ledgerWriter) Rollback() error {
	err := w.ResultWriter.Rollback()
	w.t.r.abandon()
	return err
}

// joinInsts lists INST_IDs for a message: "3", "3, 4, 7".
func joinInsts(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
