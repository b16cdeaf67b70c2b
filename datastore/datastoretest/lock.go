package datastoretest

import (
	"context"
	"errors"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// locker returns the Locker of a's transactions, skipping t when they have
// none.
func locker(t *testing.T, a datastore.Adapter) {
	t.Helper()
	var ok bool
	a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		_, ok = tx.(datastore.Locker)
		return nil
	})
	if !ok {
		t.Skip("the adapter's transactions do not implement datastore.Locker")
	}
}

func lockByID(tbl *datastore.Table, ids ...any) *datastore.Query {
	return &datastore.Query{
		Table: tbl, Limit: criteria.Unlimited, Where: op("id", criteria.In, ids),
		Sort: []criteria.Sort{{Attr: "id"}},
	}
}

func testLock(t *testing.T, a datastore.Adapter) {
	locker(t, a)
	items, j := itemLinks(t, a)
	ctx := t.Context()
	linked := *j
	linked.Parents = []any{1.0}
	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		read := all(items)
		read.Select = []string{"id", "name"}
		rows, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{
			{Query: lockByID(items, 5.0, 4.0, 42.0)},
			{Query: lockByID(items, 5.0), Linked: &linked, NoWait: true},
			{Query: &datastore.Query{Table: items, Limit: criteria.Unlimited}, Linked: &linked},
			{Query: lockByID(items, 1.0), Or: eq("name", "a")},
		}, read)
		if err != nil {
			return err
		}
		if len(rows) != 5 {
			t.Fatalf("Lock returned %d results, want 4 locks and 1 read", len(rows))
		}
		diff(t, "locked rows", ids(rows[0]), nums(4, 5))
		diff(t, "locked rows and members", ids(rows[1]), nums(1, 2, 3, 5))
		diff(t, "members only", ids(rows[2]), nums(1, 2, 3))
		diff(t, "locked rows or matching", ids(rows[3]), nums(1, 5))
		diff(t, "read after the locks", len(rows[4]), 5)
		return nil
	})
	if err != nil {
		t.Fatalf("InTx(lock) = %v", err)
	}
}

func testLockNoWait(t *testing.T, a datastore.Adapter) {
	locker(t, a)
	items, _ := itemLinks(t, a)
	ctx := t.Context()
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			_, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{{Query: lockByID(items, 2.0)}})
			close(held)
			if err != nil {
				return err
			}
			<-release
			return nil
		})
	}()
	<-held
	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Update(ctx, where(items, eq("id", 1.0)), datastore.Record{"name": "lost"}); err != nil {
			return err
		}
		_, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{{Query: lockByID(items, 1.0, 2.0), NoWait: true}})
		return err
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("InTx(holding the lock) = %v", err)
	}
	if !errors.Is(err, datastore.ErrLockBusy) {
		t.Fatalf("Lock(NoWait) on a row another transaction holds = %v, want ErrLockBusy", err)
	}
	diff(t, "row written before the busy lock", find(t, a, where(items, eq("id", 1.0)))[0]["name"], "e")
	// Once the holder is gone the same lock succeeds.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		_, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{{Query: lockByID(items, 1.0, 2.0), NoWait: true}})
		return err
	})
	if err != nil {
		t.Errorf("Lock(NoWait) on free rows = %v", err)
	}
}
