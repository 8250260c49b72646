package tdstest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/shopspring/decimal"
)

// start runs a server with handler h and opens a database/sql pool on it; the
// DSN gets extra appended.
func start(t *testing.T, h Handler, extra string) (*Server, *sql.DB) {
	t.Helper()
	srv, err := NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlserver", srv.DSN("test")+extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv, db
}

// only returns the events of the given kinds.
func only(evs []Event, kinds ...EventKind) []Event {
	var out []Event
	for _, ev := range evs {
		for _, k := range kinds {
			if ev.Kind == k {
				out = append(out, ev)
			}
		}
	}
	return out
}

// lastRPC returns the last RPC event whose SQL contains substr.
func lastRPC(t *testing.T, srv *Server, substr string) Event {
	t.Helper()
	evs := only(srv.Events(), RPC)
	for i := len(evs) - 1; i >= 0; i-- {
		if strings.Contains(evs[i].SQL, substr) {
			return evs[i]
		}
	}
	t.Fatalf("no RPC containing %q in %+v", substr, evs)
	return Event{}
}

func TestConnectAndPing(t *testing.T) {
	srv, db := start(t, nil, "")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	evs := srv.Events()
	logins := only(evs, Login)
	if len(logins) != 1 || logins[0].User != "sa" || logins[0].Database != "test" || logins[0].Conn != 1 {
		t.Fatalf("logins = %+v", logins)
	}
	if strings.Contains(fmt.Sprintf("%+v", evs), dsnPassword) {
		t.Fatal("password leaked into events")
	}
	batches := only(evs, Batch)
	if len(batches) != 1 || batches[0].SQL != "select 1;" {
		t.Fatalf("batches = %+v", batches)
	}
}

func TestExecBatch(t *testing.T) {
	srv, db := start(t, NewResponder().Handle, "")
	if _, err := db.Exec("CREATE TABLE t (id bigint, name nvarchar(10))"); err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec("INSERT INTO t (id, name) VALUES (1, N'a,(b)'), (2, 'x'';(y'),\n(3, NULL)")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Errorf("RowsAffected = %d, want 3", n)
	}
	batches := only(srv.Events(), Batch)
	if len(batches) != 2 || batches[0].SQL != "CREATE TABLE t (id bigint, name nvarchar(10))" ||
		!strings.HasPrefix(batches[1].SQL, "INSERT INTO t") || batches[1].TxDescriptor != 0 {
		t.Fatalf("batches = %+v", batches)
	}
}

