// Package selector names result sets by what profdb recorded of them
// (docs/selectors.md): besides an INST_ID,
//
//   - latest: the newest result set;
//   - branch:NAME, commit:SHA (a unique prefix of 7 or more hexadecimal
//     digits, runid.ParseCommitPrefix's rule), label:KEY=VALUE (a label as
//     export records it, runid.ParseLabel's rule): the newest that
//     matches;
//   - ancestor:REV: the newest result set whose commit is the nearest
//     ancestor of REV (REV itself included) in the git repository of a
//     working directory. REV is git's, all of it: ancestor:HEAD~1 walks
//     from git's HEAD~1;
//   - any of the others with a ~N suffix, and ancestor~N:REV: the N-th
//     before it among the same candidates (latest~1, branch:main~2, 12~1,
//     ancestor~1:origin/main).
//
// Parse reads a selector; a Resolver finds the result set it names in a
// store.DB, reading PROFDB_RESULT_SETS by its key and only the rows it
// needs (store.DB.Select). Second resolves a selector for a result set set
// beside a first one (compare's B, check's --baseline): it picks among the
// result sets of the first one's profiler, the first counted among them,
// so that ~N means the same on either side (latest~1 beside latest is the
// one before it); a selector without ~N passes over the first when it is
// the newest candidate, and one with ~N that lands on the first is an
// error (ErrFirst). A selector that matches nothing is a *NotFoundError
// saying what it looked for. ancestor: runs git rev-list through
// internal/gitexec, which runs no program the repository's configuration
// names.
package selector
