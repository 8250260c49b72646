package exporter

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// liveTable is a documented table as it exists in the database.
type liveTable struct {
	def       ddl.Table
	real      string // the name it has in the database
	qualified string // quoted, schema-qualified
	cols      map[string]liveColumn
	created   bool // created by this export
}

// liveColumn is a documented column as it exists in the database.
type liveColumn struct {
	info  dialects.ColumnInfo
	check func(v any) error // nil when the column holds every value of its logical type
}

// ensureTables makes sure every table exists, creating the missing ones
// unless NoCreate is set, and inspects them. PROFDB_RESULT_SETS is
// optional: a missing one is created only with INSTANCES (tables must come
// in that order), otherwise left out of the map. With deferIndexes, a created
// table's secondary indexes are left for the caller to build after the load
// (see dialects.IndexSplitter); they are returned as statements.
func (e *Exporter) ensureTables(ctx context.Context, q dialects.DBTX, tables []ddl.Table, deferIndexes bool) (map[string]*liveTable, []string, error) {
	var later []string
	splitter, canSplit := e.d.(dialects.IndexSplitter)
	d, schema := e.d, e.sopts.Schema
	names, err := d.Tables(ctx, q, schema)
	if err != nil {
		return nil, nil, errorf("list tables: %w", err)
	}
	existing := make(map[string]string, len(names))
	for _, n := range names {
		existing[strings.ToUpper(n)] = n
	}
	out := make(map[string]*liveTable, len(tables))
	var order []*liveTable // out's tables, in the order given
	plain := false         // INSTANCES exists and is not distributed: nor are the tables made here
	for _, t := range tables {
		lt := &liveTable{def: t}
		real, ok := existing[strings.ToUpper(t.Name)]
		if !ok && own(t.Name) && e.sopts.NoCreate {
			// profdb's own tables are optional: without them INST_IDs are
			// allocated from INSTANCES alone and a run's identity is not
			// recorded. An export that may create tables adds them, to a
			// database new to profdb or to one AQTime or an older profdb
			// wrote; one that may not goes on without.
			continue
		}
		if ok && strings.EqualFold(t.Name, profilers.InstancesTable) && !e.sopts.NoCreate {
			if plain, err = e.plainDatabase(ctx, q, schema, real); err != nil {
				return nil, nil, errorf("inspect table %s: %w", real, err)
			}
		}
		if !ok {
			if e.sopts.NoCreate {
				msg := fmt.Sprintf("table %s does not exist in %s, and creating tables is forbidden (%%s); ask for it to be created with the %s DDL",
					t.Name, strings.ReplaceAll(e.where(), "%", "%%"), d.Name())
				return nil, nil, errorf("%w", optionerr.New(ErrNoCreate, "store.Options", msg, "NoCreate"))
			}
			stmts := d.CreateTableIn(schema, t)
			if nc, ok := d.(dialects.NewTableCreator); ok {
				stmts = nc.CreateNewTableIn(schema, t)
			}
			split := deferIndexes && canSplit
			if rk, ok := d.(dialects.RowKeyer); ok && t.Key == "" {
				demanded, invisible, err := e.rowKeyDemanded(ctx, q, rk)
				if err != nil {
					return nil, nil, errorf("create table %s: %w", t.Name, err)
				}
				if demanded {
					stmts = rk.CreateTableWithRowKey(schema, t, invisible)
					split = false
				}
			}
			if split {
				stmts = splitter.CreateTableOnly(schema, t)
				later = append(later, splitter.CreateIndexes(schema, t)...)
			}
			var distribute []string
			if !plain {
				if distribute, err = e.distribute(ctx, q, schema, t); err != nil {
					return nil, nil, errorf("create table %s: %w", t.Name, err)
				}
			}
			for _, stmt := range append(stmts, distribute...) {
				if _, err := q.ExecContext(ctx, stmt); err != nil {
					return nil, nil, errorf("create table %s: %w", t.Name, err)
				}
			}
			real = d.StoredName(t.Name)
			lt.created = true
		}
		lt.real = real
		lt.qualified = dialects.Qualify(d, schema, real)
		out[strings.ToUpper(t.Name)] = lt
		order = append(order, lt)
	}
	if err := e.inspect(ctx, q, order); err != nil {
		return nil, nil, err
	}
	if !e.sopts.NoCreate {
		if err := e.addColumns(ctx, q, order); err != nil {
			return nil, nil, err
		}
	}
	return out, later, nil
}

