package exporter_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/tdstest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// SQL Server, without a server: the real exporter and the real go-mssqldb
// driver run against tdstest's fake SQL Server catalog (tdstest.Catalog),
// and the tests check what went over the wire.

// mssqlTable is one table of a test result set, with its rows kept so that
// the expected values can be computed from them.
type mssqlTable struct {
	name    string
	columns []string
	rows    [][]any
}

// mssqlSet is a test result set.
type mssqlSet struct {
	header resultset.Header
	tables []mssqlTable
}

func (s *mssqlSet) resultSet() *resultset.ResultSet {
	rs := &resultset.ResultSet{Header: s.header}
	for _, tb := range s.tables {
		rows := tb.rows
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: tb.name, Columns: tb.columns,
			Rows: func(yield func([]any, error) bool) {
				for _, r := range rows {
					if !yield(r, nil) {
						return
					}
				}
			}})
	}
	return rs
}

// mssqlBig is over 1 MiB of non-ASCII text, characters outside the BMP
// included.
var mssqlBig = strings.Repeat("ж€😀a", 1<<20/10+1)

// mssqlFunctionTrace is a function-trace result set with edge values in
// every type it has.
func mssqlFunctionTrace() *mssqlSet {
	return &mssqlSet{
		header: resultset.Header{Profiler: functiontrace.Name, Caption: "edge ✓ 'quoted' \"dq\" ]]",
			Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: uint64(math.MaxUint64)}},
		tables: []mssqlTable{
			// Children first: resultset.Export orders them.
			{functiontrace.CallTrace, []string{"ID", "PARENT_ID", "REC_ID", "COL__S", "COL__S_WITH_CHILDREN", "COL_PARENT_NO"}, [][]any{
				{int64(0), int64(0), int64(0), int64(math.MaxInt64), int64(math.MinInt64), int64(-1)},
				{int64(1), int64(0), int64(1), json.Number("42"), nil, int64(0)},
			}},
			{functiontrace.Threads, []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID", "COL_LINE_NUMBER"}, [][]any{
				{int64(0), int64(-1), int64(0), int64(4711), nil},
			}},
			{functiontrace.Routines, []string{"ID", "PARENT_ID", "REC_ID", "COL_ADDRESS", "COL_CLASS_NAME", "COL_UNIT_NAME", "COL_HIT_COUNT"}, [][]any{
				{int64(0), int64(-1), int64(0), uint64(math.MaxUint64), mssqlBig, "", int64(3)},
				{int64(1), int64(-1), int64(1), "0.12345678", "naïve Ünïcödé 中文 𝄞", nil, nil},
				{int64(2), int64(-1), int64(2), json.Number("-123.45"), nil, "tab\tnew\nline\\back'q\"", int64(0)},
				{int64(3), int64(-1), int64(3), json.Number("99999999999999999999.99999999"), "x", "y", int64(1)},
				{int64(4), int64(-1), int64(4), "3", "[b]]] N'x' @p1", "-- not a comment", int64(math.MinInt64)},
			}},
		},
	}
}

