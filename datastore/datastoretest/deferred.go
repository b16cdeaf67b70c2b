package datastoretest

import (
	"context"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

func testDeferred(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	ctx := t.Context()
	var ok bool
	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		_, ok = tx.(datastore.Deferrer)
		return nil
	})
	if err != nil {
		t.Fatalf("InTx(nothing) = %v", err)
	}
	if !ok {
		t.Skip("the adapter's transactions do not implement datastore.Deferrer")
	}
	create(t, a, tbl, datastore.Record{"s": "a"}, datastore.Record{"s": "b"})

	// Deferred writes run in order, before the reads that follow them.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		d := tx.(datastore.Deferrer)
		if err := d.DeferCreate(ctx, tbl, []datastore.Record{{"s": "c"}, {"id": 10.0, "s": "d"}}); err != nil {
			return err
		}
		if err := d.DeferUpdate(ctx, where(tbl, eq("s", "c")), datastore.Record{"i": 3.0}); err != nil {
			return err
		}
		if err := d.DeferUpdate(ctx, where(tbl, eq("s", "c")), datastore.Record{}); err != nil {
			return err
		}
		if err := d.DeferDestroy(ctx, where(tbl, eq("s", "a"))); err != nil {
			return err
		}
		got := find(t, tx, all(tbl))
		diff(t, "rows read after deferred writes", ids(got), nums(2, 3, 10))
		diff(t, "deferred update", got[1]["i"], 3.0)
		// Writes deferred last travel with the commit.
		if err := d.DeferUpdate(ctx, where(tbl, eq("s", "d")), datastore.Record{"b": true}); err != nil {
			return err
		}
		return d.DeferDestroy(ctx, where(tbl, eq("s", "b")))
	})
	if err != nil {
		t.Fatalf("InTx(deferred writes) = %v", err)
	}
	got := find(t, a, all(tbl))
	diff(t, "rows after commit", ids(got), nums(3, 10))
	diff(t, "update sent with the commit", got[1]["b"], true)
	// An explicit key moved the sequence past it.
	diff(t, "next generated key", create(t, a, tbl, datastore.Record{"s": "e"})[0]["id"], 11.0)

	// Many rows, and rows that set no column, insert as Create would.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		many := make([]datastore.Record, 1201)
		for i := range many {
			many[i] = datastore.Record{"s": "many"}
		}
		many[600] = datastore.Record{}
		return tx.(datastore.Deferrer).DeferCreate(ctx, tbl, many)
	})
	if err != nil {
		t.Fatalf("InTx(deferred create of many rows) = %v", err)
	}
	diff(t, "rows deferred at once", count(t, a, where(tbl, eq("s", "many"))), int64(1200))
	diff(t, "rows setting no column", count(t, a, where(tbl, eq("s", nil))), int64(1))
	if err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return tx.(datastore.Deferrer).DeferDestroy(ctx, where(tbl, op("id", criteria.Gt, 11.0)))
	}); err != nil {
		t.Fatalf("InTx(deferred destroy) = %v", err)
	}

	// A deferred write that fails fails the call that sends it, and the
	// whole transaction rolls back: at a later read...
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		d := tx.(datastore.Deferrer)
		if err := d.DeferDestroy(ctx, where(tbl, eq("id", 3.0))); err != nil {
			return err
		}
		if err := d.DeferCreate(ctx, tbl, []datastore.Record{{"id": 10.0}}); err != nil {
			return err
		}
		if _, err := tx.Find(ctx, all(tbl)); err != nil {
			return err
		}
		t.Errorf("Find after a failing deferred write succeeded")
		return nil
	})
	uniqueErr(t, "InTx(deferred duplicate, then a read)", err)
	// ... or at the commit.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		d := tx.(datastore.Deferrer)
		if _, err := tx.Create(ctx, tbl, []datastore.Record{{"s": "lost"}}); err != nil {
			return err
		}
		return d.DeferCreate(ctx, tbl, []datastore.Record{{"id": 10.0}})
	})
	uniqueErr(t, "InTx(deferred duplicate at commit)", err)
	diff(t, "rows after failed transactions", ids(find(t, a, all(tbl))), nums(3, 10, 11))

	// Outside a transaction a deferred write runs at once.
	if d, ok := a.(datastore.Deferrer); ok {
		if err := d.DeferDestroy(ctx, where(tbl, eq("id", 11.0))); err != nil {
			t.Fatalf("DeferDestroy outside a transaction = %v", err)
		}
		diff(t, "rows after an immediate deferred destroy", ids(find(t, a, all(tbl))), nums(3, 10))
	}
}
