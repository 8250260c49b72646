package integration

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/internal/tdstest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// This file checks, without a SQL Server, what profdb sends one: the real
// go-mssqldb driver talks to tdstest, an in-process TDS server that records
// and decodes every request. A fakeCatalog answers the catalog queries as
// SQL Server would for the tables profdb creates.

// fakeCatalog answers the catalog queries of profdb's SQL Server dialect:
// the tables created so far, their columns as SQL Server describes the
// types profdb creates, and MAX(INST_ID) / MAX(ID) as NULL (an empty
// database).
type fakeCatalog struct {
	mu        sync.Mutex
	created   map[string]bool
	defs      map[string]ddl.Table
	relations [][]any // RELATIONS rows as inserted
}

var objectID = regexp.MustCompile(`^IF OBJECT_ID\(N'\[([^\]]+)\]', N'U'\) IS NULL`)

func newFakeCatalog(t testing.TB) (*fakeCatalog, *tdstest.Responder) {
	fc := &fakeCatalog{created: map[string]bool{}, defs: map[string]ddl.Table{}}
	r := tdstest.NewResponder()
	for _, tb := range dialecttest.AllTables(t) {
		fc.defs[tb.Name] = tb
		var cols []tdstest.Column
		for _, c := range tb.Columns {
			cols = append(cols, tdstest.Column{Name: c.Name, Type: tdsType(c.Type)})
		}
		r.Table(tb.Name, cols...) // for bulk copy's metadata query
	}
	nv := tdstest.NVarChar
	r.OnRegexp(`(?i)INFORMATION_SCHEMA\.TABLES`, func(*tdstest.Request) (*tdstest.Result, error) {
		fc.mu.Lock()
		defer fc.mu.Unlock()
		set := tdstest.ResultSet{Columns: []tdstest.Column{{Name: "TABLE_NAME", Type: nv(128)}}}
		for n := range fc.created {
			set.Rows = append(set.Rows, []any{n})
		}
		return &tdstest.Result{Sets: []tdstest.ResultSet{set}}, nil
	})
	r.OnRegexp(`(?i)INFORMATION_SCHEMA\.COLUMNS`, func(req *tdstest.Request) (*tdstest.Result, error) {
		name, _ := req.Params[len(req.Params)-1].Value.(string)
		fc.mu.Lock()
		tb, ok := fc.defs[strings.ToUpper(name)]
		fc.mu.Unlock()
		set := tdstest.ResultSet{Columns: []tdstest.Column{
			{Name: "COLUMN_NAME", Type: nv(128)}, {Name: "DATA_TYPE", Type: nv(128)},
			{Name: "IS_NULLABLE", Type: nv(3)}, {Name: "COLUMN_DEFAULT", Type: nv(4000)},
			{Name: "CHARACTER_MAXIMUM_LENGTH", Type: tdstest.Int},
			{Name: "NUMERIC_PRECISION", Type: tdstest.TypeInfo{ID: tdstest.TypeIntN, Size: 1}},
			{Name: "NUMERIC_SCALE", Type: tdstest.Int},
		}}
		if ok {
			for _, c := range tb.Columns {
				null := "YES"
				if c.NotNull || strings.EqualFold(c.Name, tb.Key) {
					null = "NO"
				}
				var row []any
				switch c.Type {
				case ddl.Integer:
					row = []any{c.Name, "bigint", null, nil, nil, 19, 0}
				case ddl.String:
					row = []any{c.Name, "nvarchar", null, nil, -1, nil, nil}
				case ddl.Decimal:
					row = []any{c.Name, "decimal", null, nil, nil, 28, 8}
				case ddl.Float:
					row = []any{c.Name, "float", null, nil, nil, 53, nil}
				}
				set.Rows = append(set.Rows, row)
			}
		}
		return &tdstest.Result{Sets: []tdstest.ResultSet{set}}, nil
	})
	r.OnRegexp(`(?i)^SELECT CAST\(SERVERPROPERTY\(`, func(*tdstest.Request) (*tdstest.Result, error) {
		// SQL Server answers NULL for a property it does not know, such as
		// Babelfish's 'Babelfish'.
		return &tdstest.Result{Sets: []tdstest.ResultSet{{Columns: []tdstest.Column{{Name: "", Type: tdstest.Int}}, Rows: [][]any{{nil}}}}}, nil
	})
	r.OnRegexp(`(?i)^SELECT MAX\(`, func(*tdstest.Request) (*tdstest.Result, error) {
		return &tdstest.Result{Sets: []tdstest.ResultSet{{Columns: []tdstest.Column{{Name: "", Type: tdstest.BigInt}}, Rows: [][]any{{nil}}}}}, nil
	})
	// The RELATIONS rows written are read back by the checks export runs
	// before it commits. The fake keeps no other rows, so the checks'
	// queries of the data tables find nothing, and their probes answer 0
	// (what they find is tested on tdstest.Catalog and on real servers).
	r.OnRegexp(`^INSERT INTO \[RELATIONS\] `, func(req *tdstest.Request) (*tdstest.Result, error) {
		fc.mu.Lock()
		defer fc.mu.Unlock()
		for i := 0; i+3 < len(req.Params); i += 4 {
			row := make([]any, 4)
			for j := range row {
				row[j] = req.Params[i+j].Value
			}
			fc.relations = append(fc.relations, row)
		}
		return &tdstest.Result{}, nil
	})
	r.OnRegexp(`^SELECT \[INST_ID\], \[COL_CHILD_TABLE\], \[COL_PARENT_TABLE\] FROM \[RELATIONS\] WHERE \[INST_ID\] = @p1$`, func(req *tdstest.Request) (*tdstest.Result, error) {
		fc.mu.Lock()
		defer fc.mu.Unlock()
		set := tdstest.ResultSet{Columns: []tdstest.Column{{Name: "INST_ID", Type: tdstest.BigInt}, {Name: "COL_CHILD_TABLE", Type: nv(0)}, {Name: "COL_PARENT_TABLE", Type: nv(0)}}}
		for _, row := range fc.relations { // COL_CHILD_TABLE, COL_PARENT_TABLE, ID, INST_ID
			if row[3] == req.Params[0].Value {
				set.Rows = append(set.Rows, []any{row[3], row[0], row[1]})
			}
		}
		return &tdstest.Result{Sets: []tdstest.ResultSet{set}}, nil
	})
	r.OnRegexp(`^SELECT COUNT\(\[ID\]\) - COUNT\(DISTINCT \[ID\]\) FROM `, func(*tdstest.Request) (*tdstest.Result, error) {
		return &tdstest.Result{Sets: []tdstest.ResultSet{{Columns: []tdstest.Column{{Name: "", Type: tdstest.BigInt}}, Rows: [][]any{{int64(0)}}}}}, nil
	})
	r.OnRegexp(`^IF OBJECT_ID`, func(req *tdstest.Request) (*tdstest.Result, error) {
		if m := objectID.FindStringSubmatch(req.SQL); m != nil {
			fc.mu.Lock()
			fc.created[m[1]] = true
			fc.mu.Unlock()
		}
		return &tdstest.Result{}, nil
	})
	return fc, r
}

