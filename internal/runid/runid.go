package runid

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/profdb/profdb/internal/gitexec"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/resultset"
)

// Bounds on the values taken from the environment, in bytes: a longer one
// is dropped, never cut (a cut branch name or address would name
// something else).
const (
	MaxBranch   = 255
	MaxBuildID  = 128
	MaxBuildURL = 2048
	MaxLabelKey = 64
	MaxLabel    = 1024 // a label's value
)

// MaxLabels is the most labels a run may have. A label names what a CI
// run varies or is sorted by (suite, os, arch, shard, compiler): the axes
// of a build matrix and a few more. A matrix has few axes (GitHub Actions
// caps one at 256 jobs, GitLab CI at 200: eight axes of two values), so 16
// is twice that. It keeps a run's labels readable in list and show, which
// print this many (readback.LabelText), so every label profdb wrote is
// shown; and what one run's labels take, read back with each listing, is
// at most 16 × (MaxLabelKey + MaxLabel) bytes, 17 KiB.
const MaxLabels = 16

// DefaultTimeout bounds the git commands Capture runs, together.
const DefaultTimeout = 5 * time.Second

// Names of the CI systems, as resultset.Run.CI records them.
const (
	GitHubActions      = "github-actions"
	GitLabCI           = "gitlab-ci"
	Jenkins            = "jenkins"
	AzurePipelines     = "azure-pipelines"
	TeamCity           = "teamcity"
	CircleCI           = "circleci"
	Buildkite          = "buildkite"
	BitbucketPipelines = "bitbucket-pipelines"
	Git                = "git" // no CI: read from git alone
)

// Options tune Capture.
type Options struct {
	// Lookup reads an environment variable (os.LookupEnv); nil reads none.
	Lookup func(string) (string, bool)
	// Dir is the folder git runs in; "" is the current one.
	Dir string
	// NoGit: read the environment only.
	NoGit bool
	// Git is the git program; "" is "git" found on PATH.
	Git string
	// Timeout bounds the git commands together; 0 is DefaultTimeout.
	Timeout time.Duration
}

// Capture returns the run's identity: from the CI's environment, with what
// it lacks from git where git's HEAD is the CI's commit; else from git
// alone; else nil. Git missing, the folder not a repository, git failing
// or timing out are not errors (nothing is known from git); the only error
// is ctx's, when it ends.
func Capture(ctx context.Context, o Options) (*resultset.Run, error) {
	lookup := o.Lookup
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	run := FromEnv(lookup)
	if o.NoGit {
		return run, nil
	}
	g := FromGit(ctx, o)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run identity: %w", err)
	}
	switch {
	case g == nil:
		return run, nil
	case run == nil:
		return g, nil
	case run.Commit == "" || run.Commit == g.Commit:
		// The CI's checkout: git tells what the CI did not.
		run.Commit = g.Commit
		if run.Branch == "" {
			run.Branch = g.Branch
		}
		run.Dirty = g.Dirty
	}
	return run, nil
}

// env reads CI variables through a lookup, cleaned (clean).
type env func(string) (string, bool)

// get returns the variable's value, cleaned and bounded by max ("" when
// unset, empty, or dropped).
func (e env) get(name string, max int) string {
	v, ok := e(name)
	if !ok {
		return ""
	}
	return clean(v, max)
}

// set reports whether the variable is set and not empty.
func (e env) set(name string) bool {
	v, ok := e(name)
	return ok && v != ""
}

// clean removes control characters and surrounding space from v, and
// returns "" for text that is not UTF-8 or is longer than max bytes.
func clean(v string, max int) string {
	if !utf8.ValidString(v) {
		return ""
	}
	v = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, v))
	if len(v) > max {
		return ""
	}
	return v
}

// provider reads one CI system's variables.
type provider struct {
	name   string
	marker func(env) bool
	read   func(env) resultset.Run
}

