package datastoretest

import (
	"context"
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
	items, _ := itemLinks(t, a)
	ctx := t.Context()
	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		read := all(items)
		read.Select = []string{"id", "name"}
		rows, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{
			{Query: lockByID(items, 5.0, 4.0, 42.0)},
			{Query: lockByID(items, 1.0)},
		}, read)
		if err != nil {
			return err
		}
		if len(rows) != 3 {
			t.Fatalf("Lock returned %d results, want 2 locks and 1 read", len(rows))
		}
		diff(t, "locked rows", ids(rows[0]), nums(4, 5))
		diff(t, "locked row", ids(rows[1]), nums(1))
		diff(t, "read after the locks", len(rows[2]), 5)
		return nil
	})
	if err != nil {
		t.Fatalf("InTx(lock) = %v", err)
	}
}