func tdsType(t ddl.Type) tdstest.TypeInfo {
	switch t {
	case ddl.Integer:
		return tdstest.BigInt
	case ddl.Decimal:
		return tdstest.Decimal(ddl.DecimalPrecision, ddl.DecimalScale)
	case ddl.Float:
		return tdstest.Float
	}
	return tdstest.NVarChar(0)
}

func startTDS(t *testing.T, h tdstest.Handler) (*tdstest.Server, string) {
	t.Helper()
	srv, err := tdstest.NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, srv.DSN("profdb")
}

// TestSQLServerDDLOverTDS runs the DDL of every table twice, as batches, and
// checks that the server received each statement, as the dialect writes it,
// as one plain batch. What the statements say is the sqlserver dialect's
// TestScriptParses; that they run, TestConformance's on the real server.
func TestSQLServerDDLOverTDS(t *testing.T) {
	srv, dsn := startTDS(t, nil)
	tables := dialecttest.AllTables(t)
	RunDDL(t, dsn, "", tables)
	RunDDL(t, dsn, "", tables)
	d, _ := dialects.Lookup("sqlserver")
	var want []string
	for range 2 {
		for _, tb := range tables {
			want = append(want, d.CreateTableIn("", tb)...)
		}
	}
	var got []string
	for _, ev := range srv.Events() {
		if ev.Kind == tdstest.Login || ev.Kind == tdstest.Batch && strings.EqualFold(strings.TrimSuffix(ev.SQL, ";"), "select 1") {
			continue // the login, and database/sql's Ping
		}
		if ev.Kind != tdstest.Batch || len(ev.Params) > 0 || ev.TxDescriptor != 0 {
			t.Errorf("%v request with %d parameters in transaction %d: %.200s", ev.Kind, len(ev.Params), ev.TxDescriptor, ev.SQL)
		}
		got = append(got, ev.SQL)
	}
	if len(got) != len(want) {
		for _, g := range got {
			if !strings.HasPrefix(g, "IF ") {
				t.Logf("unexpected batch %q", g)
			}
		}
		t.Fatalf("server received %d batches, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("batch %d:\n%s\nwant\n%s", i+1, got[i], want[i])
		}
	}
}

var insertHead = regexp.MustCompile(`^INSERT INTO \[([^\]]+)\] \(([^)]*)\) VALUES `)

