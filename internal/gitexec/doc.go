// Package gitexec is the one way profdb runs git: reading a run's identity
// (internal/runid: rev-parse, symbolic-ref, status) and walking the
// history for an ancestor: selector (selector: rev-list) both run git
// through it, and no other code of profdb's runs git.
//
// What it guarantees: git, run through a Git, runs no program that the
// repository's configuration, the user's or the system's, or the
// environment names. A repository is data: whoever made it (a pull
// request's author, the archive a CI job unpacked) chose its .git/config,
// its .gitattributes and its objects, and reading its identity must not
// run their programs. To that end every command runs as
//
//	git --no-pager --no-optional-locks -c core.fsmonitor=false
//	    -c core.hooksPath=<the null device> -c log.showSignature=false
//	    -c filter.NAME.clean= -c filter.NAME.smudge= -c filter.NAME.process=
//	    -c filter.NAME.required=false (for every filter driver NAME) ARGS...
//
// with these environment variables set: LC_ALL=C (git's messages are
// read), GIT_OPTIONAL_LOCKS=0, GIT_TERMINAL_PROMPT=0 and
// GIT_ALLOW_PROTOCOL empty (no transport is allowed, whatever
// protocol.*.allow say, so a partial clone's lazy fetch of a missing
// object, which would start the program a remote's ext:: address or
// core.sshCommand names, is refused; GIT_NO_LAZY_FETCH=1 refuses the fetch
// itself in the git releases that know it). Variables that name a program (GIT_EXTERNAL_DIFF,
// GIT_PAGER, PAGER, GIT_EDITOR, GIT_SEQUENCE_EDITOR, EDITOR, VISUAL,
// GIT_SSH, GIT_SSH_COMMAND, GIT_ASKPASS, SSH_ASKPASS, GIT_PROXY_COMMAND)
// or where git finds its own (GIT_EXEC_PATH) are left out of git's
// environment. Standard input is empty.
//
// Why each: git status runs core.fsmonitor's program, and a filter
// driver's clean or process program for a tracked file whose content it
// must read (one whose size is unchanged but whose time is not): an empty
// command switches a driver off (git's convert.c runs none), and
// required=false keeps git from failing for want of it. The names of the
// drivers are read first with "git config --null --get-regexp ^filter\.",
// which runs no program, from every configuration git reads there (the
// system's, the user's, the repository's, its includes and the
// environment's GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT); the -c
// options come after all of these and so win over them. A driver name
// holding '=' cannot be written in -c: New refuses such a configuration
// (an error, and git is not run). Without --no-optional-locks git status
// writes the refreshed index, which runs the post-index-change hook;
// core.hooksPath points nowhere besides. --no-pager and the dropped
// variables keep git from starting a pager, an editor or a diff program;
// log.showSignature=false from running gpg.program. Hooks other than
// post-index-change do not run for the commands profdb uses (rev-parse,
// symbolic-ref, status, rev-list, config), and aliases never apply to
// git's own commands.
//
// What it does not do: it does not stop git status from running git status
// in a submodule, under the submodule's own configuration (whose filter
// drivers New has not read); a caller that runs status passes
// --ignore-submodules=dirty, as internal/runid does.
package gitexec
