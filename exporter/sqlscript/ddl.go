package sqlscript

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
)

// CreateTable returns the idempotent statements that create t and its
// indexes in schema ("" for the default) in dialect d. With primaryKey, a
// table without a key of its own (a profiler table) gets
// dialects.RowKeyColumn as its invisible primary key; d must then be a
// dialects.RowKeyer. Both "profdb ddl" (DDL) and a Script create their
// tables with it.
func CreateTable(d dialects.Dialect, schema string, primaryKey bool, t ddl.Table) []string {
	if rk, ok := d.(dialects.RowKeyer); ok && primaryKey && t.Key == "" {
		return rk.CreateTableWithRowKey(schema, t, true)
	}
	return d.CreateTableIn(schema, t)
}

// Distribute returns the statements that spread t over the nodes of a
// server that distributes tables, guarded by INSTANCES (see
// dialects.ScriptGuard): the calls of "profdb ddl --citus" and "export
// --sql-out --citus". d must be a dialects.Distributor.
func Distribute(d dialects.Dialect, schema string, t ddl.Table) []string {
	return d.(dialects.Distributor).Distribute(schema, t, &dialects.ScriptGuard{Anchor: profilers.InstancesTable})
}

// createAll is CreateTable, followed by Distribute when distribute is set.
func createAll(d dialects.Dialect, schema string, primaryKey, distribute bool, t ddl.Table) []string {
	stmts := CreateTable(d, schema, primaryKey, t)
	if distribute {
		stmts = append(stmts, Distribute(d, schema, t)...)
	}
	return stmts
}

// ErrNoRowKey is wrapped by the error of CheckDialect, New and DDL for a
// hidden primary key (PrimaryKey) asked of a dialect that is no
// dialects.RowKeyer.
var ErrNoRowKey = errors.New("no hidden primary key")

// ErrNoDistribute is wrapped by the error of CheckDialect, New and DDL
// for distributed tables (Distribute) asked of a dialect that is no
// dialects.Distributor.
var ErrNoDistribute = errors.New("no distributed tables")

// CheckDialect returns nil when d can serve a script with a hidden
// primary key (primaryKey) and distributed tables (distribute), and
// otherwise an error wrapping ErrNoRowKey or ErrNoDistribute that names
// the registered dialects that can.
func CheckDialect(d dialects.Dialect, primaryKey, distribute bool) error {
	if _, ok := d.(dialects.RowKeyer); primaryKey && !ok {
		return fmt.Errorf("the %s dialect has %w (dialects with one: %s)", d.Name(), ErrNoRowKey,
			orNone(strings.Join(dialects.Having(func(d dialects.Dialect) bool { _, ok := d.(dialects.RowKeyer); return ok }), ", ")))
	}
	if _, ok := d.(dialects.Distributor); distribute && !ok {
		return fmt.Errorf("the %s dialect has %w (dialects with them: %s)", d.Name(), ErrNoDistribute,
			orNone(strings.Join(dialects.Having(func(d dialects.Dialect) bool { _, ok := d.(dialects.Distributor); return ok }), ", ")))
	}
	return nil
}

// DDLOptions tune DDL.
type DDLOptions struct {
	// Schema is the existing schema (a database on MySQL) to create the
	// tables in; "" means the default.
	Schema string
	// PrimaryKey: see CreateTable.
	PrimaryKey bool
	// Distribute adds, after each table, the calls that spread it over a
	// Citus cluster (see Distribute); the dialect must be a
	// dialects.Distributor.
	Distribute bool
	// Header lines open the script's comment, before what DDL says of it.
	Header []string
}

// DDL returns the script of "profdb ddl": comment lines (o.Header, the
// dialect, the profilers, the schema and how the dialect's client runs the
// script), the dialect's preamble (ddl.Preamble), then the statements of
// CreateTable for each of profilers.Tables(defs...), each table after a blank line and
// each statement followed by the dialect's batch separator, if any. The
// script holds no timestamp: the same arguments give the same text.
func DDL(d dialects.Dialect, defs []profilers.Definition, o DDLOptions) (string, error) {
	if err := checkSchema(d, o.Schema); err != nil {
		return "", err
	}
	if err := CheckDialect(d, o.PrimaryKey, o.Distribute); err != nil {
		return "", fmt.Errorf("sqlscript: %w", err)
	}
	_, canKey := d.(dialects.RowKeyer)
	tables, err := profilers.Tables(defs...)
	if err != nil {
		return "", err
	}
	return ddl.Script(ddlGenerator{d: d, schema: o.Schema, primaryKey: o.PrimaryKey, distribute: o.Distribute}, ddlHeader(d, defs, o, canKey), tables), nil
}

// ddlHeader returns the comment lines that open a DDL script.
func ddlHeader(d dialects.Dialect, defs []profilers.Definition, o DDLOptions, canKey bool) []string {
	names := make([]string, len(defs))
	for i, def := range defs {
		names[i] = def.Name
	}
	h := append([]string{}, o.Header...)
	h = append(h, "dialect: "+d.Name(), "profilers: "+strings.Join(names, ", "))
	if o.Schema != "" {
		h = append(h, "schema: "+o.Schema)
	}
	if sc, ok := d.(dialects.Scripter); ok {
		h = append(h, "run: "+sc.RunHint(dialects.DDLScript))
	}
	h = append(h, "Every statement is idempotent: the script can be run again.")
	if o.Distribute {
		h = append(h, "--citus: each table is distributed over the Citus cluster unless it is already, holds rows, or INSTANCES is a plain table:",
			"the profiler tables by INST_ID, co-located; INSTANCES, RELATIONS and PROFDB_RESULT_SETS as reference tables.")
	}
	switch {
	case o.PrimaryKey:
		h = append(h,
			"--primary-key: every profiler table has "+dialects.RowKeyColumn+", an invisible auto-numbered primary key",
			"that readers never see (MariaDB 10.3+, MySQL 8.0.23+).")
	case canKey:
		h = append(h,
			"On a server that demands a primary key on every table (innodb_force_primary_key,",
			"sql_require_primary_key, Galera, Percona XtraDB Cluster) use profdb ddl --primary-key.")
	}
	return h
}

// ddlGenerator is the ddl.Generator of DDL: CreateTable, with the
// dialect's preamble and batch separator.
type ddlGenerator struct {
	d          dialects.Dialect
	schema     string
	primaryKey bool
	distribute bool
}

// CreateTable implements ddl.Generator.
func (g ddlGenerator) CreateTable(t ddl.Table) []string {
	return createAll(g.d, g.schema, g.primaryKey, g.distribute, t)
}

// Preamble implements ddl.Preamble; nil when the dialect has none.
func (g ddlGenerator) Preamble() []string {
	if p, ok := g.d.(ddl.Preamble); ok {
		return p.Preamble()
	}
	return nil
}

// BatchSeparator implements ddl.BatchSeparator; "" when the dialect has none.
func (g ddlGenerator) BatchSeparator() string {
	if bs, ok := g.d.(ddl.BatchSeparator); ok {
		return bs.BatchSeparator()
	}
	return ""
}

// checkSchema refuses a schema a script cannot write into: one with
// control characters, or one that lasts only as long as the connection
// that runs the script (dialects.WritableSchema).
func checkSchema(d dialects.Dialect, schema string) error {
	if strings.ContainsFunc(schema, unicode.IsControl) {
		return fmt.Errorf("sqlscript: schema %q: control characters are not allowed", schema)
	}
	if err := dialects.WritableSchema(d, schema); err != nil {
		return fmt.Errorf("sqlscript: %w", err)
	}
	return nil
}