// mssqlLightCoverage is a light-coverage result set with floats and tables
// large enough to split: LINES (6 columns with INST_ID) needs several
// INSERTs at the 2098-parameter limit, META_LINES (2 columns) several at the
// 1000-row limit.
func mssqlLightCoverage() *mssqlSet {
	var lines, metaLines [][]any
	for i := range 800 {
		lines = append(lines, []any{fmt.Sprintf("%d.5", i), int64(i * 3), int64(i), int64(7), int64(i)})
	}
	for i := range 2500 {
		metaLines = append(metaLines, []any{int64(i % 2)})
	}
	return &mssqlSet{
		header: resultset.Header{Profiler: lightcoverage.Name, Caption: "cov"},
		tables: []mssqlTable{
			{lightcoverage.ModulesData, []string{"ID", "PARENT_ID", "REC_ID", "COL____COVERED", "COL_MARK", "COL_MODULE_NAME", "COL_CALCULATED"}, [][]any{
				{int64(0), int64(-1), int64(0), 1e308, "0.00000001", "модуль.dll", int64(1)},
				{int64(1), int64(-1), int64(1), -1e308, "-0.5", "", nil},
				{int64(2), int64(-1), int64(2), 2.2250738585072014e-308, nil, nil, int64(0)},
				{int64(3), int64(-1), int64(3), 1.0 / 3, int64(12), "a", int64(-9)},
				{int64(4), int64(-1), int64(4), nil, json.Number("1e3"), "b", int64(2)},
				{int64(5), int64(-1), int64(5), -0.1, 0.25, "c", int64(3)},
			}},
			{lightcoverage.RoutinesData, []string{"ID", "PARENT_ID"}, [][]any{{int64(7), int64(-1)}}},
			{lightcoverage.Lines, []string{"COL_MARK", "COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}, lines},
			// One column and INST_ID: an INSERT of META_LINES reaches
			// SQL Server's 1000-row limit.
			{lightcoverage.MetaRoutines, []string{"ID", "PARENT_ID"}, [][]any{{int64(0), int64(-1)}, {int64(1), int64(-1)}}},
			{lightcoverage.MetaLines, []string{"PARENT_ID"}, metaLines},
		},
	}
}

// mssqlDefs returns the definitions of INSTANCES, RELATIONS and the
// profiler's tables, by name.
func mssqlDefs(t *testing.T, profiler string) (profilers.Definition, map[string]ddl.Table) {
	t.Helper()
	def, err := profilers.Lookup(profiler)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ddl.Table{}
	for _, tb := range append(profilers.Shared(), def.Tables...) {
		out[tb.Name] = tb
	}
	return def, out
}

// mssqlWant returns the rows an export of s as INST_ID inst, with
// RELATIONS IDs after relBase, must write, per table, in canonical form
// keyed by column.
func mssqlWant(t *testing.T, s *mssqlSet, inst, relBase int64) map[string][]map[string]any {
	t.Helper()
	def, defs := mssqlDefs(t, s.header.Profiler)
	want := map[string][]map[string]any{}
	for _, tb := range s.tables {
		td := defs[tb.name]
		for _, r := range tb.rows {
			m := map[string]any{ddl.InstID: inst}
			for i, c := range tb.columns {
				col, _ := td.Column(c)
				v, err := resultset.Convert(col.Type, r[i])
				if err != nil {
					t.Fatal(err)
				}
				m[col.Name] = v
			}
			want[tb.name] = append(want[tb.name], m)
		}
	}
	for i, tb := range def.Tables {
		var parent any
		if tb.Parent != "" {
			parent = tb.Parent
		}
		want[profilers.RelationsTable] = append(want[profilers.RelationsTable], map[string]any{
			"COL_CHILD_TABLE": tb.Name, "COL_PARENT_TABLE": parent, ddl.ID: relBase + int64(i) + 1, ddl.InstID: inst})
	}
	inst1 := map[string]any{"CAPTION": s.header.Caption, "COUNTER_DESCRIPTION": nil, "COUNTER_FREQUENCY": nil,
		"COUNTER_NAME": nil, ddl.InstID: inst}
	if c := s.header.Counter; c != nil {
		inst1["COUNTER_NAME"], inst1["COUNTER_DESCRIPTION"] = c.Name, c.Description
		f, err := resultset.Convert(ddl.Decimal, c.Frequency)
		if err != nil {
			t.Fatal(err)
		}
		inst1["COUNTER_FREQUENCY"] = f
	}
	want[profilers.InstancesTable] = []map[string]any{inst1}
	return want
}

// mssqlWireRow is one row as it went over the wire.
type mssqlWireRow struct {
	bulk  bool
	cols  []string
	vals  []any
	types []tdstest.TypeInfo
	ev    int // index of the event
}

var mssqlInsertRE = regexp.MustCompile(`(?s)^INSERT INTO \[((?:[^\]]|\]\])+)\] \((.*?)\) VALUES (.*)$`)
var mssqlTupleRE = regexp.MustCompile(`\(([^()]*)\)`)

func mssqlUnbracket(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return strings.ReplaceAll(s[1:len(s)-1], "]]", "]")
	}
	return s
}

// mssqlWireRows decodes the rows that INSERT statements and bulk loads sent, per
// table, in order.
func mssqlWireRows(t *testing.T, evs []tdstest.Event) map[string][]mssqlWireRow {
	t.Helper()
	out := map[string][]mssqlWireRow{}
	for i, ev := range evs {
		switch {
		case ev.Kind == tdstest.BulkLoad:
			var cols []string
			var types []tdstest.TypeInfo
			for _, c := range ev.Bulk.Columns {
				cols, types = append(cols, c.Name), append(types, c.Type)
			}
			for _, r := range ev.Bulk.Rows {
				out[ev.Bulk.Table] = append(out[ev.Bulk.Table], mssqlWireRow{bulk: true, cols: cols, vals: r, types: types, ev: i})
			}
		case ev.Kind == tdstest.RPC && strings.HasPrefix(ev.SQL, "INSERT INTO "):
			m := mssqlInsertRE.FindStringSubmatch(ev.SQL)
			if m == nil {
				t.Fatalf("cannot parse %.200s", ev.SQL)
			}
			table := strings.ReplaceAll(m[1], "]]", "]")
			var cols []string
			for _, c := range strings.Split(m[2], ", ") {
				cols = append(cols, mssqlUnbracket(c))
			}
			params := map[string]tdstest.Param{}
			for _, p := range ev.Params {
				params[p.Name] = p
			}
			for _, tup := range mssqlTupleRE.FindAllStringSubmatch(m[3], -1) {
				names := strings.Split(tup[1], ", ")
				if len(names) != len(cols) {
					t.Fatalf("%s: tuple of %d values for %d columns", table, len(names), len(cols))
				}
				r := mssqlWireRow{cols: cols, ev: i}
				for _, n := range names {
					p, ok := params[n]
					if !ok {
						t.Fatalf("%s: no parameter %s", table, n)
					}
					r.vals, r.types = append(r.vals, p.Value), append(r.types, p.Type)
				}
				out[table] = append(out[table], r)
			}
		}
	}
	return out
}

// mssqlWireValue checks how a value went over the wire for a column of logical
// type ty and returns it in canonical form.
func mssqlWireValue(ty ddl.Type, bulk bool, ti tdstest.TypeInfo, v any) (any, error) {
	if v == nil {
		// A parameter's NULL is typed as the column's values are (Decimal as
		// NVARCHAR): an untyped one (0x1F) is refused by Babelfish.
		want := map[ddl.Type]byte{ddl.Integer: tdstest.TypeIntN, ddl.Float: tdstest.TypeFltN,
			ddl.String: tdstest.TypeNVarChar, ddl.Decimal: tdstest.TypeNVarChar}[ty]
		if !bulk && ti.ID != want {
			return nil, fmt.Errorf("NULL sent as %v", ti)
		}
		return nil, nil
	}
	switch ty {
	case ddl.Integer:
		if ti.ID != tdstest.TypeIntN && ti.ID != tdstest.TypeInt8 || ti.Size != 8 {
			return nil, fmt.Errorf("integer sent as %v", ti)
		}
		return v, nil
	case ddl.Float:
		if ti.ID != tdstest.TypeFltN && ti.ID != tdstest.TypeFlt8 || ti.Size != 8 {
			return nil, fmt.Errorf("float sent as %v", ti)
		}
		return v, nil
	case ddl.String:
		if ti.ID != tdstest.TypeNVarChar {
			return nil, fmt.Errorf("text sent as %v", ti)
		}
		return v, nil
	case ddl.Decimal:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("decimal decoded as %T", v)
		}
		if bulk {
			// DECIMAL(28,8) on the wire: exactly 8 places.
			if ti.ID != tdstest.TypeDecimalN || ti.Precision != ddl.DecimalPrecision || ti.Scale != ddl.DecimalScale {
				return nil, fmt.Errorf("decimal sent as %v", ti)
			}
			if _, frac, _ := strings.Cut(s, "."); len(frac) != ddl.DecimalScale {
				return nil, fmt.Errorf("decimal %s not at scale %d", s, ddl.DecimalScale)
			}
			return store.Canonical(ddl.Decimal, s)
		}
		// A parameter: the exact canonical text, as NVARCHAR.
		if ti.ID != tdstest.TypeNVarChar {
			return nil, fmt.Errorf("decimal sent as %v", ti)
		}
		return ddl.Dec(s), nil
	}
	return nil, fmt.Errorf("unknown type %v", ty)
}

