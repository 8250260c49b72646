// Package gittest makes git repositories for tests: a repository in a
// temporary folder, git run there with an identity and configuration of
// its own (the user's and the system's git configuration are not read),
// and commits that change a file. The tests of run identity (package
// runid, profdb export), of the ancestor: selector and of gitexec use it.
// FilterTrap sets a trap for the programs of filter drivers a
// configuration names (the repository's or the user's), checked by
// Unsprung.
package gittest