var providers = []provider{
	{GitHubActions, func(e env) bool { return e.get("GITHUB_ACTIONS", 16) == "true" }, func(e env) resultset.Run {
		// GITHUB_HEAD_REF is set on pull_request events only: the PR's
		// branch (GITHUB_REF_NAME is then "N/merge").
		branch := e.get("GITHUB_HEAD_REF", MaxBranch)
		if branch == "" && (e.get("GITHUB_REF_TYPE", 16) == "branch" || strings.HasPrefix(e.get("GITHUB_REF", MaxBranch+16), "refs/heads/")) {
			branch = e.get("GITHUB_REF_NAME", MaxBranch)
		}
		r := resultset.Run{Commit: e.get("GITHUB_SHA", 64), Branch: branch, BuildID: e.get("GITHUB_RUN_ID", MaxBuildID)}
		server, repo := e.get("GITHUB_SERVER_URL", MaxBuildURL), e.get("GITHUB_REPOSITORY", MaxBuildURL)
		if server != "" && repo != "" && r.BuildID != "" {
			r.BuildURL = strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + url.PathEscape(r.BuildID)
		}
		return r
	}},
	{GitLabCI, func(e env) bool { return e.get("GITLAB_CI", 16) == "true" }, func(e env) resultset.Run {
		branch := e.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", MaxBranch)
		if branch == "" {
			branch = e.get("CI_COMMIT_BRANCH", MaxBranch)
		}
		if branch == "" && !e.set("CI_COMMIT_TAG") {
			branch = e.get("CI_COMMIT_REF_NAME", MaxBranch)
		}
		return resultset.Run{Commit: e.get("CI_COMMIT_SHA", 64), Branch: branch,
			BuildID: e.get("CI_PIPELINE_ID", MaxBuildID), BuildURL: e.get("CI_PIPELINE_URL", MaxBuildURL)}
	}},
	{Jenkins, func(e env) bool { return e.set("JENKINS_URL") }, func(e env) resultset.Run {
		// A multibranch pipeline's pull request: BRANCH_NAME is "PR-12",
		// CHANGE_BRANCH the branch. The git plugin's GIT_BRANCH names the
		// remote: "origin/main".
		branch := e.get("CHANGE_BRANCH", MaxBranch)
		if branch == "" {
			branch = e.get("BRANCH_NAME", MaxBranch)
		}
		if branch == "" {
			if b := e.get("GIT_BRANCH", MaxBranch); b != "" {
				b = strings.TrimPrefix(b, "refs/heads/")
				if _, after, ok := strings.Cut(b, "/"); ok && strings.HasPrefix(b, "origin/") {
					b = after
				}
				branch = b
			}
		}
		return resultset.Run{Commit: e.get("GIT_COMMIT", 64), Branch: branch,
			BuildID: e.get("BUILD_NUMBER", MaxBuildID), BuildURL: e.get("BUILD_URL", MaxBuildURL)}
	}},
	{AzurePipelines, func(e env) bool { return strings.EqualFold(e.get("TF_BUILD", 16), "true") }, func(e env) resultset.Run {
		branch := headsBranch(e.get("SYSTEM_PULLREQUEST_SOURCEBRANCH", MaxBranch+16), true)
		if branch == "" {
			branch = headsBranch(e.get("BUILD_SOURCEBRANCH", MaxBranch+16), false)
		}
		r := resultset.Run{Commit: e.get("BUILD_SOURCEVERSION", 64), Branch: branch, BuildID: e.get("BUILD_BUILDID", MaxBuildID)}
		coll := e.get("SYSTEM_COLLECTIONURI", MaxBuildURL)
		if coll == "" {
			coll = e.get("SYSTEM_TEAMFOUNDATIONCOLLECTIONURI", MaxBuildURL)
		}
		if project := e.get("SYSTEM_TEAMPROJECT", MaxBuildURL); coll != "" && project != "" && r.BuildID != "" {
			r.BuildURL = strings.TrimSuffix(coll, "/") + "/" + url.PathEscape(project) + "/_build/results?buildId=" + url.QueryEscape(r.BuildID)
		}
		return r
	}},
	{TeamCity, func(e env) bool { return e.set("TEAMCITY_VERSION") }, func(e env) resultset.Run {
		// TeamCity passes no branch to the build's environment
		// (teamcity.build.branch is a configuration parameter): git, or
		// --branch %teamcity.build.branch%, tells it.
		return resultset.Run{Commit: e.get("BUILD_VCS_NUMBER", 64),
			BuildID: e.get("BUILD_NUMBER", MaxBuildID), BuildURL: e.get("BUILD_URL", MaxBuildURL)}
	}},
	{CircleCI, func(e env) bool { return e.get("CIRCLECI", 16) == "true" }, func(e env) resultset.Run {
		return resultset.Run{Commit: e.get("CIRCLE_SHA1", 64), Branch: e.get("CIRCLE_BRANCH", MaxBranch),
			BuildID: e.get("CIRCLE_BUILD_NUM", MaxBuildID), BuildURL: e.get("CIRCLE_BUILD_URL", MaxBuildURL)}
	}},
	{Buildkite, func(e env) bool { return e.get("BUILDKITE", 16) == "true" }, func(e env) resultset.Run {
		return resultset.Run{Commit: e.get("BUILDKITE_COMMIT", 64), Branch: e.get("BUILDKITE_BRANCH", MaxBranch),
			BuildID: e.get("BUILDKITE_BUILD_NUMBER", MaxBuildID), BuildURL: e.get("BUILDKITE_BUILD_URL", MaxBuildURL)}
	}},
	{BitbucketPipelines, func(e env) bool { return e.set("BITBUCKET_BUILD_NUMBER") }, func(e env) resultset.Run {
		r := resultset.Run{Commit: e.get("BITBUCKET_COMMIT", 64), Branch: e.get("BITBUCKET_BRANCH", MaxBranch),
			BuildID: e.get("BITBUCKET_BUILD_NUMBER", MaxBuildID)}
		if origin := e.get("BITBUCKET_GIT_HTTP_ORIGIN", MaxBuildURL); origin != "" && r.BuildID != "" {
			if rest, ok := strings.CutPrefix(origin, "http://"); ok {
				origin = "https://" + rest // Bitbucket serves its pages over https
			}
			r.BuildURL = strings.TrimSuffix(origin, "/") + "/pipelines/results/" + url.PathEscape(r.BuildID)
		}
		return r
	}},
}