// mssqlSameValue compares canonical values, floats by their bits.
func mssqlSameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && math.Float64bits(fa) == math.Float64bits(fb)
	}
	return reflect.DeepEqual(a, b)
}

func mssqlShowValue(v any) string {
	s := fmt.Sprintf("%T(%v)", v, v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// mssqlCheckWire compares the rows sent for each table with want, exactly, and
// says whether they came by bulk load or INSERT.
func mssqlCheckWire(t *testing.T, profiler string, got map[string][]mssqlWireRow, want map[string][]map[string]any, bulk bool) {
	t.Helper()
	_, defs := mssqlDefs(t, profiler)
	for table, rows := range want {
		td := defs[table]
		g := got[table]
		if len(g) != len(rows) {
			t.Errorf("%s: %d rows sent, want %d", table, len(g), len(rows))
			continue
		}
		shared := table == profilers.InstancesTable || table == profilers.RelationsTable
		for i, w := range rows {
			r := g[i]
			if wantBulk := bulk && !shared; r.bulk != wantBulk {
				t.Errorf("%s row %d: sent by bulk load %v, want %v", table, i+1, r.bulk, wantBulk)
			}
			if len(r.cols) != len(w) {
				t.Errorf("%s row %d: columns %v, want %d", table, i+1, r.cols, len(w))
			}
			if r.cols[len(r.cols)-1] != ddl.InstID {
				t.Errorf("%s: INST_ID is not the last column: %v", table, r.cols)
			}
			for j, c := range r.cols {
				col, ok := td.Column(c)
				if !ok || col.Name != c {
					t.Errorf("%s: column %q is not the documented name", table, c)
					continue
				}
				wv, ok := w[c]
				if !ok {
					t.Errorf("%s row %d: column %s sent but not given", table, i+1, c)
					continue
				}
				gv, err := mssqlWireValue(col.Type, r.bulk, r.types[j], r.vals[j])
				if err != nil {
					t.Errorf("%s row %d column %s: %v", table, i+1, c, err)
					continue
				}
				if !mssqlSameValue(gv, wv) {
					t.Errorf("%s row %d column %s: sent %s, want %s", table, i+1, c, mssqlShowValue(gv), mssqlShowValue(wv))
				}
			}
		}
	}
	for table, rows := range got {
		if table == profilers.ResultSetsTable {
			// profdb's own record of the result set: one row, by INSERT.
			if len(rows) != 1 || rows[0].bulk || !slices.Contains(rows[0].cols, profilers.ColExportedAt) {
				t.Errorf("%s: %d rows sent (%+v), want one INSERT", table, len(rows), rows)
			}
			continue
		}
		if _, ok := want[table]; !ok {
			t.Errorf("rows sent for table %s, which was not exported", table)
		}
	}
}

// mssqlCheckStored compares what the fake server stored for INST_ID inst with
// want: every column of the table, the ones not given NULL.
func mssqlCheckStored(t *testing.T, cat *tdstest.Catalog, profiler string, inst int64, want map[string][]map[string]any) {
	t.Helper()
	_, defs := mssqlDefs(t, profiler)
	for table, rows := range want {
		td := defs[table]
		ct, ok := cat.Table(table)
		if !ok {
			t.Errorf("table %s not stored", table)
			continue
		}
		instCol := -1
		for i, c := range ct.Columns {
			if c.Name == ddl.InstID {
				instCol = i
			}
		}
		var stored [][]any
		for _, r := range ct.Rows {
			if r[instCol] == inst {
				stored = append(stored, r)
			}
		}
		if len(stored) != len(rows) {
			t.Errorf("%s: %d rows stored for INST_ID %d, want %d", table, len(stored), inst, len(rows))
			continue
		}
		for i, w := range rows {
			for j, c := range ct.Columns {
				col, _ := td.Column(c.Name)
				gv, err := store.Canonical(col.Type, stored[i][j])
				if err != nil {
					t.Errorf("%s row %d column %s: %v", table, i+1, c.Name, err)
					continue
				}
				if !mssqlSameValue(gv, w[c.Name]) {
					t.Errorf("%s row %d column %s: stored %s, want %s", table, i+1, c.Name, mssqlShowValue(gv), mssqlShowValue(w[c.Name]))
				}
			}
		}
	}
}

// mssqlCheckStatements checks that every statement the exporter sent is a
// batch or sp_executesql, checks the limits of every INSERT and returns the
// largest row and parameter counts. That the statements run is
// TestSQLServerRealServer's, which sends the same ones to the real server.
func mssqlCheckStatements(t *testing.T, evs []tdstest.Event) (maxRows, maxParams int) {
	t.Helper()
	for _, ev := range evs {
		if ev.Kind != tdstest.Batch && ev.Kind != tdstest.RPC {
			continue
		}
		if ev.Kind == tdstest.RPC && ev.Proc != "sp_executesql" {
			t.Errorf("RPC of %s", ev.Proc)
		}
		if strings.HasPrefix(ev.SQL, "INSERT INTO ") {
			if len(ev.Params) > sqlserver.MaxParams {
				t.Errorf("INSERT with %d parameters", len(ev.Params))
			}
			maxParams = max(maxParams, len(ev.Params))
			if n := strings.Count(ev.ParamDecl, "@p"); n != len(ev.Params) {
				t.Errorf("INSERT declares %d parameters and sends %d", n, len(ev.Params))
			}
			if m := mssqlInsertRE.FindStringSubmatch(ev.SQL); m == nil {
				t.Errorf("INSERT not of the form INSERT INTO [T] (...) VALUES (...): %.200s", ev.SQL)
			} else if n := len(mssqlTupleRE.FindAllString(m[3], -1)); n > sqlserver.MaxRows {
				t.Errorf("INSERT of %d rows", n)
			} else {
				maxRows = max(maxRows, n)
			}
		}
	}
	return maxRows, maxParams
}

// mssqlCheckTransaction checks the shape of one successful export's requests:
// BEGIN, the allocation lock in it, everything in it, the INSTANCES row
// after the data and the created indexes, and COMMIT last.
func mssqlCheckTransaction(t *testing.T, evs []tdstest.Event, created bool) {
	t.Helper()
	var reqs []tdstest.Event
	for _, ev := range evs {
		if ev.Kind != tdstest.Login {
			reqs = append(reqs, ev)
		}
	}
	if len(reqs) < 4 || reqs[0].Kind != tdstest.Begin {
		t.Fatalf("export does not start with BEGIN: %v", mssqlKinds(reqs))
	}
	tx := reqs[0].TxDescriptor
	if l := reqs[1]; l.Kind != tdstest.Batch || !strings.Contains(l.SQL, "sp_getapplock") || l.TxDescriptor != tx {
		t.Errorf("the request after BEGIN is %v %.80q in %x, want the sp_getapplock batch in %x", l.Kind, l.SQL, l.TxDescriptor, tx)
	}
	last := reqs[len(reqs)-1]
	if last.Kind != tdstest.Commit || last.TxDescriptor != tx {
		t.Errorf("export ends with %v of %x, want COMMIT of %x", last.Kind, last.TxDescriptor, tx)
	}
	instances, firstData, lastData, creates, indexes, lastIndex := -1, -1, -1, 0, 0, -1
	for i, ev := range reqs[1 : len(reqs)-1] {
		i++
		if ev.Kind == tdstest.Begin || ev.Kind == tdstest.Commit || ev.Kind == tdstest.Rollback {
			t.Errorf("request %d: %v inside the export", i, ev.Kind)
		}
		if ev.TxDescriptor != tx {
			t.Errorf("request %d (%v %.80q) outside the transaction", i, ev.Kind, ev.SQL)
		}
		switch {
		case strings.HasPrefix(ev.SQL, "INSERT INTO [INSTANCES]"):
			if instances >= 0 {
				t.Errorf("INSTANCES written twice")
			}
			instances = i
		case ev.Kind == tdstest.BulkLoad || strings.HasPrefix(ev.SQL, "INSERT INTO ") && !strings.HasPrefix(ev.SQL, "INSERT INTO [RELATIONS]"):
			if firstData < 0 {
				firstData = i
			}
			lastData = i
		case strings.Contains(ev.SQL, "CREATE TABLE") || strings.Contains(ev.SQL, "CREATE INDEX"):
			// A table the export creates comes with its indexes in
			// one batch (CreateNewTableIn).
			if strings.Contains(ev.SQL, "CREATE TABLE") {
				creates++
			}
			if n := strings.Count(ev.SQL, "CREATE INDEX"); n > 0 {
				indexes += n
				lastIndex = i
			}
		}
	}
	if instances < 0 || instances < lastData {
		t.Errorf("INSTANCES written at request %d, data last at %d", instances, lastData)
	}
	// The indexes come with their tables, before the load: profdb's IDs
	// arrive in index order, and keeping the index during the load beats
	// building it afterwards (measured on Babelfish, docs/sqlserver.md).
	if lastIndex >= 0 && firstData >= 0 && lastIndex > firstData {
		t.Errorf("an index created (request %d) after the data load began (request %d)", lastIndex, firstData)
	}
	if created != (creates > 0) || created != (indexes > 0) {
		t.Errorf("%d CREATE TABLE and %d CREATE INDEX batches; tables created by this export: %v", creates, indexes, created)
	}
}

func mssqlKinds(evs []tdstest.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind.String())
	}
	return out
}

