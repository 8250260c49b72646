package tdstest

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
)

func startCatalog(t *testing.T) (*Server, *Catalog, *sql.DB) {
	t.Helper()
	srv, cat, err := NewCatalogServer()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlserver", srv.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		srv.Close()
	})
	return srv, cat, db
}

const catalogDDL = `IF OBJECT_ID(N'[s].[T]', N'U') IS NULL
BEGIN
CREATE TABLE [s].[T] (
    [ID] BIGINT NOT NULL,
    [D] DECIMAL(10,2) NULL,
    [S] NVARCHAR(3) NULL,
    [F] FLOAT NULL,
    [R] FLOAT(10) NULL,
    [M] NVARCHAR(MAX) NULL,
    CONSTRAINT [PK_T] PRIMARY KEY ([ID])
);
END`

func TestCatalogDDLAndInspection(t *testing.T) {
	_, cat, db := startCatalog(t)
	for range 2 { // guarded: the second run does nothing
		if _, err := db.Exec(catalogDDL); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(strings.Replace(catalogDDL, "IF OBJECT_ID(N'[s].[T]', N'U') IS NULL", "", 1)); !hasNumber(err, 2714) {
		t.Errorf("unguarded CREATE of an existing table: %v", err)
	}
	ix := "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'IX' AND object_id = OBJECT_ID(N'[s].[T]'))\nCREATE INDEX [IX] ON [s].[T] ([D], [ID])"
	for range 2 {
		if _, err := db.Exec(ix); err != nil {
			t.Fatal(err)
		}
	}
	tb, ok := cat.Table("s.t")
	if !ok || tb.Name != "T" || !reflect.DeepEqual(tb.PrimaryKey, []string{"ID"}) || !reflect.DeepEqual(tb.Indexes, map[string][]string{"IX": {"D", "ID"}}) {
		t.Fatalf("table %+v", tb)
	}

	var names []string
	rows, err := db.Query("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = @p1 AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", "S")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	if !reflect.DeepEqual(names, []string{"T"}) {
		t.Errorf("tables %v", names)
	}

	rows, err = db.Query("SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COLUMN_DEFAULT, CHARACTER_MAXIMUM_LENGTH,"+
		" NUMERIC_PRECISION, NUMERIC_SCALE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = @p1 AND TABLE_NAME = @p2 ORDER BY ORDINAL_POSITION", "s", "t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, typ, null string
		var def, maxLen, prec, scale any
		if err := rows.Scan(&name, &typ, &null, &def, &maxLen, &prec, &scale); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{name, typ, null, showCell(def), showCell(maxLen), showCell(prec), showCell(scale)}, " "))
	}
	rows.Close()
	want := []string{
		"ID bigint NO NULL NULL 19 0", "D decimal YES NULL NULL 10 2", "S nvarchar YES NULL 3 NULL NULL",
		"F float YES NULL NULL 53 NULL", "R real YES NULL NULL 24 NULL", "M nvarchar YES NULL -1 NULL NULL",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns\n%q\nwant\n%q", got, want)
	}
}

func showCell(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

func hasNumber(err error, n int32) bool {
	var e mssql.Error
	return errors.As(err, &e) && e.Number == n
}

func TestCatalogWrites(t *testing.T) {
	srv, cat, db := startCatalog(t)
	var null sql.NullString // a typed NULL: the server refuses an untyped one
	if _, err := db.Exec(catalogDDL); err != nil {
		t.Fatal(err)
	}
	ins := "INSERT INTO [s].[T] ([ID], [D], [S], [F], [R], [M]) VALUES (@p1, @p2, @p3, @p4, @p5, @p6), (@p7, NULL, NULL, NULL, NULL, NULL)"
	if _, err := db.Exec(ins, int64(1), "12.345", "abc", "1e3", 0.1, int64(42), int64(2)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []any
		num  int32
	}{
		{[]any{"x", null, null, null, null, null, int64(3)}, 8114},             // text into BIGINT
		{[]any{null, null, null, null, null, null, int64(3)}, 515},             // NULL into NOT NULL
		{[]any{int64(3), "123456789", null, null, null, null, int64(4)}, 8115}, // too many digits
		{[]any{int64(3), null, "abcd", null, null, null, int64(4)}, 2628},      // too long
	} {
		if _, err := db.Exec(ins, c.args...); !hasNumber(err, c.num) {
			t.Errorf("%v: error %v, want number %d", c.args, err, c.num)
		}
	}
	tb, _ := cat.Table("s.T")
	want := [][]any{{int64(1), "12.35", "abc", 1000.0, float64(float32(0.1)), "42"}, {int64(2), nil, nil, nil, nil, nil}}
	if !reflect.DeepEqual(tb.Rows, want) {
		t.Errorf("rows %v, want %v", tb.Rows, want)
	}

	// A transaction's rows are its own until COMMIT, and go with ROLLBACK.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ins, int64(10), null, null, null, null, null, int64(11)); err != nil {
		t.Fatal(err)
	}
	var inTx, outside sql.NullInt64
	if err := tx.QueryRow("SELECT MAX([ID]) FROM [s].[T]").Scan(&inTx); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT MAX([ID]) FROM [s].[T]").Scan(&outside); err != nil {
		t.Fatal(err)
	}
	if inTx.Int64 != 11 || outside.Int64 != 2 {
		t.Errorf("MAX in the transaction %v, outside %v", inTx, outside)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if tb, _ := cat.Table("s.T"); len(tb.Rows) != 2 {
		t.Errorf("%d rows after the rollback", len(tb.Rows))
	}

	// Bulk copy: NOT NULL BIGINT is described as a fixed-length type.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := tx.Prepare(mssql.CopyIn("s.T", mssql.BulkOptions{KeepNulls: true}, "ID", "D", "M"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{{int64(20), "-0.5", "ж"}, {int64(21), nil, nil}} {
		if _, err := stmt.Exec(r...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tb, _ = cat.Table("s.T")
	if got := tb.Rows[2:]; !reflect.DeepEqual(got, [][]any{{int64(20), "-0.50", nil, nil, nil, "ж"}, {int64(21), nil, nil, nil, nil, nil}}) {
		t.Errorf("bulk rows %v", got)
	}
	for _, ev := range srv.Events() {
		if ev.Kind == BulkLoad && ev.Bulk.Columns[0].Type.ID != TypeInt8 {
			t.Errorf("NOT NULL BIGINT described as %v", ev.Bulk.Columns[0].Type)
		}
	}

	// A table created in a rolled-back transaction is gone.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE [U] ([A] INT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO [U] ([A]) VALUES (@p1)", int64(1)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if names := cat.TableNames(); !reflect.DeepEqual(names, []string{"s.T"}) {
		t.Errorf("tables %v", names)
	}
	if _, err := db.Exec("INSERT INTO [U] ([A]) VALUES (@p1)", int64(1)); !hasNumber(err, 208) {
		t.Errorf("insert into a rolled-back table: %v", err)
	}
	if _, err := db.Exec("DELETE FROM [s].[T]"); err == nil || !strings.Contains(err.Error(), "tdstest: the catalog does not understand") {
		t.Errorf("unknown statement: %v", err)
	}
}
