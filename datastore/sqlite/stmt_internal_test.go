package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/skiffhq/skiff/datastore"
)

// TestStatementsOfTransactionsPrepared checks that a statement first run
// inside a transaction is prepared once the transaction has ended, so the
// next transaction runs it prepared, and that a forget drops it.
func TestStatementsOfTransactionsPrepared(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, datastore.Config{URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.write.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO t (id) VALUES (?)"
	cached := func() bool {
		db.writes.mu.Lock()
		defer db.writes.mu.Unlock()
		return db.writes.m[insert] != nil
	}
	run := func(id int) {
		err := db.InTx(ctx, func(ctx context.Context, a datastore.Adapter) error {
			_, err := a.(*tx).r.exec(ctx, insert, []any{id})
			return err
		})
		if err != nil {
			t.Fatalf("InTx = %v", err)
		}
	}
	run(1)
	deadline := time.Now().Add(5 * time.Second)
	for !cached() {
		if time.Now().After(deadline) {
			t.Fatal("the transaction's statement was not prepared after it ended")
		}
		time.Sleep(time.Millisecond)
	}
	run(2) // prepared this time
	var n int
	if err := db.write.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows = %d, %v; want 2", n, err)
	}
	db.writes.forget()
	if cached() {
		t.Error("forget kept the statement")
	}
}