// addColumns adds to profdb's own tables the columns they lack (the
// identity columns of a PROFDB_RESULT_SETS an earlier profdb made), where
// the dialect can (dialects.ColumnAdder), and inspects them again. A
// column another export added meanwhile is taken as it is.
func (e *Exporter) addColumns(ctx context.Context, q dialects.DBTX, tables []*liveTable) error {
	adder, ok := e.d.(dialects.ColumnAdder)
	if !ok {
		return nil
	}
	for _, lt := range tables {
		missing := lt.missing()
		if len(missing) == 0 {
			continue
		}
		for _, c := range missing {
			if _, err := q.ExecContext(ctx, adder.AddColumn(e.sopts.Schema, lt.real, c)); err != nil {
				// A concurrent export may have added it: look again.
				cols, cerr := e.d.Columns(ctx, q, e.sopts.Schema, lt.real)
				if cerr != nil || !hasColumn(cols, c.Name) {
					return errorf("add column %s to table %s: %w", c.Name, lt.real, err)
				}
			}
		}
		cols, err := e.d.Columns(ctx, q, e.sopts.Schema, lt.real)
		if err != nil {
			return errorf("inspect table %s: %w", lt.real, err)
		}
		if err := lt.bind(cols); err != nil {
			return err
		}
	}
	return nil
}

// missing returns the documented columns lt lacks, if it is one of
// profdb's own tables; none for AQTime's, which stay as they are.
func (lt *liveTable) missing() []ddl.Column {
	if lt.created || !own(lt.def.Name) {
		return nil
	}
	var out []ddl.Column
	for _, c := range lt.def.Columns {
		if _, ok := lt.cols[strings.ToUpper(c.Name)]; !ok {
			out = append(out, c)
		}
	}
	return out
}