// mssqlOpen starts a fake SQL Server and opens an exporter DB on it.
func mssqlOpen(t *testing.T, bulk exporter.BulkMode) (*tdstest.Server, *tdstest.Catalog, *exporter.Exporter, context.Context) {
	t.Helper()
	srv, cat, err := tdstest.NewCatalogServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	var notes []string
	db, err := exporter.Open(ctx, srv.DSN("test"), store.Options{Logf: func(f string, a ...any) {
		notes = append(notes, fmt.Sprintf(f, a...))
	}}, exporter.Options{Bulk: bulk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if len(notes) > 0 {
			t.Errorf("exporter notes: %q", notes)
		}
	})
	return srv, cat, db, ctx
}

// TestSQLServerWire exports result sets with edge values through both
// write paths and checks every request: INSERTs stay in SQL Server's
// limits, every value arrives exactly, in one transaction under the
// allocation lock, with INSTANCES last and RELATIONS matching the profiler
// graph. TestSQLServerRealServer runs the same exports on the real server.
func TestSQLServerWire(t *testing.T) {
	for _, bulk := range []exporter.BulkMode{exporter.BulkOff, exporter.BulkAuto} {
		t.Run("bulk="+bulk.String(), func(t *testing.T) {
			srv, cat, db, ctx := mssqlOpen(t, bulk)
			ft, lc := mssqlFunctionTrace(), mssqlLightCoverage()
			ftDef := profilers.MustLookup(functiontrace.Name)
			lcDef := profilers.MustLookup(lightcoverage.Name)
			steps := []struct {
				set     *mssqlSet
				inst    int64
				relBase int64
				created bool
			}{
				{ft, 1, 0, true},
				{lc, 2, int64(len(ftDef.Tables)), true},
				{ft, 3, int64(len(ftDef.Tables) + len(lcDef.Tables)), false},
			}
			for _, st := range steps {
				srv.ResetEvents()
				res, err := resultset.Export(ctx, db, st.set.resultSet())
				if err != nil {
					t.Fatal(err)
				}
				if res.InstID != st.inst {
					t.Errorf("INST_ID %d, want %d", res.InstID, st.inst)
				}
				evs := srv.Events()
				maxRows, maxParams := mssqlCheckStatements(t, evs)
				// The large light-coverage tables reach both limits.
				if st.set == lc && bulk == exporter.BulkOff && (maxRows != sqlserver.MaxRows || maxParams < sqlserver.MaxParams-6) {
					t.Errorf("largest INSERT: %d rows, %d parameters; want %d rows and close to %d parameters", maxRows, maxParams, sqlserver.MaxRows, sqlserver.MaxParams)
				}
				mssqlCheckTransaction(t, evs, st.created)
				want := mssqlWant(t, st.set, st.inst, st.relBase)
				mssqlCheckWire(t, st.set.header.Profiler, mssqlWireRows(t, evs), want, bulk == exporter.BulkAuto)
				mssqlCheckStored(t, cat, st.set.header.Profiler, st.inst, want)
				if t.Failed() {
					t.FailNow()
				}
			}
			// The tables exist with their indexes.
			for _, name := range []string{functiontrace.CallTrace, lightcoverage.MetaLines, profilers.InstancesTable} {
				tb, ok := cat.Table(name)
				if !ok {
					t.Fatalf("no table %s", name)
				}
				var want int
				d := ddl.Table{Name: name}
				for _, tbl := range append(append(profilers.Shared(), ftDef.Tables...), lcDef.Tables...) {
					if tbl.Name == name {
						d = tbl
					}
				}
				for _, ix := range d.Indexes() {
					if ix.Primary {
						if !reflect.DeepEqual(tb.PrimaryKey, ix.Columns) {
							t.Errorf("%s: primary key %v, want %v", name, tb.PrimaryKey, ix.Columns)
						}
						continue
					}
					want++
					if !reflect.DeepEqual(tb.Indexes[ix.Name], ix.Columns) {
						t.Errorf("%s: index %s on %v, want %v", name, ix.Name, tb.Indexes[ix.Name], ix.Columns)
					}
				}
				if len(tb.Indexes) != want {
					t.Errorf("%s: indexes %v", name, tb.Indexes)
				}
			}
		})
	}
}