// TestUntypedNullRefused: a Go nil, which go-mssqldb sends as an untyped
// NULL (TDS type 0x1F), is refused as Babelfish refuses it, with its error;
// a typed NULL is taken.
func TestUntypedNullRefused(t *testing.T) {
	srv, db := start(t, NewResponder().Handle, "")
	_, err := db.Exec("INSERT INTO t VALUES (@p1, @p2)", int64(1), nil)
	var e mssql.Error
	if !errors.As(err, &e) || e.Number != 8009 || !strings.Contains(e.Message, `Parameter 4 ("@p2"): Data type 0x1F is unknown.`) {
		t.Fatalf("untyped NULL: error %v, want 8009 naming parameter 4 (@p2)", err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (@p1, @p2)", int64(1), sql.NullString{}); err != nil {
		t.Fatalf("typed NULL: %v", err)
	}
	rpcs := only(srv.Events(), RPC)
	if len(rpcs) != 2 || rpcs[1].Params[1].Type.ID != TypeNVarChar || rpcs[1].Params[1].Value != nil {
		t.Fatalf("RPCs: %+v", rpcs)
	}
}

func TestExecParams(t *testing.T) {
	srv, db := start(t, NewResponder().Handle, "")
	big := strings.Repeat("Grüße, 世界! 𝄞 ", 1<<16) // 1.25 MiB of UTF-8, with surrogate pairs
	dec := decimal.RequireFromString("-123.45000000")
	out := int64(-5)
	args := []any{
		int64(math.MinInt64), int64(math.MaxInt64), int32(-7), 3.25, "héllo", "",
		mssql.VarChar("plain"), "-123.45000000", dec,
		big, mssql.NVarCharMax("m"), sql.NullInt64{}, sql.Named("named", int64(42)),
		sql.Named("out", sql.Out{Dest: &out}),
	}
	placeholders := make([]string, len(args)-2)
	for i := range placeholders {
		placeholders[i] = fmt.Sprintf("@p%d", i+1)
	}
	query := "INSERT INTO t VALUES (" + strings.Join(placeholders, ", ") + ", @named, @out)"
	res, err := db.Exec(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("RowsAffected = %d, want 1", n)
	}
	ev := lastRPC(t, srv, "INSERT INTO t")
	if ev.Proc != "sp_executesql" || ev.SQL != query {
		t.Fatalf("proc %q sql %q", ev.Proc, ev.SQL)
	}
	wantDecl := "@p1 bigint,@p2 bigint,@p3 int,@p4 float,@p5 nvarchar(5),@p6 nvarchar(max)," +
		"@p7 varchar(5),@p8 nvarchar(13),@p9 nvarchar(7),@p10 nvarchar(max)," +
		"@p11 nvarchar(max),@p12 bigint,@named bigint,@out bigint output"
	if ev.ParamDecl != wantDecl {
		t.Errorf("decl\n got %s\nwant %s", ev.ParamDecl, wantDecl)
	}
	want := []struct {
		id    byte
		typ   string
		value any
	}{
		{TypeIntN, "bigint", int64(math.MinInt64)},
		{TypeIntN, "bigint", int64(math.MaxInt64)},
		{TypeIntN, "int", int64(-7)},
		{TypeFltN, "float", 3.25},
		{TypeNVarChar, "nvarchar(5)", "héllo"},
		{TypeNVarChar, "nvarchar(max)", ""}, // an empty string goes as NVARCHAR(MAX)
		{TypeBigVarChar, "varchar(5)", "plain"},
		{TypeNVarChar, "nvarchar(13)", "-123.45000000"},
		{TypeNVarChar, "nvarchar(7)", "-123.45"}, // decimal.Decimal is a Valuer: trailing zeros dropped
		{TypeNVarChar, "nvarchar(max)", big},
		{TypeNVarChar, "nvarchar(max)", "m"},
		{TypeIntN, "bigint", nil},
		{TypeIntN, "bigint", int64(42)},
		{TypeIntN, "bigint", int64(-5)},
	}
	if len(ev.Params) != len(want) {
		t.Fatalf("got %d params, want %d", len(ev.Params), len(want))
	}
	for i, w := range want {
		p := ev.Params[i]
		name := fmt.Sprintf("@p%d", i+1)
		switch i {
		case len(want) - 2:
			name = "@named"
		case len(want) - 1:
			name = "@out"
		}
		if p.Name != name || p.Type.ID != w.id || p.Type.String() != w.typ || p.Output != (name == "@out") {
			t.Errorf("param %d: %s %s (0x%02X), want %s %s (0x%02X)", i, p.Name, p.Type, p.Type.ID, name, w.typ, w.id)
		}
		if !reflect.DeepEqual(p.Value, w.value) {
			t.Errorf("param %d: value %.60q (%T), want %.60q (%T)", i, p.Value, p.Value, w.value, w.value)
		}
	}
}

func TestQueryResultSets(t *testing.T) {
	big := strings.Repeat("ñandú 🦤 ", 120_000)
	rsp := NewResponder().On("select * from things", &Result{Sets: []ResultSet{
		{
			Columns: []Column{
				{"id", BigInt}, {"name", NVarChar(20)}, {"note", NVarChar(0)}, {"score", Float},
				{"price", Decimal(18, 8)}, {"n", Int}, {"code", TypeInfo{ID: TypeBigVarChar, Size: 10}},
			},
			Rows: [][]any{
				{int64(math.MaxInt64), "Zoë", nil, 1.5, "-123.45", 7, "ab"},
				{int64(math.MinInt64), nil, big, -0.25, decimal.RequireFromString("99999.00000001"), nil, nil},
			},
		},
		{Columns: []Column{{"total", Decimal(38, 0)}}, Rows: [][]any{{"12345678901234567890123456789012345678"}}},
	}})
	for _, extra := range []string{"", "&packet size=512"} {
		srv, db := start(t, rsp.Handle, extra)
		var args []any // a batch
		if extra == "" {
			args = []any{0} // an RPC
		}
		rows, err := db.Query("select * from things where id > 0 or id > @p1", args...)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			id    int64
			name  sql.NullString
			note  sql.NullString
			score float64
			price string
			n     sql.NullInt32
			code  sql.NullString
		}
		var got []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.name, &r.note, &r.score, &r.price, &r.n, &r.code); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		want := []row{
			{math.MaxInt64, sql.NullString{String: "Zoë", Valid: true}, sql.NullString{}, 1.5, "-123.45000000",
				sql.NullInt32{Int32: 7, Valid: true}, sql.NullString{String: "ab", Valid: true}},
			{math.MinInt64, sql.NullString{}, sql.NullString{String: big, Valid: true}, -0.25, "99999.00000001",
				sql.NullInt32{}, sql.NullString{}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rows\n got %.300v\nwant %.300v", extra, got, want)
		}
		if !rows.NextResultSet() || !rows.Next() {
			t.Fatalf("no second result set: %v", rows.Err())
		}
		var total string
		if err := rows.Scan(&total); err != nil || total != "12345678901234567890123456789012345678" {
			t.Errorf("total = %q, %v", total, err)
		}
		if rows.Next() || rows.NextResultSet() {
			t.Error("unexpected extra rows")
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		// A big parameter crosses many packets in the other direction.
		if _, err := db.Exec("select * from things where note = @p1", big); err != nil {
			t.Fatal(err)
		}
		if ev := lastRPC(t, srv, "where note"); ev.Params[0].Value != big {
			t.Errorf("%s: big parameter garbled", extra)
		}
	}
}

func TestTransactions(t *testing.T) {
	srv, db := start(t, NewResponder().Handle, "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for i, commit := range []bool{true, false} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("UPDATE t SET a = @p1", int64(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("DELETE FROM t"); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("DELETE FROM u WHERE x = @p1", 1); err != nil {
		t.Fatal(err)
	}
	evs := only(srv.Events(), Begin, Commit, Rollback, RPC, Batch)
	kinds := make([]EventKind, len(evs))
	for i, ev := range evs {
		kinds[i] = ev.Kind
	}
	wantKinds := []EventKind{Begin, RPC, Batch, Commit, Begin, RPC, Batch, Rollback, RPC}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Fatalf("kinds = %v, want %v", kinds, wantKinds)
	}
	tx1, tx2 := evs[0].TxDescriptor, evs[4].TxDescriptor
	if tx1 == 0 || tx2 == 0 || tx1 == tx2 {
		t.Fatalf("descriptors %x %x", tx1, tx2)
	}
	for i, want := range []uint64{tx1, tx1, tx1, tx1, tx2, tx2, tx2, tx2, 0} {
		if evs[i].TxDescriptor != want {
			t.Errorf("event %d (%v): descriptor %x, want %x", i, evs[i].Kind, evs[i].TxDescriptor, want)
		}
	}
	if v := evs[5].Params[0].Value; v != int64(1) {
		t.Errorf("param in rolled back tx = %v", v)
	}
}

