package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/lib/pq"
)

// TestRetryable: the server's own serialization failure is retryable, a
// duplicate key is a duplicate key, and neither is mistaken for the other.
func TestRetryable(t *testing.T) {
	d := Dialect{}
	for _, c := range []struct {
		code       string
		retry, dup bool
	}{{"40001", true, false}, {"40P01", true, false}, {"23505", false, true}, {"23502", false, false}, {"42P01", false, false}} {
		err := fmt.Errorf("export: commit: %w", &pq.Error{Code: pq.ErrorCode(c.code)})
		if d.Retryable(err) != c.retry || d.DuplicateKey(err) != c.dup {
			t.Errorf("%s: Retryable %v, DuplicateKey %v", c.code, d.Retryable(err), d.DuplicateKey(err))
		}
	}
	if d.Retryable(fmt.Errorf("serialization failure 40001")) {
		t.Error("text alone is taken for a server error")
	}

	db, _ := open(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE t SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	if err == nil || !d.Retryable(err) || d.DuplicateKey(err) {
		t.Errorf("concurrent update under REPEATABLE READ: %v, Retryable %v", err, d.Retryable(err))
	}
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (1, 0)")
	if err == nil || d.Retryable(err) || !d.DuplicateKey(err) {
		t.Errorf("duplicate key: %v, DuplicateKey %v", err, d.DuplicateKey(err))
	}
}
