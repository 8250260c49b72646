package sqlscript

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/store"
)

// UpgradeOptions tune Upgrade.
type UpgradeOptions struct {
	// PrimaryKey gives a table created a primary key of its own, as DDL's.
	PrimaryKey bool
	// Header lines open the script's comment.
	Header []string
}

// Upgrade returns the script that brings profdb's own tables in db (in
// the schema of its options) up to what this profdb writes: CREATE TABLE
// for each of PROFDB_RESULT_SETS, PROFDB_LABELS and PROFDB_MERGE_SOURCES
// that is missing (on a Citus cluster followed by the guarded call that
// makes it a reference table), and ALTER TABLE … ADD for each column an
// existing one lacks (dialects.ColumnAdder). AQTime's tables are left as
// they are. It reads the catalogue and alters nothing; n is the number of
// changes the script makes, 0 when db is up to date.
func Upgrade(ctx context.Context, db *store.DB, o UpgradeOptions) (script string, n int, err error) {
	d, schema := db.Dialect(), db.Options().Schema
	if err := dialects.WritableSchema(d, schema); err != nil {
		return "", 0, fmt.Errorf("upgrade: %w", err)
	}
	q := db.SQL()
	names, err := d.Tables(ctx, q, schema)
	if err != nil {
		return "", 0, fmt.Errorf("upgrade: list tables: %w", err)
	}
	existing := make(map[string]string, len(names))
	for _, name := range names {
		existing[strings.ToUpper(name)] = name
	}
	if _, ok := existing[strings.ToUpper(profilers.InstancesTable)]; !ok {
		return "", 0, fmt.Errorf("upgrade: %w", db.NoInstances())
	}
	distribute := false
	if dist, ok := d.(dialects.Distributor); ok {
		if distribute, err = dist.Distributes(ctx, q); err != nil {
			return "", 0, fmt.Errorf("upgrade: %w", err)
		}
	}
	var stmts []string
	for _, t := range profilers.Own() {
		real, ok := existing[strings.ToUpper(t.Name)]
		if !ok {
			stmts = append(stmts, createAll(d, schema, o.PrimaryKey, distribute, t)...)
			n++
			continue
		}
		cols, err := d.Columns(ctx, q, schema, real)
		if err != nil {
			return "", 0, fmt.Errorf("upgrade: inspect table %s: %w", real, err)
		}
		have := make(map[string]bool, len(cols))
		for _, c := range cols {
			have[strings.ToUpper(c.Name)] = true
		}
		for _, c := range t.Columns {
			if have[strings.ToUpper(c.Name)] {
				continue
			}
			adder, ok := d.(dialects.ColumnAdder)
			if !ok {
				return "", 0, fmt.Errorf("upgrade: table %s lacks column %s, and the %s dialect cannot add a column", real, c.Name, d.Name())
			}
			stmts = append(stmts, adder.AddColumn(schema, real, c))
			n++
		}
	}
	header := append([]string{}, o.Header...)
	header = append(header, "dialect: "+d.Name())
	if schema != "" {
		header = append(header, "schema: "+schema)
	}
	if n == 0 {
		header = append(header, "Nothing to do: profdb's own tables are up to date.")
	} else {
		if sc, ok := d.(dialects.Scripter); ok {
			header = append(header, "run: "+sc.RunHint(dialects.DDLScript))
		}
		header = append(header, "Run it once: an ALTER TABLE … ADD fails on a column that exists already.")
	}
	for i, h := range header {
		header[i] = dialects.CommentText(h)
	}
	return ddl.Script(upgradeGenerator{ddlGenerator: ddlGenerator{d: d, schema: schema}, stmts: stmts}, header, []ddl.Table{{}}), n, nil
}

// upgradeGenerator renders the upgrade's statements, as one "table", with
// the dialect's preamble and batch separator.
type upgradeGenerator struct {
	ddlGenerator
	stmts []string
}

func (g upgradeGenerator) CreateTable(ddl.Table) []string { return g.stmts }