func hasColumn(cols []dialects.ColumnInfo, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// own reports whether name is one of profdb's own tables.
func own(name string) bool {
	for _, t := range profilers.Own() {
		if strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// inspect reads the columns of the tables, in one query where the dialect
// can (dialects.TablesInspector), and binds them.
func (e *Exporter) inspect(ctx context.Context, q dialects.DBTX, tables []*liveTable) error {
	d, schema := e.d, e.sopts.Schema
	var many map[string][]dialects.ColumnInfo
	if ti, ok := d.(dialects.TablesInspector); ok && len(tables) > 0 {
		reals := make([]string, len(tables))
		for i, lt := range tables {
			reals[i] = lt.real
		}
		var err error
		if many, err = ti.ColumnsOf(ctx, q, schema, reals); err != nil {
			return errorf("inspect tables: %w", err)
		}
	}
	for _, lt := range tables {
		cols, ok := many[lt.real]
		if !ok {
			var err error
			if cols, err = d.Columns(ctx, q, schema, lt.real); err != nil {
				return errorf("inspect table %s: %w", lt.real, err)
			}
		}
		if err := lt.bind(cols); err != nil {
			return err
		}
	}
	return nil
}

func (e *Exporter) where() string {
	if e.sopts.Schema != "" {
		return "schema " + e.sopts.Schema
	}
	return "the database"
}

// bind matches the inspected columns with the documented ones.
func (lt *liveTable) bind(cols []dialects.ColumnInfo) error {
	lt.cols = make(map[string]liveColumn, len(cols))
	for _, c := range cols {
		def, documented := lt.def.Column(c.Name)
		if !documented {
			if !c.Nullable && !c.HasDefault {
				return errorf("table %s has column %s (%s), which is NOT NULL without a default: profdb does not fill it, so no row could be written; make it nullable or give it a default",
					lt.real, c.Name, c.DBType)
			}
			continue
		}
		lt.cols[strings.ToUpper(def.Name)] = liveColumn{info: c, check: checker(def, c)}
	}
	return nil
}

// column returns the live column for a documented column name.
func (lt *liveTable) column(name string) (liveColumn, error) {
	c, ok := lt.cols[strings.ToUpper(name)]
	if !ok {
		return liveColumn{}, errorf("table %s has no column %s", lt.real, name)
	}
	return c, nil
}

// realNames returns the real names of documented columns of lt.
func (lt *liveTable) realNames(columns ...string) ([]string, error) {
	out := make([]string, len(columns))
	for i, name := range columns {
		c, err := lt.column(name)
		if err != nil {
			return nil, err
		}
		out[i] = c.info.Name
	}
	return out, nil
}

// checker returns a function that tells whether a canonical value of the
// documented column's type fits the existing column, or nil when every
// value fits.
func checker(def ddl.Column, c dialects.ColumnInfo) func(any) error {
	var checks []func(any) error
	if !c.Nullable && !c.HasDefault && !def.NotNull {
		checks = append(checks, func(v any) error {
			if v == nil {
				return fmt.Errorf("NULL in a NOT NULL column (%s)", c.DBType)
			}
			return nil
		})
	}
	if c.ApproxNumbers && def.Type != ddl.String {
		checks = append(checks, func(v any) error { return fitApprox(v, c.DBType, c.ApproxExact) })
	}
	switch c.Type {
	case ddl.Integer:
		if c.IntBits > 0 && c.IntBits < 64 || def.Type != ddl.Integer {
			bits := c.IntBits
			if bits == 0 {
				bits = 64
			}
			checks = append(checks, func(v any) error { return fitInteger(v, bits, c.DBType) })
		}
	case ddl.Decimal:
		p, s := c.Precision, c.Scale
		if p > 0 && (p-s < resultset.MaxDecimalIntDigits || s < ddl.DecimalScale) || def.Type == ddl.Float {
			checks = append(checks, func(v any) error { return fitDecimal(v, p, s, c.DBType) })
		}
	case ddl.Float:
		if def.Type != ddl.Float || c.FloatBits == 32 {
			bits := c.FloatBits
			if bits == 0 {
				bits = 64
			}
			checks = append(checks, func(v any) error { return fitFloat(v, bits, c.DBType) })
		}
	case ddl.String:
		if c.MaxChars > 0 || def.Type != ddl.String {
			max := c.MaxChars
			checks = append(checks, func(v any) error { return fitString(v, max, c.MaxCharsUTF16, c.DBType) })
		}
	default:
		checks = append(checks, func(v any) error {
			if v == nil {
				return nil
			}
			return fmt.Errorf("column type %s cannot hold %s values", c.DBType, def.Type)
		})
	}
	switch len(checks) {
	case 0:
		return nil
	case 1:
		return checks[0]
	}
	return func(v any) error {
		for _, f := range checks {
			if err := f(v); err != nil {
				return err
			}
		}
		return nil
	}
}

func fitInteger(v any, bits int, dbType string) error {
	var i int64
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		i = x
	case ddl.Dec:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return fmt.Errorf("%s does not fit column type %s (an integer column)", x, dbType)
		}
		i = n
	case float64:
		if x != math.Trunc(x) || math.Abs(x) >= 1<<63 {
			return fmt.Errorf("%v does not fit column type %s (an integer column)", x, dbType)
		}
		i = int64(x)
	case string:
		return fmt.Errorf("text does not fit column type %s (an integer column)", dbType)
	}
	if bits < 64 {
		lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		if i < lo || i > hi {
			return fmt.Errorf("%d does not fit column type %s (%d-bit integer); it needs BIGINT", i, dbType, bits)
		}
	}
	return nil
}

func fitDecimal(v any, p, s int, dbType string) error {
	var text string
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		text = strconv.FormatInt(x, 10)
	case ddl.Dec:
		text = string(x)
	case float64:
		text = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return fmt.Errorf("text does not fit column type %s (a decimal column)", dbType)
	}
	text = strings.TrimPrefix(text, "-")
	ip, fp, _ := strings.Cut(text, ".")
	if ip == "0" {
		ip = ""
	}
	if p > 0 && len(ip) > p-s {
		return fmt.Errorf("%s needs %d integer digits; column type %s has %d", v, len(ip), dbType, p-s)
	}
	if len(fp) > s {
		return fmt.Errorf("%s has %d decimal places; column type %s keeps %d", v, len(fp), dbType, s)
	}
	return nil
}

