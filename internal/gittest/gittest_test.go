package gittest

import "testing"

// TestRepo: a repository on the branch asked for, commits with their
// object names, and no configuration of the user's: the identity is the
// package's own.
func TestRepo(t *testing.T) {
	dir, git := Repo(t, "trunk")
	one := Commit(t, dir, git, "a/b.txt", "1", "one")
	two := Commit(t, dir, git, "a/b.txt", "2", "two")
	if one == two || len(one) != 40 {
		t.Fatalf("commits %q and %q", one, two)
	}
	if got := git("rev-parse", "HEAD~1"); got != one {
		t.Errorf("HEAD~1 = %s, want %s", got, one)
	}
	if got := git("rev-parse", "--abbrev-ref", "HEAD"); got != "trunk" {
		t.Errorf("branch %q, want trunk", got)
	}
	if got := git("log", "-1", "--format=%an <%ae>"); got != "t <t@example.com>" {
		t.Errorf("author %q", got)
	}
}
