package main

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/profdb/profdb/resultset"
)

// commitFails is a Target whose Commit fails as a commit does when the
// interruption closes the connection while the server commits: the client
// cannot tell whether it did.
type commitFails struct{ resultset.Memory }

func (t *commitFails) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	w, err := t.Memory.Begin(ctx, h)
	return failingCommit{w}, err
}

type failingCommit struct{ resultset.ResultWriter }

func (failingCommit) Commit() (resultset.Result, error) {
	return resultset.Result{}, errors.New("driver: bad connection")
}

// TestInterruptedWhileCommitting: a result set whose Commit was under way
// when the signal came is reported as up to the server, never as rolled
// back (a copy that the target had committed was once reported "rolled
// back, nothing of it written"); one committed is reported with the
// description the copy gives it.
func TestInterruptedWhileCommitting(t *testing.T) {
	ctx := context.Background()
	rep := &ledger{}
	rs := &resultset.ResultSet{Header: resultset.Header{Profiler: "function-trace", Caption: "x"}}
	target := ledgerTarget{Target: &commitFails{}, r: rep, work: "copy of INST_ID 3", undo: "nothing of it written"}
	if _, err := resultset.Export(ctx, target, rs); err == nil {
		t.Fatal("the commit did not fail")
	}
	msg := rep.message(interrupted{syscall.SIGINT})
	if strings.Contains(msg, "rolled back") || !strings.Contains(msg, "copy of INST_ID 3 was interrupted while committing") {
		t.Errorf("message %q", msg)
	}

	rep = &ledger{}
	done := ledgerTarget{Target: &resultset.Memory{}, r: rep, work: "copy of INST_ID 3", undo: "nothing of it written",
		done: func(res resultset.Result) string { return "INST_ID 3 -> INST_ID 1" }}
	if _, err := resultset.Export(ctx, done, rs); err != nil {
		t.Fatal(err)
	}
	if msg := rep.message(interrupted{syscall.SIGTERM}); msg != "interrupted by SIGTERM; INST_ID 3 -> INST_ID 1 committed" {
		t.Errorf("message %q", msg)
	}
}