func TestErrors(t *testing.T) {
	rsp := NewResponder().
		OnRegexp(`(?i)dup`, func(*Request) (*Result, error) {
			return nil, &Error{Number: 2627, State: 2, Class: 14, Message: "Violation of PRIMARY KEY constraint 'pk'."}
		}).
		OnRegexp(`(?i)^select broken`, func(*Request) (*Result, error) { return nil, errors.New("plain failure") })
	_, db := start(t, rsp.Handle, "")
	_, err := db.Exec("INSERT INTO dup VALUES (@p1)", 1)
	var me mssql.Error
	if !errors.As(err, &me) || me.Number != 2627 || me.State != 2 || me.Class != 14 ||
		me.Message != "Violation of PRIMARY KEY constraint 'pk'." {
		t.Fatalf("Exec error = %#v", err)
	}
	_, err = db.Query("select broken")
	if !errors.As(err, &me) || me.Number != 50000 || me.Message != "plain failure" {
		t.Fatalf("Query error = %#v", err)
	}
	// The connection stays usable.
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestBulkCopy(t *testing.T) {
	cols := []Column{
		{"id", BigInt}, {"name", NVarChar(50)}, {"price", Decimal(18, 8)},
		{"qty", Int}, {"note", NVarChar(0)}, {"score", Float},
	}
	rsp := NewResponder().Table("dbo.items", cols...)
	srv, db := start(t, rsp.Handle, "")
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	const n = 300
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := tx.Prepare(mssql.CopyIn("dbo.items", mssql.BulkOptions{}, names...))
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for i := 0; i < n; i++ {
		row := []any{int64(i) - 150, fmt.Sprintf("item №%d", i), fmt.Sprintf("%d.%08d", i-150, i),
			int64(i * 3), strings.Repeat("x", i), float64(i) / 4}
		exp := append([]any(nil), row...)
		exp[2] = fmt.Sprintf("%d.%08d", i-150, i)
		if i == 0 {
			exp[2] = "-150.00000000"
		}
		switch i {
		case 7:
			row[1], row[2], row[3], row[4], row[5] = nil, nil, nil, nil, nil
			copy(exp[1:], []any{nil, nil, nil, nil, nil})
		case 8:
			row[2], exp[2] = 5, "0.00000005" // an integer for a DECIMAL column loses its scale
		case 9:
			row[2], exp[2] = 2.5, "2.50000000"
		}
		want = append(want, exp)
		if _, err := stmt.Exec(row...); err != nil {
			t.Fatal(err)
		}
	}
	res, err := stmt.Exec()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.RowsAffected(); got != n {
		t.Errorf("RowsAffected = %d, want %d", got, n)
	}
	if err := stmt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	bulks := only(srv.Events(), BulkLoad)
	if len(bulks) != 1 {
		t.Fatalf("%d bulk loads", len(bulks))
	}
	b := bulks[0]
	if b.Bulk.Table != "dbo.items" || b.TxDescriptor == 0 || !strings.HasPrefix(b.SQL, "INSERT BULK [dbo].[items] ([id] bigint, [name] nvarchar(50)") {
		t.Errorf("bulk event: table %q tx %x sql %q", b.Bulk.Table, b.TxDescriptor, b.SQL)
	}
	if !reflect.DeepEqual(b.Bulk.Columns, cols) {
		t.Errorf("columns\n got %+v\nwant %+v", b.Bulk.Columns, cols)
	}
	if len(b.Bulk.Rows) != n {
		t.Fatalf("%d rows", len(b.Bulk.Rows))
	}
	for i := range want {
		if !reflect.DeepEqual(b.Bulk.Rows[i], want[i]) {
			t.Errorf("row %d\n got %v\nwant %v", i, b.Bulk.Rows[i], want[i])
		}
	}
}

// TestBulkCopyQuirks pins down surprising go-mssqldb v1.11.2 behavior.
func TestBulkCopyQuirks(t *testing.T) {
	rsp := NewResponder().Table("items", Column{"id", BigInt}, Column{"name", NVarChar(10)}, Column{"d", Decimal(10, 2)})
	srv, db := start(t, rsp.Handle, "")
	// Column names are matched case-sensitively.
	stmt, err := db.Prepare(mssql.CopyIn("items", mssql.BulkOptions{}, "ID"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stmt.Exec(int64(1)); err == nil || !strings.Contains(err.Error(), "column ID does not exist") {
		t.Errorf("err = %v", err)
	}
	stmt, err = db.Prepare(mssql.CopyIn("items", mssql.BulkOptions{}, "id", "name", "d"))
	if err != nil {
		t.Fatal(err)
	}
	// An integer for an NVARCHAR column is sent as ASCII digits, which
	// SQL Server reads as UTF-16: "42" arrives as U+3234. An integer for a
	// DECIMAL column is sent unscaled: 3 arrives as 0.03 in DECIMAL(10,2).
	for _, row := range [][]any{{int64(1), int64(42), 3}, {int64(2), "ok", "3"}} {
		if _, err := stmt.Exec(row...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	bulks := only(srv.Events(), BulkLoad)
	want := [][]any{{int64(1), "\u3234", "0.03"}, {int64(2), "ok", "3.00"}}
	if len(bulks) != 1 || !reflect.DeepEqual(bulks[0].Bulk.Rows, want) {
		t.Fatalf("bulk loads = %+v", bulks)
	}
	var sqls []string
	for _, ev := range only(srv.Events(), Batch) {
		sqls = append(sqls, ev.SQL)
	}
	wantSQL := []string{"SET FMTONLY ON", "select * from [items] SET FMTONLY OFF", "SET FMTONLY ON",
		"select * from [items] SET FMTONLY OFF", "INSERT BULK [items] ([id] bigint, [name] nvarchar(10), [d] decimal(10, 2)) "}
	if !reflect.DeepEqual(sqls, wantSQL) {
		t.Errorf("batches = %q", sqls)
	}
}

func TestConcurrentConnections(t *testing.T) {
	const n = 8
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	h := func(req *Request) (*Result, error) {
		if !strings.Contains(req.SQL, "barrier") {
			return nil, nil
		}
		mu.Lock()
		if arrived++; arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return &Result{RowsAffected: int64(req.Conn)}, nil
		case <-time.After(10 * time.Second):
			return nil, errors.New("not all connections arrived")
		}
	}
	srv, db := start(t, h, "")
	db.SetMaxOpenConns(n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := db.Exec("UPDATE barrier SET v = @p1", i)
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	conns := map[int]bool{}
	for _, ev := range only(srv.Events(), RPC) {
		conns[ev.Conn] = true
	}
	if len(conns) != n || len(only(srv.Events(), Login)) != n {
		t.Fatalf("requests came on %d connections", len(conns))
	}
}

func TestAttention(t *testing.T) {
	h := func(req *Request) (*Result, error) {
		if strings.Contains(req.SQL, "slow") {
			<-req.Context().Done()
		}
		return nil, nil
	}
	srv, db := start(t, h, "")
	db.SetMaxOpenConns(1)
	// Cancel rather than a deadline: go-mssqldb discards a connection whose
	// context hit its deadline, as context.DeadlineExceeded is a net.Error.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := db.ExecContext(ctx, "WAITFOR DELAY 'slow'"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := db.Exec("select 2"); err != nil {
		t.Fatal(err)
	}
	evs := only(srv.Events(), Attention, Batch)
	if len(evs) != 3 || evs[1].Kind != Attention || evs[2].SQL != "select 2" || evs[0].Conn != evs[2].Conn {
		t.Fatalf("events = %+v", evs)
	}
}

func TestServerClose(t *testing.T) {
	srv, db := start(t, nil, "")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

func TestDecimalHelpers(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int
		out   string
	}{
		{"-123.45", 8, "-123.45000000"}, {"0.5", 2, "0.50"}, {"-.5", 1, "-0.5"}, {"7", 0, "7"}, {"-0.00", 2, "0.00"},
	} {
		x, err := parseDecimal(c.in, c.scale)
		if err != nil || formatDecimal(x, c.scale) != c.out {
			t.Errorf("%q scale %d: %v %v, want %s", c.in, c.scale, x, err, c.out)
		}
	}
	if _, err := parseDecimal("1.234", 2); err == nil {
		t.Error("accepted too many digits")
	}
	for sql, want := range map[string]int64{
		"INSERT INTO t VALUES (1), (2)":                      2,
		"insert into t(a,b) values ('v(a)lues', ')'),(3,4);": 2,
		"UPDATE t SET values_x = 1":                          0,
		"INSERT INTO [values] SELECT * FROM s":               0,
	} {
		if got := countValuesRows(sql); got != want {
			t.Errorf("countValuesRows(%q) = %d, want %d", sql, got, want)
		}
	}
}
