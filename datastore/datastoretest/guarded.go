package datastoretest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/skiffhq/skiff/datastore"
)

func testCreateGuarded(t *testing.T, a datastore.Adapter) {
	gc, ok := a.(datastore.GuardedCreator)
	if !ok {
		t.Skip("the adapter does not implement datastore.GuardedCreator")
	}
	people, owners, _ := joinFixture(t, a)
	ctx := t.Context()
	guards := func(owner, friend any) []datastore.Guard {
		return []datastore.Guard{{Table: owners, Key: owner}, {Table: people, Key: friend}}
	}

	got, err := gc.CreateGuarded(ctx, people, datastore.Record{"name": "p5", "owner": "o1", "friend": int64(2)}, guards("o1", int64(2)))
	if err != nil {
		t.Fatalf("CreateGuarded(existing) = %v", err)
	}
	if got == nil {
		t.Fatal("CreateGuarded(existing) = nil, want the row")
	}
	stored := find(t, a, where(people, eq("name", "p5")))
	if len(stored) != 1 {
		t.Fatalf("after CreateGuarded(existing): %d rows named p5, want 1", len(stored))
	}
	diff(t, "CreateGuarded(existing)", got, stored[0])

	// Guards with a Column return their rows in its place.
	nested := []datastore.Guard{{Table: owners, Key: "o1", Column: "owner"}, {Table: people, Key: int64(4), Column: "friend"}}
	got, err = gc.CreateGuarded(ctx, people, datastore.Record{"name": "p7", "owner": "o1", "friend": int64(4), "meta": map[string]any{"a": 1.0}}, nested)
	if err != nil || got == nil {
		t.Fatalf("CreateGuarded(nested) = %v, %v", got, err)
	}
	want := find(t, a, where(people, eq("name", "p7")))[0]
	want["owner"] = find(t, a, where(owners, eq("id", "o1")))[0]
	want["friend"] = find(t, a, where(people, eq("id", 4.0)))[0]
	diff(t, "CreateGuarded(nested)", got, want)
	got, err = gc.CreateGuarded(ctx, people, datastore.Record{"name": "p8", "owner": "o2", "friend": int64(4)}, append(nested[1:], datastore.Guard{Table: owners, Key: "o2"}))
	if err != nil || got == nil {
		t.Fatalf("CreateGuarded(one nested) = %v, %v", got, err)
	}
	want = find(t, a, where(people, eq("name", "p8")))[0]
	want["friend"] = find(t, a, where(people, eq("id", 4.0)))[0]
	diff(t, "CreateGuarded(one nested)", got, want)
	got, err = gc.CreateGuarded(ctx, people, datastore.Record{"name": "refused", "owner": "o1"}, []datastore.Guard{nested[0], {Table: people, Key: int64(99), Column: "friend"}})
	if err != nil || got != nil {
		t.Errorf("CreateGuarded(nested, missing) = %v, %v; want nil, nil", got, err)
	}

	before := count(t, a, all(people))
	for _, tt := range []struct {
		name   string
		guards []datastore.Guard
	}{
		{"missing", guards("nobody", int64(1))},
		{"one of two missing", guards("o1", int64(99))},
		{"missing alone", guards("gone", int64(1))[:1]},
	} {
		got, err := gc.CreateGuarded(ctx, people, datastore.Record{"name": "refused", "owner": "o1"}, tt.guards)
		if err != nil || got != nil {
			t.Errorf("CreateGuarded(%s) = %v, %v; want nil, nil", tt.name, got, err)
		}
	}
	diff(t, "rows after refused creates", count(t, a, all(people)), before)
	diff(t, "refused rows", count(t, a, where(people, eq("name", "refused"))), int64(0))

	_, err = gc.CreateGuarded(ctx, owners, datastore.Record{"id": "o1", "name": "again"}, guards("o2", int64(1))[1:])
	var ue *datastore.UniqueError
	if !errors.As(err, &ue) {
		t.Errorf("CreateGuarded(duplicate key) = %v, want *UniqueError", err)
	}

	// In a transaction it sees the transaction's own rows.
	err = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		tgc, ok := tx.(datastore.GuardedCreator)
		if !ok {
			t.Error("the adapter implements GuardedCreator but its transactions do not")
			return errTest
		}
		if _, err := tx.Create(ctx, owners, []datastore.Record{{"id": "o3", "name": "Cid"}}); err != nil {
			return err
		}
		got, err := tgc.CreateGuarded(ctx, people, datastore.Record{"name": "p6", "owner": "o3"}, guards("o3", nil)[:1])
		if err != nil {
			return err
		}
		if got == nil {
			t.Error("CreateGuarded in a transaction refused a row the transaction made")
		}
		return errTest
	})
	if !errors.Is(err, errTest) {
		t.Fatalf("InTx(guarded) = %v", err)
	}
	diff(t, "rows after a rolled back guarded create", count(t, a, where(people, eq("name", "p6"))), int64(0))

	testGuardWaits(t, a, gc, people, owners)
}

// testGuardWaits checks that a guarded create waits for a transaction
// that locked (datastore.Locker) and deletes the row it points at, and is
// then refused: a cascading destroy cannot slip between its check and its
// insert.
func testGuardWaits(t *testing.T, a datastore.Adapter, gc datastore.GuardedCreator, people, owners *datastore.Table) {
	ctx := t.Context()
	type result struct {
		row datastore.Record
		err error
	}
	done := make(chan result, 1)
	tried := false
	err := a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		l, ok := tx.(datastore.Locker)
		if !ok {
			t.Log("no Locker: the concurrent destroy is not tried")
			return nil
		}
		tried = true
		if _, err := l.Lock(ctx, []datastore.Lock{{Query: lockByID(owners, "o2")}}); err != nil {
			return err
		}
		if _, err := tx.Destroy(ctx, where(owners, eq("id", "o2"))); err != nil {
			return err
		}
		go func() {
			row, err := gc.CreateGuarded(context.WithoutCancel(ctx), people, datastore.Record{"name": "late", "owner": "o2"},
				[]datastore.Guard{{Table: owners, Key: "o2"}})
			done <- result{row, err}
		}()
		select {
		case r := <-done:
			t.Errorf("CreateGuarded did not wait for the lock of the row it points at: %v, %v", r.row, r.err)
			done <- r
		case <-time.After(200 * time.Millisecond):
		}
		return nil
	})
	if err != nil {
		t.Fatalf("InTx(lock and destroy) = %v", err)
	}
	if !tried {
		return
	}
	select {
	case r := <-done:
		if r.err != nil || r.row != nil {
			t.Errorf("CreateGuarded after a concurrent destroy = %v, %v; want nil, nil", r.row, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CreateGuarded still waits after the destroy committed")
	}
	diff(t, "rows pointing at the destroyed row", count(t, a, where(people, eq("name", "late"))), int64(0))
}
