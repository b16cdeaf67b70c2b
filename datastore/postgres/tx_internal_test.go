package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
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

// openTestDB opens the adapter on a fresh schema, closed when t ends.
func openTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), datastore.Config{URL: testenv.Postgres(t)})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestLockScansByKey checks that a transaction plans without bitmap scans
// once it locks, and its locks without sequential scans (see tx.keyScansOnly), and only until it ends.
func TestLockScansByKey(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	tbl := &datastore.Table{Name: "lock_scans", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatalf("Define = %v", err)
	}
	err := db.InTx(ctx, func(ctx context.Context, a datastore.Adapter) error {
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

// TestOneBatchTransaction checks a transaction sent as one batch without
// BEGIN and COMMIT (see tx.commitImplicit): its statements commit together
// or, when one fails, not at all, and its settings end with it.
func TestOneBatchTransaction(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	if _, err := db.pool.Exec(ctx, "CREATE TABLE one_batch (id BIGINT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := db.pool.QueryRow(ctx, "SELECT count(*) FROM one_batch").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	send := func(ids ...int) error {
		return db.InTx(ctx, func(ctx context.Context, a datastore.Adapter) error {
			s := a.(*session)
			s.tx.keyScansOnly()
			b := &pgx.Batch{}
			for _, id := range ids {
				b.Queue("INSERT INTO one_batch (id) VALUES ($1)", id)
			}
			err := s.tx.commitWith(ctx, b, func(br pgx.BatchResults) error {
				for range ids {
					if _, err := br.Exec(); err != nil {
						return err
					}
				}
				return nil
			}, nil, nil)
			if err != nil {
				return err
			}
			if st := s.tx.conn.Conn().PgConn().TxStatus(); st != 'I' {
				t.Errorf("transaction status after the batch = %c, want I", st)
			}
			if got := setting(t, ctx, s.tx.conn, "enable_seqscan"); got != "on" {
				t.Errorf("enable_seqscan after the batch = %s, want on", got)
			}
			if _, err := s.q.Exec(ctx, "SELECT 1"); !errors.Is(err, errEnded) {
				t.Errorf("a statement after the batch = %v, want %v", err, errEnded)
			}
			return nil
		})
	}
	if err := send(1, 2); err != nil {
		t.Fatalf("InTx = %v", err)
	}
	if n := count(); n != 2 {
		t.Fatalf("rows after the first batch = %d, want 2", n)
	}
	if err := send(3, 1); err == nil {
		t.Fatal("a batch inserting a duplicate key succeeded")
	}
	if n := count(); n != 2 {
		t.Errorf("rows after the failed batch = %d, want 2: its first insert was kept", n)
	}
}

// TestEarlyLockRelease checks a transaction that releases its locks early
// (see tx.releaseLocksEarly): it commits without waiting for the disk, its
// settings go in one statement, and it returns only once its commit is on
// disk all the same.
func TestEarlyLockRelease(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, datastore.Config{URL: testenv.Postgres(t), Options: map[string]any{earlyReleaseOption: true}})
	if err != nil {
		t.Fatalf("Open with %s: true = %v", earlyReleaseOption, err)
	}
	t.Cleanup(func() { db.Close() })
	if !db.earlyRelease {
		t.Fatal("early lock release is off with earlyLockRelease: true")
	}
	if _, err := db.pool.Exec(ctx, "CREATE TABLE early_release (id BIGINT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	var lsn string
	err = db.InTx(ctx, func(ctx context.Context, a datastore.Adapter) error {
		s := a.(*session)
		s.tx.releaseLocksEarly()
		s.tx.keyScansOnly()
		if len(s.tx.pending) != 1 {
			t.Errorf("pending statements = %d, want the settings' one", len(s.tx.pending))
		}
		if got := setting(t, ctx, s.q, "synchronous_commit"); got != "off" {
			t.Errorf("synchronous_commit in the transaction = %s, want off", got)
		}
		b := &pgx.Batch{}
		b.Queue("INSERT INTO early_release (id) VALUES (1)")
		b.Queue("SELECT pg_current_wal_insert_lsn()::text")
		return s.tx.commitWith(ctx, b, func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				return err
			}
			return br.QueryRow().Scan(&lsn)
		}, nil, nil)
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	// Without the wait the commit would reach the disk when the WAL
	// writer next wakes, up to wal_writer_delay later.
	var durable bool
	if err := db.pool.QueryRow(ctx, "SELECT pg_current_wal_flush_lsn() > $1::pg_lsn", lsn).Scan(&durable); err != nil {
		t.Fatal(err)
	}
	if !durable {
		t.Errorf("the commit was not on disk when the transaction returned")
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM early_release").Scan(&n); err != nil || n != 1 {
		t.Errorf("rows after the commit = %d, %v; want 1", n, err)
	}
	if got := setting(t, ctx, conn, "synchronous_commit"); got != "on" {
		t.Errorf("synchronous_commit after the transaction = %s, want on", got)
	}
}

// TestEarlyLockReleaseOption checks the datastore setting that turns
// early lock release off.
func TestEarlyLockReleaseOption(t *testing.T) {
	url := testenv.Postgres(t)
	if def := openTestDB(t); def.earlyRelease {
		t.Errorf("early lock release on by default, want off")
	}
	db, err := Open(t.Context(), datastore.Config{URL: url, Options: map[string]any{earlyReleaseOption: false}})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer db.Close()
	if db.earlyRelease {
		t.Errorf("early lock release on with %s: false", earlyReleaseOption)
	}
	lower, err := Open(t.Context(), datastore.Config{URL: url, Options: map[string]any{"earlylockrelease": false}})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer lower.Close()
	if lower.earlyRelease {
		t.Errorf("early lock release on with earlylockrelease: false")
	}
	if _, err := Open(t.Context(), datastore.Config{URL: url, Options: map[string]any{earlyReleaseOption: "no"}}); err == nil {
		t.Errorf("Open with %s: %q succeeded", earlyReleaseOption, "no")
	}
}