// TestSQLServerFailedExportRollsBack: a bad row, early or after a first
// bulk batch went out, rolls the result set back on the wire (ROLLBACK, no
// COMMIT), leaves nothing behind (not even the tables the export created),
// and the next export works with INST_ID 1.
func TestSQLServerFailedExportRollsBack(t *testing.T) {
	for _, bulk := range []exporter.BulkMode{exporter.BulkOff, exporter.BulkAuto} {
		for _, good := range []int{1, 1500} {
			t.Run(fmt.Sprintf("bulk=%s/good=%d", bulk, good), func(t *testing.T) {
				srv, cat, db, ctx := mssqlOpen(t, bulk)
				var rows [][]any
				for i := range good {
					rows = append(rows, []any{int64(i), int64(0), int64(i), int64(i)})
				}
				rows = append(rows, []any{int64(good), int64(0), int64(good), "abc"})
				bad := &mssqlSet{header: resultset.Header{Profiler: functiontrace.Name, Caption: "bad"},
					tables: []mssqlTable{
						{functiontrace.Threads, []string{"ID", "PARENT_ID"}, [][]any{{int64(0), int64(-1)}}},
						{functiontrace.CallTrace, []string{"ID", "PARENT_ID", "REC_ID", "COL__S"}, rows},
					}}
				srv.ResetEvents()
				_, err := resultset.Export(ctx, db, bad.resultSet())
				want := fmt.Sprintf("table %s, column COL__S, row %d: want an integer", functiontrace.CallTrace, good+1)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error = %v, want %q", err, want)
				}
				var begin, commits, rollbacks, bulkRows int
				var tx uint64
				for _, ev := range srv.Events() {
					switch ev.Kind {
					case tdstest.BulkLoad:
						bulkRows += len(ev.Bulk.Rows)
						if rollbacks > 0 || ev.TxDescriptor != tx {
							t.Errorf("bulk load in %x after the rollback", ev.TxDescriptor)
						}
					case tdstest.Login:
						t.Errorf("new connection during the export")
					case tdstest.Begin:
						begin++
						tx = ev.TxDescriptor
					case tdstest.Commit:
						commits++
					case tdstest.Rollback:
						rollbacks++
						if ev.TxDescriptor != tx {
							t.Errorf("ROLLBACK of %x, want %x", ev.TxDescriptor, tx)
						}
					}
				}
				if begin != 1 || commits != 0 || rollbacks != 1 {
					t.Errorf("%d BEGIN, %d COMMIT, %d ROLLBACK; want 1, 0, 1", begin, commits, rollbacks)
				}
				t.Logf("%d rows bulk-loaded before the rollback", bulkRows)
				if names := cat.TableNames(); len(names) != 0 {
					t.Errorf("tables left after the rollback: %v", names)
				}
				srv.ResetEvents()
				ft := mssqlFunctionTrace()
				res, err := resultset.Export(ctx, db, ft.resultSet())
				if err != nil || res.InstID != 1 {
					t.Fatalf("next export: %+v, %v", res, err)
				}
				mssqlCheckTransaction(t, srv.Events(), true)
				mssqlCheckStored(t, cat, functiontrace.Name, 1, mssqlWant(t, ft, 1, 0))
			})
		}
	}
}