// headsBranch returns the branch of a ref refs/heads/NAME; a ref of
// another kind (a tag, a pull request's merge ref) names no branch, unless
// bare, a name given without refs/ (Azure gives a pull request's source
// branch either way), which is returned as it is.
func headsBranch(ref string, bare bool) string {
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return b
	}
	if bare && !strings.HasPrefix(ref, "refs/") {
		return ref
	}
	return ""
}

// FromEnv returns the identity the environment of a CI system gives, read
// through lookup; nil when no CI system's marker is set. An invalid commit
// is left out.
func FromEnv(lookup func(string) (string, bool)) *resultset.Run {
	e := env(lookup)
	for _, p := range providers {
		if !p.marker(e) {
			continue
		}
		r := p.read(e)
		r.CI = p.name
		if !ValidCommit(r.Commit) {
			r.Commit = ""
		}
		r.Commit = strings.ToLower(r.Commit)
		if len(r.Branch) > MaxBranch {
			r.Branch = ""
		}
		if len(r.BuildURL) > MaxBuildURL {
			r.BuildURL = ""
		}
		return &r
	}
	return nil
}

// FromGit returns the identity git gives in o.Dir: the commit, the branch
// (none on a detached HEAD) and whether tracked files have changes; nil
// when git is missing, fails, runs out of time, or the folder is not in a
// repository with a commit. CI is "git".
func FromGit(ctx context.Context, o Options) *resultset.Run {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	g, err := gitexec.New(ctx, o.Git, o.Dir)
	if err != nil {
		return nil
	}
	git := func(args ...string) (string, error) {
		out := &gitexec.Capped{Max: maxGitOutput}
		cmd := g.Command(ctx, args...)
		cmd.Stdout = out
		cmd.Stderr = nil
		err := cmd.Run()
		return out.String(), err
	}
	commit, err := git("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	commit = strings.TrimSpace(commit)
	if err != nil || !ValidCommit(commit) {
		return nil
	}
	r := &resultset.Run{Commit: strings.ToLower(commit), CI: Git}
	branch, err := git("symbolic-ref", "--quiet", "--short", "HEAD")
	if err == nil {
		r.Branch = clean(branch, MaxBranch)
	} else if ctx.Err() != nil {
		return nil
	}
	// --ignore-submodules=dirty: git status would otherwise run git status
	// in each submodule, under the submodule's own configuration, whose
	// filter drivers gitexec has not switched off.
	status, err := git("status", "--porcelain", "--untracked-files=no", "--ignore-submodules=dirty")
	if err == nil {
		dirty := strings.TrimSpace(status) != ""
		r.Dirty = &dirty
	} else if ctx.Err() != nil {
		return nil
	}
	return r
}

// maxGitOutput bounds what FromGit keeps of a git command's output: more
// than any object name or branch it keeps (a longer answer is no commit, a
// branch too long), and plenty to tell that git status printed something,
// however many files it lists.
const maxGitOutput = 4096

// ValidCommit reports whether s is a full git object name: 40 (SHA-1) or
// 64 (SHA-256) hexadecimal digits, in either case.
func ValidCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// MinCommitPrefix is the fewest hexadecimal digits a commit prefix has
// (ParseCommitPrefix): as many as git abbreviates an object name to by
// default, so that a prefix names one commit of most histories.
const MinCommitPrefix = 7

// ErrCommitPrefix is wrapped by the errors of ParseCommitPrefix.
var ErrCommitPrefix = fmt.Errorf("want %d or more hexadecimal digits of a commit's name", MinCommitPrefix)

// ParseCommitPrefix reads a prefix of a commit's object name, the one
// rule for every place that takes one (the commit: selector, --commit of
// list, trend and report, store.Filter.Commit): MinCommitPrefix or more
// hexadecimal digits, in either case, returned in lower case, as object
// names are recorded. Anything else (fewer digits, another character,
// space around it) is an error wrapping ErrCommitPrefix that quotes s
// cut (termtext.Short).
func ParseCommitPrefix(s string) (string, error) {
	p := strings.ToLower(s)
	if len(p) < MinCommitPrefix || strings.Trim(p, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%s: %w", termtext.Short(s), ErrCommitPrefix)
	}
	return p, nil
}

var labelKey = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// ErrLabel is wrapped by the errors of ParseLabel.
var ErrLabel = errors.New("want KEY=VALUE: KEY 1 to 64 letters, digits, '_', '.' or '-'; VALUE 1 to 1,024 bytes of text without control characters or surrounding space")

// ParseLabel splits a label KEY=VALUE at its first '=', the one rule for
// every place that takes a label (export's, merge's, copy's and script's
// --label, which record it; the label: selector and --label of list, trend
// and report, which match it): KEY 1 to MaxLabelKey ASCII letters,
// digits, '_', '.' or '-'; VALUE 1 to MaxLabel bytes of UTF-8 without
// control characters or surrounding space ("k=a=b" is k, "a=b"). A label
// the rule refuses could never have been recorded, so a filter or
// selector with one is an error too, not a search that finds nothing.
// The error wraps ErrLabel and quotes s cut (termtext.Short).
func ParseLabel(s string) (key, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok || !labelKey.MatchString(key) || value == "" || clean(value, MaxLabel) != value {
		return "", "", fmt.Errorf("label %s: %w", termtext.Short(s), ErrLabel)
	}
	return key, value, nil
}

// ParseLabels reads labels given one by one (a repeated --label) with
// ParseLabel into a map; nil when none is given. A key given twice, with
// whatever values, is an error.
func ParseLabels(given []string) (map[string]string, error) {
	var labels map[string]string
	for _, l := range given {
		k, v, err := ParseLabel(l)
		if err != nil {
			return nil, err
		}
		if _, dup := labels[k]; dup {
			return nil, fmt.Errorf("label key %q given twice", k)
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	return labels, nil
}

// Given is what the user gave on the command line, over what Capture
// found.
type Given struct {
	Commit, Branch, BuildID, BuildURL string
	Labels                            map[string]string
}

// Check validates what the user gave: a commit of 40 or 64 hexadecimal
// digits, a branch, build ID and address within their bounds and without
// control characters, at most MaxLabels labels. A value in an error is
// cut (termtext.Short).
func (g Given) Check() error {
	if g.Commit != "" && !ValidCommit(g.Commit) {
		return fmt.Errorf("commit %s: want the full object name, 40 or 64 hexadecimal digits (git rev-parse HEAD)", termtext.Short(g.Commit))
	}
	if len(g.Labels) > MaxLabels {
		return fmt.Errorf("label: %d labels given; a run has at most %d", len(g.Labels), MaxLabels)
	}
	for _, f := range []struct {
		what, v string
		max     int
	}{{"branch", g.Branch, MaxBranch}, {"build ID", g.BuildID, MaxBuildID}, {"build URL", g.BuildURL, MaxBuildURL}} {
		if f.v != "" && clean(f.v, f.max) != f.v {
			return fmt.Errorf("%s %s: want at most %d bytes of UTF-8 text without control characters or surrounding space", f.what, termtext.Short(f.v), f.max)
		}
	}
	return nil
}

// Apply returns run with what g gives in place of what run holds (run may
// be nil); nil when both are empty. run is not changed.
func (g Given) Apply(run *resultset.Run) *resultset.Run {
	var r resultset.Run
	if run != nil {
		r = *run
		if run.Labels != nil {
			r.Labels = make(map[string]string, len(run.Labels))
			for k, v := range run.Labels {
				r.Labels[k] = v
			}
		}
	}
	if g.Commit != "" {
		if !strings.EqualFold(g.Commit, r.Commit) {
			r.Dirty = nil // whether the tree was dirty is known of git's commit only
		}
		r.Commit = strings.ToLower(g.Commit)
	}
	if g.Branch != "" {
		r.Branch = g.Branch
	}
	if g.BuildID != "" {
		r.BuildID = g.BuildID
	}
	if g.BuildURL != "" {
		r.BuildURL = g.BuildURL
	}
	for k, v := range g.Labels {
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		r.Labels[k] = v
	}
	if empty(&r) {
		return nil
	}
	return &r
}

// empty reports whether r records nothing.
func empty(r *resultset.Run) bool {
	return r.Commit == "" && r.Branch == "" && r.Dirty == nil && r.CI == "" && r.BuildID == "" && r.BuildURL == "" &&
		len(r.Labels) == 0 && len(r.MergedFrom) == 0
}

// Overlay returns under with what over holds in its place, field by field
// (labels key by key); nil when both are nil. Neither is changed.
func Overlay(under, over *resultset.Run) *resultset.Run {
	if over == nil {
		return under
	}
	if under == nil {
		return over
	}
	r := Given{Commit: over.Commit, Branch: over.Branch, BuildID: over.BuildID, BuildURL: over.BuildURL, Labels: over.Labels}.Apply(under)
	if r == nil {
		r = &resultset.Run{}
	}
	if over.Commit != "" {
		r.Dirty = over.Dirty
	}
	if over.CI != "" {
		r.CI = over.CI
	}
	if len(over.MergedFrom) > 0 {
		r.MergedFrom = append([]int64(nil), over.MergedFrom...)
	}
	if empty(r) {
		return nil
	}
	return r
}
