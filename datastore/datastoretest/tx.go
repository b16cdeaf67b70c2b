package datastoretest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/skiffhq/skiff/datastore"
)

func testInTx(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	ctx := t.Context()

	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, tbl, []datastore.Record{{"s": "committed"}}); err != nil {
			return err
		}
		// Read-your-writes inside the transaction.
		if n, err := tx.Count(ctx, all(tbl)); err != nil || n != 1 {
			t.Errorf("Count inside transaction = %d, %v; want 1, nil", n, err)
		}
		// A nested InTx joins the transaction.
		return tx.InTx(ctx, func(ctx context.Context, inner datastore.Adapter) error {
			_, err := inner.Update(ctx, where(tbl, eq("s", "committed")), datastore.Record{"b": true})
			return err
		})
	})
	if err != nil {
		t.Fatalf("InTx(commit) = %v", err)
	}
	diff(t, "committed rows", find(t, a, all(tbl)), []datastore.Record{
		{"id": 1.0, "s": "committed", "n": nil, "i": nil, "b": true, "j": nil},
	})

	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, tbl, []datastore.Record{{"s": "rolled back"}}); err != nil {
			return err
		}
		if _, err := tx.Destroy(ctx, where(tbl, eq("id", 1.0))); err != nil {
			return err
		}
		if got, err := tx.Find(ctx, all(tbl)); err != nil || len(got) != 1 || got[0]["s"] != "rolled back" {
			t.Errorf("Find inside transaction = %v, %v; want the one new row", got, err)
		}
		// Other sessions do not see uncommitted rows.
		if got, err := a.Find(ctx, all(tbl)); err != nil || len(got) != 1 || got[0]["s"] != "committed" {
			t.Errorf("Find outside transaction = %v, %v; want the committed row only", got, err)
		}
		return tx.InTx(ctx, func(ctx context.Context, inner datastore.Adapter) error { return errTest })
	})
	if !errors.Is(err, errTest) {
		t.Fatalf("InTx(rollback) = %v, want the function's error", err)
	}
	diff(t, "rows after rollback", ids(find(t, a, all(tbl))), nums(1))

	// A unique violation inside the transaction rolls everything back.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, tbl, []datastore.Record{{"s": "lost"}}); err != nil {
			return err
		}
		_, err := tx.Create(ctx, tbl, []datastore.Record{{"id": 1.0}})
		return err
	})
	uniqueErr(t, "InTx(duplicate key)", err)
	diff(t, "rows after failed transaction", ids(find(t, a, all(tbl))), nums(1))
}

func testConcurrentWriters(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	ctx := t.Context()
	const writers, each = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				var err error
				switch i % 4 {
				case 0:
					err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
						_, err := tx.Create(ctx, tbl, []datastore.Record{{"i": float64(w)}})
						if err != nil {
							return err
						}
						_, err = tx.Count(ctx, where(tbl, eq("i", float64(w))))
						return err
					})
				case 1:
					_, err = a.Create(ctx, tbl, []datastore.Record{{"i": float64(w)}})
					if err == nil {
						_, err = a.Find(ctx, where(tbl, eq("i", float64(w))))
					}
				default:
					_, err = a.Create(ctx, tbl, []datastore.Record{{"i": float64(w)}})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	recs := find(t, a, all(tbl))
	if len(recs) != writers*each {
		t.Errorf("rows after concurrent writes = %d, want %d", len(recs), writers*each)
	}
	seen := make(map[any]bool)
	for _, r := range recs {
		if seen[r["id"]] {
			t.Errorf("id %v generated twice", r["id"])
		}
		seen[r["id"]] = true
	}
}