// TestSQLServerRealServer exports the edge result sets into a new schema of
// the SQL Server named by PROFDB_TEST_SQLSERVER (skipped without it),
// through both write paths, and reads them back.
func TestSQLServerRealServer(t *testing.T) {
	dsn := dbtest.DSN(t, "sqlserver")
	raw := dbtest.Open(t, dsn)
	var d sqlserver.Dialect
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	schema := "profdb_t_" + hex.EncodeToString(b)
	if _, err := raw.ExecContext(ctx, "CREATE SCHEMA "+d.Quote(schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tables, err := profilers.Tables(profilers.All()...)
		if err != nil {
			t.Error(err)
		}
		for _, tb := range tables {
			name := dialects.Qualify(d, schema, tb.Name)
			if _, err := raw.ExecContext(ctx, "IF OBJECT_ID(N'"+strings.ReplaceAll(name, "'", "''")+"', N'U') IS NOT NULL DROP TABLE "+name); err != nil {
				t.Errorf("drop %s: %v", name, err)
			}
		}
		if _, err := raw.ExecContext(ctx, "DROP SCHEMA "+d.Quote(schema)); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	babelfish, err := sqlserver.IsBabelfish(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	inst := int64(0)
	for _, bulk := range []exporter.BulkMode{exporter.BulkOff, exporter.BulkAuto} {
		var notes []string
		db, err := exporter.Open(ctx, dsn, store.Options{Schema: schema,
			Logf: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }}, exporter.Options{Bulk: bulk})
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range []*mssqlSet{mssqlFunctionTrace(), mssqlLightCoverage()} {
			inst++
			res, err := resultset.Export(ctx, db, set.resultSet())
			if err != nil {
				t.Fatalf("bulk=%s %s: %v", bulk, set.header.Profiler, err)
			}
			if res.InstID != inst {
				t.Errorf("INST_ID %d, want %d", res.InstID, inst)
			}
			got, err := db.DB().Read(ctx, inst)
			if err != nil {
				t.Fatal(err)
			}
			if got.Profiler != set.header.Profiler || got.Caption != set.header.Caption {
				t.Errorf("header %q %q", got.Profiler, got.Caption)
			}
			want := mssqlWant(t, set, inst, 0)
			if c := set.header.Counter; c != nil {
				w := want[profilers.InstancesTable][0]
				if got.Counter == nil || got.Counter.Name != c.Name || got.Counter.Description != c.Description ||
					got.Counter.Frequency != w["COUNTER_FREQUENCY"] {
					t.Errorf("counter %+v", got.Counter)
				}
			}
			for _, tr := range got.Tables {
				rows, given := want[tr.Name], false
				for _, tb := range set.tables {
					given = given || tb.name == tr.Name
				}
				n := 0
				for r, err := range tr.Rows {
					if err != nil {
						t.Fatal(err)
					}
					if n >= len(rows) {
						n++
						continue
					}
					for j, c := range tr.Columns {
						if !mssqlSameValue(r[j], rows[n][c]) {
							t.Errorf("bulk=%s %s row %d column %s: read %s, want %s", bulk, tr.Name, n+1, c, mssqlShowValue(r[j]), mssqlShowValue(rows[n][c]))
						}
					}
					n++
				}
				if n != len(rows) || !given && n != 0 {
					t.Errorf("bulk=%s %s: %d rows read, want %d", bulk, tr.Name, n, len(rows))
				}
			}
		}
		db.Close()
		for _, n := range notes {
			// Babelfish's bulk copy stores DECIMAL(28,8) wrongly: the tables
			// with such a column take batched INSERT, saying so. Nothing
			// else falls back, and nothing on SQL Server.
			if !babelfish || !strings.Contains(n, "is decimal(28,8), which Babelfish's bulk copy stores wrongly") {
				t.Errorf("bulk=%s: exporter note %q", bulk, n)
			}
		}
	}
}

// TestSQLServerBulkSkip: a table whose text column is a DBA's VARCHAR is
// written with batched INSERT (bulk copy would send the UTF-8 bytes
// unconverted), with a note saying why; the other tables still bulk-load.
func TestSQLServerBulkSkip(t *testing.T) {
	srv, cat, err := tdstest.NewCatalogServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var notes []string
	db, err := exporter.Open(ctx, srv.DSN("test"), store.Options{Logf: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }}, exporter.Options{Bulk: exporter.BulkAuto})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.DB().SQL().ExecContext(ctx, "CREATE TABLE [FUNCTION_TRACE_PROFILER_ROUTINES] ([INST_ID] BIGINT NOT NULL,"+
		" [ID] BIGINT NULL, [PARENT_ID] BIGINT NULL, [COL_CLASS_NAME] VARCHAR(100) NULL)"); err != nil {
		t.Fatal(err)
	}
	set := &mssqlSet{header: resultset.Header{Profiler: functiontrace.Name, Caption: "skip"},
		tables: []mssqlTable{
			{functiontrace.Threads, []string{"ID", "PARENT_ID"}, [][]any{{int64(0), int64(-1)}}},
			{functiontrace.Routines, []string{"ID", "PARENT_ID", "COL_CLASS_NAME"}, [][]any{{int64(0), int64(-1), "naïve"}}},
		}}
	srv.ResetEvents()
	if _, err := resultset.Export(ctx, db, set.resultSet()); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], functiontrace.Routines) || !strings.Contains(notes[0], "COL_CLASS_NAME is varchar(100)") {
		t.Errorf("notes %q", notes)
	}
	got := mssqlWireRows(t, srv.Events())
	if r := got[functiontrace.Routines]; len(r) != 1 || r[0].bulk || r[0].vals[2] != "naïve" {
		t.Errorf("ROUTINES sent as %+v, want by INSERT", r)
	}
	if r := got[functiontrace.Threads]; len(r) != 1 || !r[0].bulk {
		t.Errorf("THREADS sent as %+v, want by bulk load", r)
	}
	if tb, _ := cat.Table(functiontrace.Routines); len(tb.Rows) != 1 {
		t.Errorf("ROUTINES holds %v", tb.Rows)
	}
}
