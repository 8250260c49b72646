package ddl_test

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
)

// fakeGen renders a table as two statements naming it.
type fakeGen struct{}

func (fakeGen) CreateTable(t ddl.Table) []string {
	return []string{
		"CREATE TABLE " + t.Name + " (" + strings.Join(t.ColumnNames(), ", ") + ")",
		"CREATE INDEX " + t.Indexes()[0].Name + " ON " + t.Name,
	}
}

// fakeBatchGen also needs a separator line between statements.
type fakeBatchGen struct{ fakeGen }

func (fakeBatchGen) BatchSeparator() string { return "GO" }

func scriptTables() []ddl.Table {
	return []ddl.Table{
		{Name: "P_A", Columns: []ddl.Column{col("ID", ddl.Integer)}},
		{Name: "P_B", Parent: "P_A", Columns: []ddl.Column{col("INST_ID", ddl.Integer)}},
	}
}

func TestScript(t *testing.T) {
	got := ddl.Script(fakeGen{}, []string{"profdb schema", "dialect: fake"}, scriptTables())
	want := `-- profdb schema
-- dialect: fake

CREATE TABLE P_A (ID);
CREATE INDEX IX_P_A_ID ON P_A;

CREATE TABLE P_B (INST_ID);
CREATE INDEX IX_P_B_ID ON P_B;
`
	if got != want {
		t.Errorf("Script =\n%s\nwant\n%s", got, want)
	}
}

func TestScriptBatchSeparator(t *testing.T) {
	got := ddl.Script(fakeBatchGen{}, []string{"h"}, scriptTables())
	want := `-- h

CREATE TABLE P_A (ID);
GO
CREATE INDEX IX_P_A_ID ON P_A;
GO

CREATE TABLE P_B (INST_ID);
GO
CREATE INDEX IX_P_B_ID ON P_B;
GO
`
	if got != want {
		t.Errorf("Script =\n%s\nwant\n%s", got, want)
	}
}

func TestScriptEmpty(t *testing.T) {
	if got := ddl.Script(fakeGen{}, nil, nil); got != "" {
		t.Errorf("Script with nothing = %q, want empty", got)
	}
	if got := ddl.Script(fakeBatchGen{}, []string{"only a header"}, nil); got != "-- only a header\n" {
		t.Errorf("Script with a header only = %q", got)
	}
}
