package dialecttest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// FuzzBulkMatchesInsert is a dialect's FuzzBulkMatchesInsert on db: the
// seeds of BulkFuzzSeeds, the tables of NewBulkFuzzTables, and
// BulkMatchesInsert for every input.
func FuzzBulkMatchesInsert(f *testing.F, d dialects.Dialect, db *sql.DB) {
	BulkFuzzSeeds(f)
	tables := NewBulkFuzzTables(f, d, db, "")
	f.Fuzz(func(t *testing.T, s string, i, dec int64, frac uint32, fl float64, nulls bool) {
		BulkMatchesInsert(t, d, db, tables, s, i, dec, frac, fl, nulls)
	})
}

// BulkFuzzSeeds are the values every dialect's FuzzBulkMatchesInsert starts
// from: strings with the characters text-based bulk formats escape, the
// formats' NULL markers, NUL, very long text; integers and decimals at
// their extremes; floats at the edges of float64.
func BulkFuzzSeeds(f *testing.F) {
	long := strings.Repeat("ж\t€\n😀\\'\"\r`,;|\\N NULL ", 70_000) // > 2 MiB
	for _, s := range []string{"", "plain", "\t", "\n", "\r\n", "\\", `\N`, `\\N`, "NULL", "a\\", " x\t\ty ", "nul\x00byte", "\x00", "'\"`", long, "ж€😀", "\\.", "\\.\n", "line1\nline2\\n"} {
		f.Add(s, int64(7), int64(123), uint32(45), 0.1, false)
	}
	f.Add("x", int64(math.MaxInt64), int64(9_999_999_999_999_999), uint32(99_999_999), math.MaxFloat64, false)
	f.Add("y", int64(math.MinInt64), int64(-9_999_999_999_999_999), uint32(1), -math.SmallestNonzeroFloat64, false)
	f.Add("z", int64(0), int64(0), uint32(0), 0.0, true)
	f.Add("w", int64(-1), int64(-1), uint32(50_000_000), 2.2250738585072014e-308, false)
	f.Add("v", int64(1), int64(1), uint32(10), 1e-300, false)
	f.Add("u", int64(1), int64(0), uint32(1), 123456.789e200, false)
}

// BulkMatchesInsert is the body of a dialect's FuzzBulkMatchesInsert: it
// makes one row of RoundTripTable from the fuzzed values (a Decimal of
// whole part dec and eight fractional digits frac; all NULL when nulls is
// set), writes it with the dialect's BulkLoad, on a connection as the
// exporter does (dialects.Tx with Conn), into one table, and with the
// batched INSERT path (Bind, InsertSQL) into another, and compares what the
// database holds, value by value. A value that one path refuses must be
// refused by the other; the refused row must leave nothing. The tables
// are made once by NewBulkFuzzTables.
func BulkMatchesInsert(t *testing.T, d dialects.Dialect, db *sql.DB, tables BulkFuzzTables, s string, i, dec int64, frac uint32, fl float64, nulls bool) {
	if !utf8.ValidString(s) || math.IsNaN(fl) || math.IsInf(fl, 0) {
		t.Skip("not a value profdb exports: the exporter refuses invalid UTF-8, NaN and infinities before any dialect sees them")
	}
	ctx := Context(t)
	id := tables.next.Add(1)
	row := []any{id, s, i, fuzzDec(dec, frac), fl}
	if nulls {
		row = []any{id, nil, nil, nil, nil}
	}
	bulkErr := fuzzBulk(ctx, d, db, tables, row)
	insErr := fuzzInsert(ctx, d, db, tables, row)
	if (bulkErr == nil) != (insErr == nil) {
		t.Fatalf("row %s: bulk load says %v; INSERT says %v", short(row), bulkErr, insErr)
	}
	got := readFuzzRow(ctx, t, d, db, tables.Schema, tables.Bulk, id)
	want := readFuzzRow(ctx, t, d, db, tables.Schema, tables.Insert, id)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("row %s:\nbulk load stored %s\nINSERT stored    %s", short(row), short(got), short(want))
	}
	if bulkErr != nil && got != nil {
		t.Fatalf("row %s: the refused bulk load left %s", short(row), short(got))
	}
	if bulkErr == nil && got == nil {
		t.Fatalf("row %s: bulk load stored nothing", short(row))
	}
}

// BulkFuzzTables are the two round-trip tables of BulkMatchesInsert.
type BulkFuzzTables struct {
	Schema       string
	Bulk, Insert ddl.Table
	next         *atomic.Int64
}

// NewBulkFuzzTables creates the two tables of BulkMatchesInsert in schema.
func NewBulkFuzzTables(t testing.TB, d dialects.Dialect, db *sql.DB, schema string) BulkFuzzTables {
	ctx := context.Background()
	tables := BulkFuzzTables{Schema: schema, Bulk: RoundTripTable(), Insert: RoundTripTable(), next: new(atomic.Int64)}
	tables.Bulk.Name += "_BULK"
	tables.Insert.Name += "_INSERT"
	for _, tab := range []ddl.Table{tables.Bulk, tables.Insert} {
		for _, s := range d.CreateTableIn(schema, tab) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("create %s: %v", tab.Name, err)
			}
		}
	}
	return tables
}

// fuzzDec is the canonical Decimal whole.frac (eight digits).
func fuzzDec(whole int64, frac uint32) ddl.Dec {
	frac %= 100_000_000
	s := fmt.Sprintf("%d", whole)
	if frac != 0 {
		f := strings.TrimRight(fmt.Sprintf("%08d", frac), "0")
		if whole == 0 && strings.HasPrefix(s, "-") {
			s = "0"
		}
		s += "." + f
	}
	return ddl.Dec(s)
}

func fuzzBulk(ctx context.Context, d dialects.Dialect, db *sql.DB, tables BulkFuzzTables, row []any) error {
	bl, ok := d.(dialects.BulkLoader)
	if !ok {
		return fmt.Errorf("%s has no bulk path", d.Name())
	}
	_, err := BulkLoad(ctx, db, bl, TargetOf(d, tables.Schema, tables.Bulk), &SliceRows{Rows: [][]any{row}}, true)
	return err
}

func fuzzInsert(ctx context.Context, d dialects.Dialect, db *sql.DB, tables BulkFuzzTables, row []any) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := insertRows(ctx, d, tx, tables.Schema, tables.Insert, [][]any{row}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// readFuzzRow reads the row of INST_ID id as the driver returns it, or nil
// when there is none.
func readFuzzRow(ctx context.Context, t *testing.T, d dialects.Dialect, db *sql.DB, schema string, table ddl.Table, id int64) []any {
	t.Helper()
	var cols []string
	for _, c := range table.Columns {
		cols = append(cols, d.Quote(d.StoredName(c.Name)))
	}
	rows, err := db.QueryContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+dialects.Qualify(d, schema, d.StoredName(table.Name))+
		" WHERE "+d.Quote(d.StoredName("INST_ID"))+" = "+d.Placeholder(1), id)
	if err != nil {
		t.Fatalf("read %s: %v", table.Name, err)
	}
	defer rows.Close()
	var got []any
	for rows.Next() {
		if got != nil {
			t.Fatalf("%s holds INST_ID %d twice", table.Name, id)
		}
		got = make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range got {
			ptrs[i] = &got[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("read %s: %v", table.Name, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read %s: %v", table.Name, err)
	}
	return got
}

// short shows a row with long strings cut.
func short(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case string:
			parts[i] = fmt.Sprintf("%.60q", x)
		case []byte:
			parts[i] = fmt.Sprintf("%.60q", x)
		default:
			parts[i] = fmt.Sprintf("%#v", v)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
