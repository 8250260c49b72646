package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/optionerr"
)

// An Options field is named by the flag that sets it where the command has
// that flag, by the command where another command's flag sets it (the
// command sets the field itself), and as the library names it where no
// flag does; a library's note names fields the same way.
func TestPhraseNamesFields(t *testing.T) {
	root := newRootCmd(&ledger{})
	find := func(name string) *cobra.Command {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	export, del := find("export"), find("delete")
	for _, c := range []struct {
		cmd        *cobra.Command
		typ, field string
		want       string
	}{
		{export, "store.Options", "NoCreate", "--no-create"},
		{del, "store.Options", "NoCreate", "delete"},
		{export, "exporter.Options", "NoDistribute", "--no-distribute"},
		{export, "store.Options", "Schema", "store.Options.Schema"},
	} {
		if got := fieldName(c.cmd, c.typ, c.field); got != c.want {
			t.Errorf("%s: %s.%s is %q, want %q", c.cmd.Name(), c.typ, c.field, got, c.want)
		}
	}
	note := fmt.Sprintf("tables distributed (%s keeps them plain)", phraseArgs(export, []any{optionerr.Field{Type: "exporter.Options", Name: "NoDistribute"}})...)
	if want := "tables distributed (--no-distribute keeps them plain)"; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	err := fmt.Errorf("export: %w", optionerr.New(nil, "store.Options", "x.db: no such database file (%[1]s: never)", "NoCreate"))
	if got, want := phrase(del, err).Error(), "export: x.db: no such database file (delete: never)"; got != want {
		t.Errorf("phrase = %q, want %q", got, want)
	}
	hinted := phrase(export, fmt.Errorf("export: p.out: %w", input.SourceNotFound("a.go not found")))
	if !errors.Is(hinted, input.ErrSourceNotFound) || hinted.Error() != "export: p.out: a.go not found; give --source-root DIR (the Go module's folder), or --skip-missing to warn and go on" {
		t.Errorf("a source not found: %v", hinted)
	}
}
