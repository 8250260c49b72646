package sqlserver_test

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/tdstest"
)

// These tests run the real go-mssqldb driver against tdstest, an in-process
// TDS server that records every request, to check what reaches SQL Server.

// openTDS starts a server answering with h (nil: empty results), opens it
// through the dialect's DriverDSN and returns one pinned connection.
func openTDS(t *testing.T, h tdstest.Handler) (*tdstest.Server, *sql.Conn, context.Context) {
	t.Helper()
	srv, err := tdstest.NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	conn, ctx := connect(t, srv)
	return srv, conn, ctx
}

// connect opens srv through the dialect's DriverDSN and returns one
// pinned connection; srv, the handle and the connection close with the
// test.
func connect(t *testing.T, srv *tdstest.Server) (*sql.Conn, context.Context) {
	t.Helper()
	t.Cleanup(func() { srv.Close() })
	var d sqlserver.Dialect
	dsn, err := d.DriverDSN(srv.DSN("profdb"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(d.Facts().Driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, ctx
}

// requests returns the recorded events other than the login.
func requests(t *testing.T, srv *tdstest.Server) []tdstest.Event {
	t.Helper()
	var out []tdstest.Event
	for _, ev := range srv.Events() {
		if ev.Kind == tdstest.Login {
			if ev.User != "sa" || ev.Database != "profdb" {
				t.Errorf("login as %q to %q", ev.User, ev.Database)
			}
			continue
		}
		out = append(out, ev)
	}
	return out
}

// TestScriptOverTDS runs the catalogue's DDL script batch by batch, as
// sqlcmd would, and checks that the server received exactly those batches,
// as plain SQL batches (no parameters, no sp_executesql).
func TestScriptOverTDS(t *testing.T) {
	var d sqlserver.Dialect
	srv, conn, ctx := openTDS(t, nil)
	batches := splitBatches(ddl.Script(dialects.Generator(d, ""), []string{"profdb"}, dialecttest.AllTables(t)))
	for _, b := range batches {
		if _, err := conn.ExecContext(ctx, b); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
	}
	evs := requests(t, srv)
	if len(evs) != len(batches) {
		t.Fatalf("server received %d requests, want %d batches", len(evs), len(batches))
	}
	for i, ev := range evs {
		if ev.Kind != tdstest.Batch || ev.SQL != batches[i] || ev.TxDescriptor != 0 {
			t.Errorf("request %d: %v in tx %d\n%s\nwant the batch\n%s", i+1, ev.Kind, ev.TxDescriptor, ev.SQL, batches[i])
		}
	}
}

// TestBindOverTDS inserts bound values and checks the parameters the
// server received: decimals as exact text, text as NVARCHAR, integers as
// BIGINT, floats as FLOAT.
func TestBindOverTDS(t *testing.T) {
	var d sqlserver.Dialect
	srv, conn, ctx := openTDS(t, nil)
	cols := []string{"S", "I", "D", "F"}
	types := []ddl.Type{ddl.String, ddl.Integer, ddl.Decimal, ddl.Float}
	rows := [][]any{
		{"Grüße ☃ 'x' 𝄞", int64(-9223372036854775808), ddl.Dec("18446744073709551615.12345678"), 1.0 / 3},
		{nil, nil, nil, nil},
		{"", int64(42), ddl.Dec("-0.5"), -0.0},
	}
	var args []any
	for _, r := range rows {
		for i, v := range r {
			args = append(args, d.Bind(types[i], v))
		}
	}
	query := dialects.InsertSQL(d, dialects.Qualify(d, "", "T"), cols, len(rows))
	if _, err := conn.ExecContext(ctx, query, args...); err != nil {
		t.Fatal(err)
	}
	evs := requests(t, srv)
	if len(evs) != 1 || evs[0].Kind != tdstest.RPC || evs[0].Proc != "sp_executesql" || evs[0].SQL != query {
		t.Fatalf("requests: %+v", evs)
	}
	params := evs[0].Params
	if len(params) != len(args) {
		t.Fatalf("%d parameters, want %d", len(params), len(args))
	}
	for r, row := range rows {
		for c, v := range row {
			p := params[r*len(cols)+c]
			if p.Name != d.Placeholder(r*len(cols)+c+1) {
				t.Errorf("parameter %s, want %s", p.Name, d.Placeholder(r*len(cols)+c+1))
			}
			var want any
			wantID := byte(0)
			switch types[c] {
			case ddl.String:
				wantID = tdstest.TypeNVarChar
				want = v
			case ddl.Decimal:
				wantID = tdstest.TypeNVarChar
				if v != nil {
					want = string(v.(ddl.Dec))
				}
			case ddl.Integer:
				wantID = tdstest.TypeIntN
				want = v
			case ddl.Float:
				wantID = tdstest.TypeFltN
				want = v
			}
			if p.Type.ID != wantID || !reflect.DeepEqual(p.Value, want) {
				t.Errorf("%s (%v): type %v value %#v, want type 0x%02X value %#v", p.Name, types[c], p.Type, p.Value, wantID, want)
			}
			if types[c] == ddl.Integer && v != nil && p.Type.Size != 8 {
				t.Errorf("%s: integer of %d bytes, want BIGINT", p.Name, p.Type.Size)
			}
			if types[c] == ddl.Float && v != nil && p.Type.Size != 8 {
				t.Errorf("%s: float of %d bytes, want FLOAT(53)", p.Name, p.Type.Size)
			}
		}
	}
	if !strings.Contains(evs[0].ParamDecl, "@p3 nvarchar(") {
		t.Errorf("the decimal is not declared NVARCHAR: %s", evs[0].ParamDecl)
	}
}

// TestInspectOverTDS reads INFORMATION_SCHEMA answers, typed as SQL Server
// types them, through the real driver.
func TestInspectOverTDS(t *testing.T) {
	var d sqlserver.Dialect
	nv := tdstest.NVarChar
	tinyint := tdstest.TypeInfo{ID: tdstest.TypeIntN, Size: 1}
	rsp := tdstest.NewResponder().
		On("INFORMATION_SCHEMA.TABLES", &tdstest.Result{Sets: []tdstest.ResultSet{{
			Columns: []tdstest.Column{{Name: "TABLE_NAME", Type: nv(128)}},
			Rows:    [][]any{{"INSTANCES"}, {"relations"}},
		}}}).
		On("INFORMATION_SCHEMA.COLUMNS", &tdstest.Result{Sets: []tdstest.ResultSet{{
			Columns: []tdstest.Column{
				{Name: "COLUMN_NAME", Type: nv(128)}, {Name: "DATA_TYPE", Type: nv(128)},
				{Name: "IS_NULLABLE", Type: nv(3)}, {Name: "COLUMN_DEFAULT", Type: nv(4000)},
				{Name: "CHARACTER_MAXIMUM_LENGTH", Type: tdstest.Int}, {Name: "NUMERIC_PRECISION", Type: tinyint},
				{Name: "NUMERIC_SCALE", Type: tdstest.Int},
			},
			Rows: [][]any{
				{"CAPTION", "nvarchar", "YES", nil, -1, nil, nil},
				{"COUNTER_FREQUENCY", "decimal", "YES", nil, nil, 28, 8},
				{"INST_ID", "bigint", "NO", nil, nil, 19, 0},
				{"X", "float", "YES", "((0))", nil, 53, nil},
			},
		}}})
	srv, conn, ctx := openTDS(t, rsp.Handle)

	tables, err := d.Tables(ctx, conn, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tables, []string{"INSTANCES", "relations"}) {
		t.Errorf("Tables = %q", tables)
	}
	cols, err := d.Columns(ctx, conn, "prof", "INSTANCES")
	if err != nil {
		t.Fatal(err)
	}
	want := []dialects.ColumnInfo{
		{Name: "CAPTION", DBType: "nvarchar(max)", Type: ddl.String, Nullable: true},
		{Name: "COUNTER_FREQUENCY", DBType: "decimal(28,8)", Type: ddl.Decimal, Nullable: true, Precision: 28, Scale: 8},
		{Name: "INST_ID", DBType: "bigint", Type: ddl.Integer, IntBits: 64},
		{Name: "X", DBType: "float", Type: ddl.Float, Nullable: true, HasDefault: true, FloatBits: 64},
	}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("Columns =\n%+v\nwant\n%+v", cols, want)
	}
	evs := requests(t, srv)
	if len(evs) != 2 {
		t.Fatalf("requests: %+v", evs)
	}
	if evs[0].Kind != tdstest.Batch || !strings.Contains(evs[0].SQL, "SCHEMA_NAME()") {
		t.Errorf("Tables sent %v %s", evs[0].Kind, evs[0].SQL)
	}
	var got []any
	for _, p := range evs[1].Params {
		got = append(got, p.Value)
		if p.Type.ID != tdstest.TypeNVarChar {
			t.Errorf("%s sent as %v, want NVARCHAR", p.Name, p.Type)
		}
	}
	if evs[1].Kind != tdstest.RPC || !reflect.DeepEqual(got, []any{"prof", "INSTANCES"}) {
		t.Errorf("Columns sent %v %s %v", evs[1].Kind, evs[1].SQL, got)
	}
}

// TestLockOverTDS: the lock statement runs inside the export transaction,
// the owner of the lock.
func TestLockOverTDS(t *testing.T) {
	var d sqlserver.Dialect
	srv, conn, ctx := openTDS(t, nil)
	acquire, release := d.Lock("")
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range acquire {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	evs := requests(t, srv)
	if len(release) != 0 || len(evs) != 3 || evs[0].Kind != tdstest.Begin || evs[1].Kind != tdstest.Batch ||
		evs[1].SQL != acquire[0] || evs[1].TxDescriptor == 0 || evs[1].TxDescriptor != evs[0].TxDescriptor ||
		evs[2].Kind != tdstest.Commit {
		t.Errorf("requests: %+v", evs)
	}
}
