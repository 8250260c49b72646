package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.BulkLoader = Dialect{}

// localInfileQuery asks whether the server takes LOAD DATA LOCAL INFILE.
// Tests replace it to see the fallback without changing the server-wide
// setting.
var localInfileQuery = "SELECT @@GLOBAL.local_infile"

// errLoadEnded stops the writer of rows when LOAD DATA ended without
// reading all of them.
var errLoadEnded = errors.New("mysql: LOAD DATA ended")

// readerSeq numbers the reader handlers BulkLoad registers with the driver,
// whose registry is global to the process.
var readerSeq atomic.Uint64

// EmptyTableBulkPrefix comes before the LOAD DATA of a table the export
// created (dialects.Target.New) on MariaDB outside Galera: with
// unique_checks and foreign_key_checks off, InnoDB loads a table that is
// empty at the start of the transaction in bulk (MDEV-24621, MDEV-24818):
// it sorts each index once instead of inserting into it row by row, and
// logs the undo of the whole table instead of each row's. A table profdb
// created has no UNIQUE secondary index and no FOREIGN KEY, so nothing is
// left unchecked; SET STATEMENT changes the two settings for this one
// statement only, never the session's. docs/performance.md ("What bounds
// the figures") gives what it saves.
const EmptyTableBulkPrefix = "SET STATEMENT unique_checks = 0, foreign_key_checks = 0 FOR "

// emptyTableBulk reports whether the server is a MariaDB whose bulk load
// of LOAD DATA is sound (bulkLoadSound), outside a Galera cluster: there
// BulkLoad uses EmptyTableBulkPrefix for a new table. MySQL has no SET
// STATEMENT (nor the bulk load); on Galera, replication of the bulk load is
// left alone.
func emptyTableBulk(ctx context.Context, tx dialects.Tx) (bool, error) {
	var version string
	if err := tx.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return false, fmt.Errorf("read the server's version: %w", err)
	}
	if !strings.Contains(strings.ToLower(version), "mariadb") || !bulkLoadSound(version) {
		return false, nil
	}
	var wsrep sql.NullString
	if err := tx.QueryRowContext(ctx, "SELECT @@wsrep_on").Scan(&wsrep); err != nil {
		return false, fmt.Errorf("read wsrep_on: %w", err)
	}
	on := strings.ToUpper(wsrep.String)
	return !(on == "1" || on == "ON"), nil
}

// bulkLoadSound reports whether a MariaDB of this VERSION() has the fix of
// MDEV-34703 (LOAD DATA through InnoDB's bulk load could abort when the
// temporary directory filled up): 10.11.11 and later 10.11, 11.4.5 and
// later 11.4, and 11.7.2 onwards, as mariadb-import checks before it uses
// the bulk load itself.
func bulkLoadSound(version string) bool {
	num, _, _ := strings.Cut(version, "-")
	parts := strings.SplitN(num, ".", 3)
	if len(parts) != 3 {
		return false
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		v[i] = n
	}
	at := v[0]*10000 + v[1]*100 + v[2]
	switch {
	case at >= 110702:
		return true
	case at >= 110405 && at < 110500:
		return true
	case at >= 101111 && at < 101200:
		return true
	}
	return false
}

// LoadDataSQL returns the statement BulkLoad runs for the reader handler
// name:
//
//	LOAD DATA LOCAL INFILE 'Reader::name' INTO TABLE `schema`.`table`
//	CHARACTER SET utf8mb4
//	FIELDS TERMINATED BY X'09' ENCLOSED BY '' ESCAPED BY X'5C'
//	LINES STARTING BY '' TERMINATED BY X'0A' (`col`, ...)
//
// The tab, backslash and newline are hexadecimal literals because every
// profdb session runs with NO_BACKSLASH_ESCAPES (see SQLMode), under which
// '\t' would be the two characters backslash and t.
func (d Dialect) LoadDataSQL(name, schema, table string, columns []string) string {
	var b strings.Builder
	b.WriteString("LOAD DATA LOCAL INFILE 'Reader::")
	b.WriteString(name)
	b.WriteString("' INTO TABLE ")
	b.WriteString(dialects.Qualify(d, schema, table))
	b.WriteString(" CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ENCLOSED BY '' ESCAPED BY X'5C'")
	b.WriteString(" LINES STARTING BY '' TERMINATED BY X'0A' (")
	b.WriteString(d.quoteAll(columns))
	b.WriteByte(')')
	return b.String()
}

