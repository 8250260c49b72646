//go:build linux

// The peak RSS of a child process is Linux's ru_maxrss (internal/launchtest).

package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/resource"
)

// maxLongValuesRSS is the most memory an export of a valid 200 MB input
// may take (issue 39, item 7), whatever its values are: 100 MB.
const maxLongValuesRSS = 100_000_000

// longShape is the shape of an input of TestLongValuesMemory: rows of a
// table, each with strings of the given columns, of bytes each as the
// file writes them. A row's strings may take 8 MiB together, the most the
// reader takes; both shapes come near it in every row.
type longShape struct {
	name   string
	table  string
	cols   []string
	bytes  int
	rows   int
	module bool // the table's COL_MODULE_NAME is "m<ID>", beside cols
}

var longShapes = []longShape{
	// One string of nearly 8 MiB per row: the longest a value can be.
	{name: "long", table: resource.MetaClassesData, cols: []string{"COL_CLASS_NAME"}, bytes: 8<<20 - 4<<10, rows: 26, module: true},
	// Ten strings of some 800 KiB per row: as many bytes, in values that
	// each pass the reader's window.
	{name: "wide", table: resource.MetaRoutines, cols: []string{"COL_COMPILER", "COL_ANALISYS_RESULT", "COL_CLASS_NAME",
		"COL_CODE_TYPE", "COL_MODULE_NAME", "COL_NAMESPACE", "COL_ROUTINE_NAME", "COL_SOURCE_FILE", "COL_SYMBOL_MONIKER",
		"COL_UNIT_NAME"}, bytes: (8<<20 - 4<<10) / 10, rows: 26},
}

// longValues is an input of TestLongValuesMemory: the strings of its rows,
// as read back (their length and SHA-256), by row and column.
type longValues struct {
	shape longShape
	file  string
	sums  [][]longSum
}

type longSum struct {
	n   int
	sum [32]byte
}

