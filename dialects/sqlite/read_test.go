package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
)

// readDB is a database file with the table T: an INST_ID, an ID and a
// column of each storage class, rows of result set 1 (n of them, every
// third value NULL) and of result set 2 (other of them, after those of 1).
func readDB(t *testing.T, journal string, n, other int) (dsn string, db *sql.DB) {
	t.Helper()
	dsn = "sqlite:" + filepath.Join(t.TempDir(), "read.db")
	drv, err := Dialect{}.DriverDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if db, err = sql.Open("sqlite", drv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	stmts := []string{
		"PRAGMA journal_mode = " + journal,
		`CREATE TABLE T ("INST_ID" INTEGER NOT NULL, "ID" INTEGER, "I" INTEGER, "F" REAL, "S" TEXT, "B" BLOB)`,
		`CREATE INDEX IX_T_ID ON T ("INST_ID", "ID")`,
		`CREATE INDEX IX_T_S ON T ("INST_ID", "S")`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO T VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	add := func(inst int64, id int) {
		vals := []any{inst, int64(id), int64(id) * -7_000_000_000_001, float64(id) / 3, fmt.Sprintf("zeile %d ü\x00€ %d", id, inst), []byte{byte(id), 0, 0xff}}
		if id%3 == 0 {
			vals[2], vals[3], vals[4], vals[5] = nil, nil, nil, nil
		}
		if _, err := ins.Exec(vals...); err != nil {
			t.Fatal(err)
		}
	}
	// Result set 1 written in descending ID order, so that the order of
	// the rows differs from that of the index.
	for id := n; id >= 1; id-- {
		add(1, id)
	}
	for id := 1; id <= other; id++ {
		add(2, id)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return dsn, db
}

// snapshotConn is a connection in a read transaction that has read.
func snapshotConn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
	})
	var n int
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM T").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readAll reads every row of rows, values as an *any Scan stores them.
func readAll(t *testing.T, rows dialects.InstRows, width int) [][]any {
	t.Helper()
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		row := make([]any, width)
		ptrs := make([]any, width)
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range row {
			if b, ok := v.([]byte); ok {
				row[i] = string(b) // database/sql's BLOB; ReadInst gives text
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var readCols = []string{"ID", "I", "F", "S", "B"}

// TestReadInst: ReadInst returns exactly the rows a plain SELECT through
// database/sql returns, value for value (64-bit integers, floats, text
// with a NUL and non-ASCII runes, blobs, NULLs), whether the result set is
// the whole table (read in the table's order) or a small part of it (by
// the index, in ID order), and in the order asked for; it reads them on a
// connection of its own in a rollback journal, and through the snapshot's
// own connection in WAL mode.
func TestReadInst(t *testing.T) {
	ctx := context.Background()
	d := Dialect{}
	for _, tc := range []struct {
		journal     string
		n, other    int
		order       []string
		wantByIndex bool // rows in ID order
		wantDirect  bool
	}{
		{journal: "delete", n: 3000, other: 0, wantDirect: true},
		{journal: "delete", n: 3000, other: 1000, wantDirect: true}, // 3/4 of the table
		{journal: "delete", n: 300, other: 3000, wantByIndex: true, wantDirect: true},
		{journal: "delete", n: 3000, other: 10, order: []string{"ID"}, wantByIndex: true, wantDirect: true},
		{journal: "truncate", n: 100, other: 0, wantDirect: true},
		{journal: "wal", n: 3000, other: 0},
		{journal: "wal", n: 300, other: 3000, wantByIndex: true},
	} {
		name := fmt.Sprintf("%s/%d-of-%d/order%v", tc.journal, tc.n, tc.n+tc.other, tc.order)
		t.Run(name, func(t *testing.T) {
			_, db := readDB(t, tc.journal, tc.n, tc.other)
			conn := snapshotConn(t, db)
			rows, err := d.ReadInst(ctx, conn, dialects.InstRead{Table: "T", Columns: readCols, InstCol: "INST_ID", Inst: 1, Order: tc.order})
			if err != nil {
				t.Fatal(err)
			}
			if _, direct := rows.(*directRows); direct != tc.wantDirect {
				t.Errorf("read on a connection of its own: %v, want %v", direct, tc.wantDirect)
			}
			got := readAll(t, rows, len(readCols))
			plain, err := conn.QueryContext(ctx, `SELECT "ID", "I", "F", "S", "B" FROM T WHERE "INST_ID" = 1 ORDER BY "ID"`)
			if err != nil {
				t.Fatal(err)
			}
			want := readAll(t, plain, len(readCols))
			if len(want) != tc.n {
				t.Fatalf("the plain SELECT: %d rows, want %d", len(want), tc.n)
			}
			ids := func(rows [][]any) []int64 {
				var out []int64
				for _, r := range rows {
					out = append(out, r[0].(int64))
				}
				return out
			}
			if tc.wantByIndex {
				if !slices.IsSorted(ids(got)) {
					t.Errorf("IDs not in order: %v…", ids(got)[:5])
				}
			} else if g := ids(got); !slices.IsSortedFunc(g, func(a, b int64) int { return int(b - a) }) {
				t.Errorf("IDs not in the table's order (descending, as written): %v…", g[:5])
			}
			slices.SortFunc(got, func(a, b []any) int { return int(a[0].(int64) - b[0].(int64)) })
			if !reflect.DeepEqual(got, want) {
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("row %d: %#v, want %#v", i, got[i], want[i])
					}
				}
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
		})
	}
}

// TestReadInstSnapshot: a writer that deletes the result set while it is
// read does not change what the read returns, in either journal mode:
// in WAL mode the writer commits at once, and the read must not see it;
// in a rollback journal the writer waits for the snapshot's shared lock,
// holding the lock that keeps new readers out, and the read, which cannot
// open a connection of its own then, reads through the snapshot's.
func TestReadInstSnapshot(t *testing.T) {
	ctx := context.Background()
	d := Dialect{}
	for _, journal := range []string{"wal", "delete"} {
		t.Run(journal, func(t *testing.T) {
			dsn, db := readDB(t, journal, 2000, 0)
			conn := snapshotConn(t, db)
			drv, err := d.DriverDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			w, err := sql.Open("sqlite", drv)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var probe *sql.Conn
			if journal != "wal" {
				probe = lockProbe(t, drv)
			}
			committed := make(chan error, 1)
			go func() {
				_, err := w.ExecContext(ctx, `DELETE FROM T WHERE "INST_ID" = 1`)
				committed <- err
			}()
			if journal == "wal" {
				if err := <-committed; err != nil {
					t.Fatalf("delete: %v", err)
				}
			} else {
				waitPending(t, probe)
			}
			rows, err := d.ReadInst(ctx, conn, dialects.InstRead{Table: "T", Columns: readCols, InstCol: "INST_ID", Inst: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, direct := rows.(*directRows); direct {
				t.Error("read on a connection of its own, which sees past the snapshot")
			}
			if got := readAll(t, rows, len(readCols)); len(got) != 2000 {
				t.Errorf("%d rows, want the snapshot's 2000", len(got))
			}
			if journal != "wal" {
				if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
					t.Fatal(err)
				}
				if err := <-committed; err != nil {
					t.Fatalf("delete, after the snapshot: %v", err)
				}
			}
		})
	}
}

// lockProbe opens a connection to drv's database that fails at once, as
// busy, where it would wait for a lock (waitPending). It is opened before
// a writer takes a lock: opening one reads the schema.
func lockProbe(t *testing.T, drv string) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", drv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM T").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return conn
}

// waitPending waits until a writer waits to commit in a rollback journal:
// it then holds the PENDING lock, which keeps new readers out, so that a
// read through probe (lockProbe) fails as busy.
func waitPending(t *testing.T, probe *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var n int
		err := probe.QueryRowContext(ctx, "SELECT COUNT(*) FROM T").Scan(&n)
		if err != nil && strings.Contains(err.Error(), "SQLITE_BUSY") {
			return
		}
		if err != nil {
			t.Fatalf("probe read: %v", err)
		}
	}
	t.Fatal("the writer did not come to wait for its commit in a minute")
}

// TestReadInstCanceled: a read on a connection of its own stops within
// 1024 rows of its context's end, with the context's error.
func TestReadInstCanceled(t *testing.T) {
	_, db := readDB(t, "delete", 5000, 0)
	conn := snapshotConn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := Dialect{}.ReadInst(ctx, conn, dialects.InstRead{Table: "T", Columns: readCols, InstCol: "INST_ID", Inst: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if _, direct := rows.(*directRows); !direct {
		t.Fatal("not read on a connection of its own")
	}
	n := 0
	for rows.Next() {
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(rows.Err(), context.Canceled) || n > 1024 {
		t.Errorf("after %d rows: %v, want context.Canceled within 1024 rows", n, rows.Err())
	}
	if err := rows.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
