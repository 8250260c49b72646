// Package runid finds a run's identity (resultset.Run) without being
// asked: the commit, the branch, the CI system and its build's number and
// address, from the environment a CI system sets, else from git in the
// working folder, else nothing.
//
// Capture does it. Environment variables are read through a lookup
// function (os.LookupEnv in the CLI, a map in tests), never set. CI
// systems are told by their marker variable (GITHUB_ACTIONS, GITLAB_CI,
// JENKINS_URL, TF_BUILD, TEAMCITY_VERSION, CIRCLECI, BUILDKITE,
// BITBUCKET_BUILD_NUMBER), checked in that order. What a CI does not give
// (TeamCity tells no branch; a Buildkite commit may be "HEAD") is filled
// from git when git's HEAD is the CI's commit, or the CI named none.
//
// Values from the environment are untrusted: control characters are
// removed, a value longer than its bound (MaxBranch, MaxBuildID,
// MaxBuildURL) or not valid UTF-8 is dropped, and a commit is kept only
// when it is a full object name (40 or 64 hexadecimal digits), stored in
// lower case. None of that is an error: a value dropped is a value not
// known.
//
// From git: the commit is "git rev-parse --verify HEAD"; the branch is
// "git symbolic-ref --short HEAD" (none on a detached HEAD, which is how
// most CI systems check out); the tree is dirty when "git status
// --porcelain --untracked-files=no" prints anything, that is when a
// tracked file has changes not committed. Untracked files are left out on
// purpose: the profile being exported (c.out, a trace) is one, and would
// mark every run dirty; so are changes inside a submodule's working tree
// (--ignore-submodules=dirty: a submodule counts as changed when its
// checked-out commit is not the one recorded), since looking at them
// would run git in the submodule under its own configuration. git runs
// through internal/gitexec, so that it runs no program the repository's
// or the user's configuration names (filter drivers, core.fsmonitor, a
// lazy fetch's transport…) and takes no lock on the repository, with a
// time bound on all of it (Options.Timeout); of what it prints, the first
// 4 KiB are kept.
//
// ParseLabel, ParseLabels, ValidCommit and Apply check and apply what the
// user gives on the command line (--label, --commit, --branch…): there a
// bad value is an error, since the user can correct it. ParseLabel and
// ParseCommitPrefix are the one rule for a label and for a commit prefix
// everywhere profdb takes one, to record or to match (the label: and
// commit: selectors, the --label and --commit filters, store.Filter).
package runid