// TestSQLServerExportOverTDS exports a result set of every profiler, all
// columns filled with edge values, through both write paths, and checks
// that the values the server decodes (INSERT parameters, bulk-copy rows)
// are the exported ones.
func TestSQLServerExportOverTDS(t *testing.T) {
	for _, mode := range []exporter.BulkMode{exporter.BulkOff, exporter.BulkAuto} {
		for _, p := range profilers.Names() {
			t.Run(p+"/bulk="+mode.String(), func(t *testing.T) {
				_, responder := newFakeCatalog(t)
				srv, dsn := startTDS(t, responder.Handle)
				db := OpenExporter(t, dsn, store.Options{}, exporter.Options{Bulk: mode})
				f := resultsettest.Full(t, p, "tds 'x' ✓", "sqlserver", 4, false)
				res := Export(t, db, f)
				if res.InstID != 1 {
					t.Fatalf("INST_ID %d, want 1 (MAX(INST_ID) is NULL)", res.InstID)
				}
				got, cols := sentRows(t, srv.Events())
				def := profilers.MustLookup(p)
				for _, ft := range f.Tables {
					td, _ := def.Table(ft.Name)
					rows := got[ft.Name]
					if len(rows) != len(ft.Rows) {
						t.Errorf("%s: server received %d rows, want %d", ft.Name, len(rows), len(ft.Rows))
						continue
					}
					for i, r := range ft.Rows {
						for ci, c := range ft.Columns {
							col, _ := td.Column(c)
							want, err := resultset.Convert(col.Type, r[ci])
							if err != nil {
								t.Fatal(err)
							}
							gi := indexOf(cols[ft.Name], c)
							if gi < 0 {
								t.Fatalf("%s: column %s not sent", ft.Name, c)
							}
							if !sameValue(col.Type, want, rows[i][gi]) {
								t.Errorf("%s row %d %s: server got %s, want %s", ft.Name, i, c, resultsettest.Show(rows[i][gi]), resultsettest.Show(want))
							}
						}
						if v := rows[i][indexOf(cols[ft.Name], ddl.InstID)]; v != int64(1) {
							t.Errorf("%s row %d: INST_ID %v", ft.Name, i, v)
						}
					}
				}
				rel := got[profilers.RelationsTable]
				if len(rel) != len(def.Tables) {
					t.Fatalf("RELATIONS: %d rows, want %d", len(rel), len(def.Tables))
				}
				for i, tb := range def.Tables {
					var parent any
					if tb.Parent != "" {
						parent = tb.Parent
					}
					if rel[i][0] != tb.Name || rel[i][1] != parent || rel[i][2] != int64(i+1) || rel[i][3] != int64(1) {
						t.Errorf("RELATIONS row %d: %v", i, rel[i])
					}
				}
				inst := got[profilers.InstancesTable]
				if len(inst) != 1 || inst[0][0] != f.Header.Caption || !sameValue(ddl.Decimal, ddl.Dec("18446744073709551615"), inst[0][2]) || inst[0][4] != int64(1) {
					t.Errorf("INSTANCES: %v", inst)
				}
			})
		}
	}
}

// sentRows collects the rows the server received per table, from INSERT
// parameters and bulk loads, with the column names of each table.
func sentRows(t *testing.T, events []tdstest.Event) (map[string][][]any, map[string][]string) {
	t.Helper()
	rows := map[string][][]any{}
	cols := map[string][]string{}
	for _, ev := range events {
		switch ev.Kind {
		case tdstest.RPC:
			m := insertHead.FindStringSubmatch(ev.SQL)
			if m == nil {
				continue
			}
			table := m[1]
			var names []string
			for _, c := range strings.Split(m[2], ", ") {
				names = append(names, strings.Trim(c, "[]"))
			}
			cols[table] = names
			if len(ev.Params)%len(names) != 0 {
				t.Fatalf("%s: %d parameters for %d columns", table, len(ev.Params), len(names))
			}
			for i := 0; i < len(ev.Params); i += len(names) {
				row := make([]any, len(names))
				for j := range names {
					row[j] = ev.Params[i+j].Value
				}
				rows[table] = append(rows[table], row)
			}
		case tdstest.BulkLoad:
			table := ev.Bulk.Table
			if i := strings.LastIndex(table, "."); i >= 0 {
				table = table[i+1:]
			}
			var names []string
			for _, c := range ev.Bulk.Columns {
				names = append(names, c.Name)
			}
			cols[table] = names
			rows[table] = append(rows[table], ev.Bulk.Rows...)
		}
	}
	return rows, cols
}

// sameValue compares a canonical value with what tdstest decoded: text
// (decimals travel as NVARCHAR text, or as DECIMAL in a bulk load, decoded
// with trailing zeros), int64 or float64.
func sameValue(typ ddl.Type, want, got any) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	switch typ {
	case ddl.Decimal:
		s, ok := got.(string)
		if !ok {
			return false
		}
		d, err := resultset.ParseDecimal(s)
		return err == nil && d == want
	case ddl.Float:
		f, ok := got.(float64)
		return ok && math.Float64bits(f) == math.Float64bits(want.(float64))
	}
	return got == want
}