// fitApprox accepts the numbers a column that rounds to 64-bit floats
// keeps exactly: 64-bit integers, and decimals a double prints back the
// same.
func fitApprox(v any, dbType, exact string) error {
	d, ok := v.(ddl.Dec)
	if !ok {
		return nil
	}
	if _, err := strconv.ParseInt(string(d), 10, 64); err == nil {
		return nil
	}
	if f, err := strconv.ParseFloat(string(d), 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == string(d) {
		return nil
	}
	why := "it stores such numbers as 64-bit floats"
	if exact != "" {
		why += "; " + exact
	}
	return fmt.Errorf("%s would be rounded by column type %s (%s)", d, dbType, why)
}

func fitFloat(v any, bits int, dbType string) error {
	var f float64
	switch x := v.(type) {
	case nil:
		return nil
	case float64:
		f = x
	case int64:
		f = float64(x)
		if int64(f) != x || math.Abs(f) >= 1<<63 {
			return fmt.Errorf("%d cannot be held exactly by column type %s (a floating-point column)", x, dbType)
		}
	case ddl.Dec:
		g, err := strconv.ParseFloat(string(x), 64)
		if err != nil || strconv.FormatFloat(g, 'f', -1, 64) != string(x) {
			return fmt.Errorf("%s cannot be held exactly by column type %s (a floating-point column)", x, dbType)
		}
		f = g
	case string:
		return fmt.Errorf("text does not fit column type %s (a floating-point column)", dbType)
	}
	if bits == 32 && float64(float32(f)) != f {
		return fmt.Errorf("%v cannot be held exactly by column type %s (32-bit float); it needs a 64-bit DOUBLE", f, dbType)
	}
	return nil
}

func fitString(v any, max int64, utf16Len bool, dbType string) error {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case int64:
		s = strconv.FormatInt(x, 10)
	case ddl.Dec:
		s = string(x)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	}
	if max <= 0 {
		return nil
	}
	var n int64
	if utf16Len {
		for _, r := range s {
			n += int64(utf16.RuneLen(r))
		}
	} else {
		n = int64(utf8.RuneCountInString(s))
	}
	if n > max {
		return fmt.Errorf("text of %d characters does not fit column type %s (at most %d)", n, dbType, max)
	}
	return nil
}

// rowKeyDemanded asks the server, once per DB, whether it demands a primary
// key on every table and can hide a column (see dialects.RowKeyer).
func (e *Exporter) rowKeyDemanded(ctx context.Context, q dialects.DBTX, rk dialects.RowKeyer) (demanded, invisible bool, err error) {
	e.rowKeyMu.Lock()
	defer e.rowKeyMu.Unlock()
	if !e.rowKeyKnown {
		e.rowKeyDemand, e.rowKeyInvisible, err = rk.RowKeyDemanded(ctx, q)
		if err != nil {
			return false, false, err
		}
		e.rowKeyKnown = true
		if e.rowKeyDemand && e.sopts.Logf != nil {
			how := "invisible"
			if !e.rowKeyInvisible {
				how = "visible: the server cannot hide columns"
			}
			e.sopts.Logf("%s: the server demands a primary key on every table: the tables profdb creates get one, an auto-numbered column %s (%s)",
				e.d.Name(), dialects.RowKeyColumn, how)
		}
	}
	return e.rowKeyDemand, e.rowKeyInvisible, nil
}

// plainDatabase reports whether the tables are plain on a server that
// distributes tables: INSTANCES, which exists (under the name real), is
// neither distributed nor a reference table. The tables an export creates
// there stay plain too, so that the database keeps one layout (a profiler
// table spread over the workers would be joined with a table that only the
// coordinator holds).
func (e *Exporter) plainDatabase(ctx context.Context, q dialects.DBTX, schema, real string) (bool, error) {
	dist, ok := e.d.(dialects.Distributor)
	if !ok || e.opts.NoDistribute {
		return false, nil
	}
	if yes, err := e.serverDistributes(ctx, q, dist); err != nil || !yes {
		return false, err
	}
	done, err := dist.Distributed(ctx, q, schema, real)
	return !done, err
}

// distribute returns the statements that spread t, about to be created by
// this export, over the nodes of a server that distributes tables (see
// dialects.Distributor): none unless Options.NoDistribute is unset and the
// server does. The server is asked once per Exporter.
func (e *Exporter) distribute(ctx context.Context, q dialects.DBTX, schema string, t ddl.Table) ([]string, error) {
	dist, ok := e.d.(dialects.Distributor)
	if !ok || e.opts.NoDistribute {
		return nil, nil
	}
	yes, err := e.serverDistributes(ctx, q, dist)
	if err != nil || !yes {
		return nil, err
	}
	e.distMu.Lock()
	if !e.distSaid && e.sopts.Logf != nil {
		e.sopts.Logf("%s: the server spreads tables over worker nodes (Citus): the tables profdb creates are distributed by %s, the shared ones made reference tables (%s keeps them plain)",
			e.d.Name(), ddl.InstID, optionerr.Field{Type: "exporter.Options", Name: "NoDistribute"})
	}
	e.distSaid = true
	e.distMu.Unlock()
	return dist.Distribute(schema, t, nil), nil
}

// serverDistributes asks the server, once per Exporter, whether it spreads
// tables over nodes.
func (e *Exporter) serverDistributes(ctx context.Context, q dialects.DBTX, dist dialects.Distributor) (bool, error) {
	e.distMu.Lock()
	defer e.distMu.Unlock()
	if !e.distKnown {
		yes, err := dist.Distributes(ctx, q)
		if err != nil {
			return false, err
		}
		e.distKnown, e.distributes = true, yes
	}
	return e.distributes, nil
}
