package mysql_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TestDeadlockRunsAgain makes two transactions lock two rows in opposite
// orders: InnoDB rolls one back as a deadlock victim, and InTx runs it
// again, so both succeed and the caller never sees the deadlock.
func TestDeadlockRunsAgain(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	tbl := &datastore.Table{Name: "rows", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(ctx, tbl, []datastore.Record{{}, {}}); err != nil {
		t.Fatal(err)
	}
	lock := func(ctx context.Context, tx datastore.Adapter, id float64) error {
		q := &datastore.Query{Table: tbl, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: id}, Limit: criteria.Unlimited}
		_, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{{Query: q}})
		return err
	}
	var attempts atomic.Int32
	locked := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		first, second := float64(i+1), float64(2-i)
		wg.Go(func() {
			tries := 0
			errs[i] = db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
				attempts.Add(1)
				tries++
				if err := lock(ctx, tx, first); err != nil {
					return err
				}
				if tries == 1 {
					// Both hold their first row before either asks
					// for its second.
					close(locked[i])
					<-locked[1-i]
				}
				return lock(ctx, tx, second)
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("transaction %d: InTx = %v, want nil", i, err)
		}
	}
	if n := attempts.Load(); n != 3 {
		t.Errorf("transactions ran %d times, want 3 (one deadlock victim run again)", n)
	}
}
