package main

import (
	"context"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/resultset"
)

// identityOptions are the flags that name a run: --label, --commit,
// --branch, --build-id, --build-url and --no-identity.
type identityOptions struct {
	labels                            []string
	commit, branch, buildID, buildURL string
	none                              bool
}

// identityFlags adds the flags of identityOptions to a command. carried
// tells what --no-identity leaves out: what is captured from the CI and
// git (export, merge, script), or the source's (copy).
func identityFlags(cmd *cobra.Command, o *identityOptions, copying bool) {
	f := cmd.Flags()
	f.StringArrayVar(&o.labels, "label", nil,
		"label the result set `KEY=VALUE` (suite=unit, os=linux…), recorded in PROFDB_LABELS; repeatable, one value per KEY, "+
			"at most "+strconv.Itoa(runid.MaxLabels)+" labels; KEY: 1 to 64 letters, digits, '_', '.', '-'")
	f.StringVar(&o.commit, "commit", "", "the commit the run was built from, as the full object name `SHA` (git rev-parse HEAD), in place of the one found")
	f.StringVar(&o.branch, "branch", "", "the branch `NAME` the run was built from, in place of the one found")
	f.StringVar(&o.buildID, "build-id", "", "the CI's number or `ID` of the build, in place of the one found")
	f.StringVar(&o.buildURL, "build-url", "", "the `URL` of the build's page, in place of the one found")
	if copying {
		f.BoolVar(&o.none, "no-identity", false,
			"leave out the source's identity (commit, branch, CI, build, labels); what --commit, --branch, --build-id, --build-url and --label give is recorded")
	} else {
		f.BoolVar(&o.none, "no-identity", false,
			"look for no identity in the CI's environment or with git; what --commit, --branch, --build-id, --build-url and --label give is recorded")
	}
}

// given checks the flags and returns what they give (exit 2 on a bad one).
func (o *identityOptions) given() (runid.Given, error) {
	g := runid.Given{Commit: o.commit, Branch: o.branch, BuildID: o.buildID, BuildURL: o.buildURL}
	labels, err := runid.ParseLabels(o.labels)
	if err != nil {
		return g, usageErrorf("--label: %v", err)
	}
	g.Labels = labels
	if err := g.Check(); err != nil {
		return g, usageErrorf("--%s", err)
	}
	return g, nil
}

// capture returns the identity of the run being exported: found in the
// CI's environment or with git in the current folder (unless
// --no-identity), with what the flags give over it.
func (o *identityOptions) capture(ctx context.Context) (*resultset.Run, error) {
	g, err := o.given()
	if err != nil {
		return nil, err
	}
	var found *resultset.Run
	if !o.none {
		if found, err = runid.Capture(ctx, runid.Options{Lookup: os.LookupEnv}); err != nil {
			return nil, err
		}
	}
	return g.Apply(found), nil
}

// runTarget records a run's identity in every result set it passes on:
// base (what was captured), under what the result set carries (a copy's
// source, a merge's inputs), under what the flags give.
type runTarget struct {
	resultset.Target
	base  *resultset.Run
	given runid.Given
	drop  bool // leave out what the result set carries (copy --no-identity)
}

func (t runTarget) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	carried := h.Run
	if t.drop && carried != nil {
		carried = &resultset.Run{MergedFrom: carried.MergedFrom}
	}
	h.Run = t.given.Apply(runid.Overlay(t.base, carried))
	return t.Target.Begin(ctx, h)
}
