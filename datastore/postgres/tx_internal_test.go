package postgres

import (
	"context"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/testenv"
)

// setting reads a run-time parameter through q.
func setting(t *testing.T, ctx context.Context, q querier, name string) string {
	t.Helper()
	var v string
	rows, err := q.Query(ctx, "SELECT current_setting($1)", name)
	if err == nil {
		for rows.Next() {
			err = rows.Scan(&v)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return v
}

// TestLockScansByKey checks that a transaction plans without bitmap scans
// once it locks, and its locks without sequential scans (see tx.keyScansOnly), and only until it ends.
func TestLockScansByKey(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, datastore.Config{URL: testenv.Postgres(t)})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	tbl := &datastore.Table{Name: "lock_scans", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatalf("Define = %v", err)
	}
	err = db.InTx(ctx, func(ctx context.Context, a datastore.Adapter) error {
		s := a.(*session)
		if got := setting(t, ctx, s.q, "enable_bitmapscan"); got != "on" {
			t.Errorf("enable_bitmapscan before Lock = %s, want on", got)
		}
		q := &datastore.Query{Table: tbl, Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "id", Op: criteria.In, Value: []any{1.0}}}
		if _, err := s.Lock(ctx, []datastore.Lock{{Query: q}}); err != nil {
			return err
		}
		if got := setting(t, ctx, s.q, "enable_bitmapscan"); got != "off" {
			t.Errorf("enable_bitmapscan after Lock = %s, want off", got)
		}
		// The locks alone plan without sequential scans.
		if got := setting(t, ctx, s.q, "enable_seqscan"); got != "on" {
			t.Errorf("enable_seqscan after Lock = %s, want on", got)
		}
		s.tx.keyScansOnly()
		if got := setting(t, ctx, s.q, "enable_seqscan"); got != "off" {
			t.Errorf("enable_seqscan during the locks = %s, want off", got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, name := range []string{"enable_bitmapscan", "enable_seqscan"} {
		if got := setting(t, ctx, conn, name); got != "on" {
			t.Errorf("%s after the transaction = %s, want on", name, got)
		}
	}
}