// writeLongValues writes, into dir, a resource result set of sh: letters
// and digits, with an escape (\n, \", \\, \u00e9), a quote or a two-byte
// character every 20 bytes or so, drawn at random from a seed per value.
func writeLongValues(t *testing.T, dir string, sh longShape) longValues {
	t.Helper()
	lv := longValues{shape: sh, file: filepath.Join(dir, sh.name+".json")}
	f, err := os.Create(lv.file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"profiler":"resource","caption":"long strings","tables":{"%s":[`+"\n", sh.table)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.;:-_"
	pieces := []struct{ enc, dec string }{{`\n`, "\n"}, {`\"`, `"`}, {`'`, `'`}, {`\\`, `\`}, {"é", "é"}, {`\u00e9`, "é"}}
	for i := range sh.rows {
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"ID":%d,"PARENT_ID":-1,"REC_ID":%d`, i, i+1)
		if sh.module {
			fmt.Fprintf(w, `,"COL_MODULE_NAME":"m%d"`, i)
		}
		var sums []longSum
		for j, col := range sh.cols {
			fmt.Fprintf(w, `,"%s":"`, col)
			r := rand.New(rand.NewPCG(uint64(i), uint64(j)))
			h := sha256.New()
			var dec []byte
			n, total := 0, 0
			for n < sh.bytes {
				k := r.IntN(len(letters))
				enc := letters[k : k+1]
				d := enc
				if k := r.IntN(120); k < len(pieces) && n+len(pieces[k].enc) <= sh.bytes {
					enc, d = pieces[k].enc, pieces[k].dec
				}
				w.WriteString(enc)
				dec = append(dec, d...)
				n += len(enc)
				if len(dec) >= 64<<10 {
					h.Write(dec)
					total += len(dec)
					dec = dec[:0]
				}
			}
			h.Write(dec)
			total += len(dec)
			w.WriteString(`"`)
			s := longSum{n: total}
			h.Sum(s.sum[:0])
			sums = append(sums, s)
		}
		w.WriteString("}")
		lv.sums = append(lv.sums, sums)
	}
	w.WriteString("\n]}}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return lv
}

// check reads the rows back from dsn and compares each string with the
// one written: its length and SHA-256.
func (lv longValues) check(t *testing.T, dsn string) {
	t.Helper()
	sh := lv.shape
	db := dbtest.Open(t, dsn)
	cols := "ID, " + strings.Join(sh.cols, ", ")
	if sh.module {
		cols += ", COL_MODULE_NAME"
	}
	rows, err := db.QueryContext(t.Context(), "SELECT "+cols+" FROM "+sh.table+" ORDER BY ID")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	vals := make([]string, len(sh.cols)+1)
	dest := []any{new(int64)}
	for j := range sh.cols {
		dest = append(dest, &vals[j])
	}
	if sh.module {
		dest = append(dest, &vals[len(sh.cols)])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		if i >= len(lv.sums) {
			t.Fatalf("more than %d rows", len(lv.sums))
		}
		if id := *dest[0].(*int64); id != int64(i) {
			t.Errorf("row %d: ID %d", i, id)
		}
		if m := vals[len(sh.cols)]; sh.module && m != fmt.Sprintf("m%d", i) {
			t.Errorf("row %d: COL_MODULE_NAME %q, want m%d", i, m, i)
		}
		for j, col := range sh.cols {
			want := lv.sums[i][j]
			if got := sha256.Sum256([]byte(vals[j])); len(vals[j]) != want.n || got != want.sum {
				t.Errorf("row %d, %s: a string of %d bytes, SHA-256 %x; want %d bytes, %x",
					i, col, len(vals[j]), got[:8], want.n, want.sum[:8])
			}
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(lv.sums) {
		t.Errorf("%d rows read back, want %d", i, len(lv.sums))
	}
}

// TestLongValuesMemory: valid inputs of some 220 MB, rows of a string of
// nearly 8 MiB (the longest the reader takes) or of ten strings of 800 KiB,
// are exported in under 100 MB of peak RSS into SQLite, PostgreSQL and
// MariaDB, by the native bulk path and by batched INSERT (--bulk off,
// which is also MariaDB's path without local_infile), and as a script
// (--sql-out), and every string reads back whole: the reader, the exporter
// and the loaders hold one row at a time, and the garbage of its copies is
// collected before the next long values pile up (issue 39, item 7). The
// script is run in the dialect's own client.
func TestLongValuesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes inputs of 220 MB")
	}
	bin := profdbBin(t)
	dir := t.TempDir()
	measure := func(t *testing.T, args ...string) {
		t.Helper()
		r := runChild(t, dir, append([]string{bin}, args...)...)
		t.Logf("peak RSS %.1f MB", float64(r.maxRSS)/1e6)
		if r.code != 0 {
			t.Fatalf("exit %d (%s): %.2000s", r.code, r.signal, r.stderr)
		}
		if r.maxRSS >= maxLongValuesRSS {
			t.Errorf("peak RSS %.1f MB, want under %.0f MB", float64(r.maxRSS)/1e6, float64(maxLongValuesRSS)/1e6)
		}
	}
	var inputs []longValues
	for _, sh := range longShapes {
		inputs = append(inputs, writeLongValues(t, dir, sh))
	}
	// The dialects run side by side: each child's peak is its own.
	for _, tc := range scriptClients("sqlserver") {
		t.Run(tc.dialect, func(t *testing.T) {
			t.Parallel()
			for _, lv := range inputs {
				for _, bulk := range []string{"auto", "off"} {
					t.Run(lv.shape.name+"/export/bulk-"+bulk, func(t *testing.T) {
						dsn := dbtest.Fresh(t, tc.dialect)
						measure(t, "export", "-q", "--bulk", bulk, "--db", dsn, lv.file)
						lv.check(t, dsn)
					})
				}
				if lv.shape.name != "long" {
					continue
				}
				t.Run(lv.shape.name+"/sql-out", func(t *testing.T) {
					script := filepath.Join(t.TempDir(), "long.sql")
					measure(t, "export", "-q", "--sql-out", script, "--dialect", tc.dialect, lv.file)
					run := tc.runner(t)
					dsn := dbtest.Fresh(t, tc.dialect)
					if out, err := run(dsn, script); err != nil {
						t.Fatalf("%v\n%.2000s", err, out)
					}
					lv.check(t, dsn)
				})
			}
		})
	}
}