// BulkLoad writes rows into t with LOAD DATA LOCAL INFILE inside tx and
// returns the row count the server reports. It implements
// dialects.BulkLoader.
//
// It first reads @@GLOBAL.local_infile and returns dialects.ErrSkip,
// having read no row, when the server does not allow LOAD DATA LOCAL. It
// then registers a reader handler with the driver (Reader::profdb-N,
// deregistered afterwards) and streams the rows through an io.Pipe, as
// tab-separated text (see LoadDataSQL): NULL as \N, integers and exact
// decimals as their text, floats as the shortest text that reads back to
// the same double, strings in UTF-8 with backslash, tab, newline,
// carriage return and U+0000 escaped (\\ \t \n \r \0). No temporary file
// is written.
//
// LOAD DATA LOCAL cannot stop the client in mid-file, so the server turns
// what would be an error for INSERT (a value too long or out of range, a
// duplicate key) into a warning and changes or skips the row. BulkLoad
// therefore reads SHOW WARNINGS afterwards and fails, naming the table and
// quoting the first warnings, when there is any, and fails too when the
// server reports another row count than it sent; the caller's transaction
// is then rolled back, so nothing changed is kept.
func (d Dialect) BulkLoad(ctx context.Context, tx dialects.Tx, t dialects.Target, rows dialects.Rows) (int64, error) {
	if len(t.Columns) == 0 || len(t.Types) != len(t.Columns) {
		return 0, fmt.Errorf("mysql: bulk load into %s: %d columns with %d types", t.Table, len(t.Columns), len(t.Types))
	}
	var on sql.NullString
	if err := tx.QueryRowContext(ctx, localInfileQuery).Scan(&on); err != nil {
		return 0, fmt.Errorf("mysql: bulk load into %s: read local_infile: %w", t.Table, err)
	}
	if v := strings.ToUpper(on.String); !on.Valid || (v != "1" && v != "ON") {
		return 0, fmt.Errorf("the server does not allow LOAD DATA LOCAL INFILE (local_infile is %s): %w", on.String, dialects.ErrSkip)
	}

	load := d.LoadDataSQL
	if t.New {
		bulk, err := emptyTableBulk(ctx, tx)
		if err != nil {
			return 0, fmt.Errorf("mysql: bulk load into %s: %w", t.Table, err)
		}
		if bulk {
			load = func(name, schema, table string, columns []string) string {
				return EmptyTableBulkPrefix + d.LoadDataSQL(name, schema, table, columns)
			}
		}
	}

	name := "profdb-" + strconv.FormatUint(readerSeq.Add(1), 10)
	pr, pw := io.Pipe()
	mysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer mysql.DeregisterReaderHandler(name)

	var sent int64
	produced := make(chan error, 1)
	go func() {
		n, err := writeRows(pw, t, rows)
		sent = n
		if err != nil {
			pw.CloseWithError(err)
		} else {
			pw.Close()
		}
		produced <- err
	}()

	res, execErr := tx.ExecContext(ctx, load(name, t.Schema, t.Table, t.Columns))
	// The driver may not have read to the end (the statement failed before
	// it asked for the file, say): stop the writer.
	pr.CloseWithError(errLoadEnded)
	prodErr := <-produced
	if prodErr != nil && !errors.Is(prodErr, errLoadEnded) && !errors.Is(prodErr, io.ErrClosedPipe) {
		// The rows failed (a cancelled export, a bad value): say that,
		// not what the driver made of it.
		return sent, prodErr
	}
	if execErr != nil {
		return sent, fmt.Errorf("mysql: LOAD DATA into %s: %w", t.Table, execErr)
	}
	if prodErr != nil {
		return sent, fmt.Errorf("mysql: LOAD DATA into %s: the server stopped reading: %w", t.Table, prodErr)
	}
	if err := checkWarnings(ctx, tx.Tx, t.Table); err != nil {
		return sent, err
	}
	got, err := res.RowsAffected()
	if err != nil {
		return sent, fmt.Errorf("mysql: LOAD DATA into %s: %w", t.Table, err)
	}
	if got != sent {
		return got, fmt.Errorf("mysql: LOAD DATA into %s stored %d rows of %d", t.Table, got, sent)
	}
	return got, nil
}

