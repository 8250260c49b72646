package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestRetryable: the server's own deadlock is retryable, a duplicate key
// is a duplicate key, and neither is mistaken for the other.
func TestRetryable(t *testing.T) {
	d := Dialect{}
	for _, c := range []struct {
		number     uint16
		retry, dup bool
	}{{1213, true, false}, {1062, false, true}, {1586, false, true}, {1205, false, false}, {1146, false, false}} {
		err := fmt.Errorf("export: commit: %w", &mysql.MySQLError{Number: c.number})
		if d.Retryable(err) != c.retry || d.DuplicateKey(err) != c.dup {
			t.Errorf("%d: Retryable %v, DuplicateKey %v", c.number, d.Retryable(err), d.DuplicateKey(err))
		}
	}

	db, _ := open(t)
	ctx := context.Background()
	for _, st := range []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0), (2, 0)"} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	// Two transactions lock two rows in opposite order: InnoDB rolls one
	// back with error 1213.
	tx1, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback()
	tx2, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback()
	for _, s := range []struct {
		tx *sql.Tx
		id int
	}{{tx1, 1}, {tx2, 2}} {
		if _, err := s.tx.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", s.id); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 1)
	go func() {
		_, err := tx1.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 2")
		if err != nil {
			tx1.Rollback()
		}
		errs <- err
	}()
	_, err2 := tx2.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 1")
	if err2 != nil {
		tx2.Rollback()
	}
	err1 := <-errs
	victim := err1
	if victim == nil {
		victim = err2
	}
	if (err1 == nil) == (err2 == nil) || !d.Retryable(victim) || d.DuplicateKey(victim) {
		t.Errorf("deadlock: errors %v and %v", err1, err2)
	}
	tx1.Rollback()
	tx2.Rollback()
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (1, 0)")
	if err == nil || d.Retryable(err) || !d.DuplicateKey(err) {
		t.Errorf("duplicate key: %v, DuplicateKey %v", err, d.DuplicateKey(err))
	}
}

// TestTxOpen: the probe says 1 in a transaction and 0 in one the server
// has ended (here InnoDB's deadlock victim, which the client has not rolled
// back), as a Galera node ends a local transaction for a replicated one.
func TestTxOpen(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		var open int
		if err := db.QueryRowContext(ctx, Dialect{}.TxOpenSQL()).Scan(&open); err == nil {
			t.Fatalf("MySQL %s answered the probe (%d): the dialect's comment says it does not", version, open)
		}
		return
	}
	for _, st := range []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0), (2, 0)"} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	probe := func(tx *sql.Tx) int {
		t.Helper()
		var open int
		if err := tx.QueryRowContext(ctx, Dialect{}.TxOpenSQL()).Scan(&open); err != nil {
			t.Fatal(err)
		}
		return open
	}
	tx1, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback()
	tx2, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback()
	if probe(tx1) != 1 || probe(tx2) != 1 {
		t.Fatal("an open transaction probes as ended")
	}
	for i, tx := range []*sql.Tx{tx1, tx2} {
		if _, err := tx.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", i+1); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 1)
	go func() {
		_, err := tx1.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 2")
		errs <- err
	}()
	_, err2 := tx2.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 1")
	victim, winner := tx2, tx1
	if err2 == nil {
		// tx2 won: the victim is tx1, and tx2 must end for it to return.
		victim, winner = tx1, tx2
		if err := tx2.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	err1 := <-errs
	if (err1 == nil) == (err2 == nil) {
		t.Fatalf("no deadlock: errors %v and %v", err1, err2)
	}
	if winner == tx1 && probe(tx1) != 1 {
		t.Error("the surviving transaction probes as ended")
	}
	if got := probe(victim); got != 0 {
		t.Errorf("the deadlock victim probes as %d, want 0", got)
	}
}