// checkWarnings turns the warnings of the statement just run into an error.
func checkWarnings(ctx context.Context, tx *sql.Tx, table string) error {
	rs, err := tx.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return fmt.Errorf("mysql: LOAD DATA into %s: read warnings: %w", table, err)
	}
	defer rs.Close()
	var msgs []string
	count := 0
	for rs.Next() {
		var level, msg string
		var code int64
		if err := rs.Scan(&level, &code, &msg); err != nil {
			return fmt.Errorf("mysql: LOAD DATA into %s: read warnings: %w", table, err)
		}
		count++
		if len(msgs) < 3 {
			msgs = append(msgs, fmt.Sprintf("%s %d: %s", level, code, msg))
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("mysql: LOAD DATA into %s: read warnings: %w", table, err)
	}
	if count == 0 {
		return nil
	}
	more := ""
	if count > len(msgs) {
		more = fmt.Sprintf(" (and %d more)", count-len(msgs))
	}
	return fmt.Errorf("mysql: LOAD DATA into %s: the server would not store every value as given: %s%s",
		table, strings.Join(msgs, "; "), more)
}

// linePiece is how much of a line writeRows encodes before it writes it
// on: a long string goes in pieces of this size, so that the line buffer
// never holds one whole (it held the longest row, up to 16 MiB and more
// escaped, for the rest of the table).
const linePiece = 64 << 10

// writeRows writes the rows as LOAD DATA text to w and returns how many it
// wrote.
func writeRows(w io.Writer, t dialects.Target, rows dialects.Rows) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	line := make([]byte, 0, 2*linePiece)
	for {
		row, ok, err := dialects.NextRow(rows, len(t.Columns), n+1, "mysql: LOAD DATA into", t.Table)
		if !ok {
			if err != nil {
				return n, err
			}
			break
		}
		for i, v := range row {
			if i > 0 {
				line = append(line, '\t')
			}
			if s, ok := v.(string); ok && len(s) > linePiece {
				// Escaping goes byte by byte: any cut is a good one.
				for ; len(s) > 0; s = s[min(len(s), linePiece):] {
					line = appendEscaped(line, s[:min(len(s), linePiece)])
					if line, err = writeLine(bw, line); err != nil {
						return n, err
					}
				}
				continue
			}
			if line, err = appendField(line, v); err != nil {
				return n, fmt.Errorf("mysql: LOAD DATA into %s, row %d, column %s: %w", t.Table, n+1, t.Columns[i], err)
			}
			if len(line) >= linePiece {
				if line, err = writeLine(bw, line); err != nil {
					return n, err
				}
			}
		}
		line = append(line, '\n')
		if line, err = writeLine(bw, line); err != nil {
			return n, err
		}
		n++
	}
	return n, bw.Flush()
}

// writeLine writes what line holds to bw and returns it emptied.
func writeLine(bw *bufio.Writer, line []byte) ([]byte, error) {
	_, err := bw.Write(line)
	return line[:0], err
}

// appendField appends one value in LOAD DATA text form.
func appendField(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, `\N`...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case ddl.Dec:
		return append(b, x...), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, fmt.Errorf("%v is not a finite number", x)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case string:
		return appendEscaped(b, x), nil
	}
	return b, fmt.Errorf("unexpected value of type %T", v)
}

// appendEscaped appends s with the characters LOAD DATA would read as
// separators or escapes written as escape sequences.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc byte
		switch s[i] {
		case '\\':
			esc = '\\'
		case '\t':
			esc = 't'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case 0:
			esc = '0'
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', esc)
		start = i + 1
	}
	return append(b, s[start:]...)
}
