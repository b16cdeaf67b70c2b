package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TestReplaceUniqueLinks replaces the members of a collection whose join
// table has its unique key on the pair, as the ORM's join tables do: the
// links are inserted in the order wanted, those already there kept.
func TestReplaceUniqueLinks(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	kids := &datastore.Table{Name: "kid", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
	}}
	groups := &datastore.Table{Name: "grp", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
	}}
	links := &datastore.Table{Name: "grp_kids", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "grp", Kind: datastore.Integer, NotNull: true, Indexed: true},
		{Name: "kid", Kind: datastore.Integer, NotNull: true, Indexed: true},
	}, UniqueTogether: [][]string{{"grp", "kid"}}}
	if err := db.Define(ctx, []*datastore.Table{kids, groups, links}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*datastore.Table{kids, kids, kids, kids, groups} {
		if _, err := db.Create(ctx, tbl, []datastore.Record{{}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Create(ctx, links, []datastore.Record{{"grp": 1.0, "kid": 2.0}, {"grp": 1.0, "kid": 1.0}}); err != nil {
		t.Fatal(err)
	}
	var got *datastore.Replaced
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		out, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{{
			Parent: groups, Key: 1.0, Child: kids, Want: []any{int64(4), int64(2), int64(3)},
			Through: &datastore.Through{Table: links, ParentColumn: "grp", ChildColumn: "kid"},
		}})
		if err == nil {
			got = out[0]
		}
		return err
	})
	if err != nil {
		t.Fatalf("ReplaceCollections = %v", err)
	}
	if !got.Applied || !cmp.Equal(got.Removed, []any{1.0}) || !cmp.Equal(got.Added, []any{4.0, 3.0}) {
		t.Errorf("Replaced = applied %v, removed %v, added %v; want true, [1], [4 3]", got.Applied, got.Removed, got.Added)
	}
	rows, err := db.Find(ctx, &datastore.Query{Table: links, Limit: criteria.Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	var order []any
	for _, r := range rows {
		order = append(order, r["kid"])
	}
	if want := []any{2.0, 4.0, 3.0}; !cmp.Equal(order, want) {
		t.Errorf("links by key = %v, want %v (kept, then the new ones in the order wanted)", order, want)
	}

	// The same members again, in another order: nothing changes (the
	// insertion is skipped), the links stay as they were.
	err = db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		out, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{{
			Parent: groups, Key: 1.0, Child: kids, Want: []any{int64(3), int64(4), int64(2)},
			Through: &datastore.Through{Table: links, ParentColumn: "grp", ChildColumn: "kid"},
		}})
		if err == nil {
			got = out[0]
		}
		return err
	})
	if err != nil {
		t.Fatalf("ReplaceCollections again = %v", err)
	}
	if !got.Applied || len(got.Removed) != 0 || len(got.Added) != 0 {
		t.Errorf("Replaced again = applied %v, removed %v, added %v; want true, [], []", got.Applied, got.Removed, got.Added)
	}
	if rows, err = db.Find(ctx, &datastore.Query{Table: links, Limit: criteria.Unlimited}); err != nil {
		t.Fatal(err)
	}
	var again []any
	for _, r := range rows {
		again = append(again, r["id"], r["kid"])
	}
	if want := []any{1.0, 2.0, 3.0, 4.0, 4.0, 3.0}; !cmp.Equal(again, want) {
		t.Errorf("links (key, kid) after the same replace = %v, want %v", again, want)
	}
}

// TestReplaceDeadlockRunsAgain has a many-to-many replace, which locks the
// wanted children before the parent, meet a transaction that holds the
// parent and then waits for one of those children (the ORM's other path
// locks in that order): InnoDB rolls one back as a deadlock victim, InTx
// runs it again, and both succeed.
func TestReplaceDeadlockRunsAgain(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	id := func(name string) *datastore.Table {
		return &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		}}
	}
	kids, groups := id("kid"), id("grp")
	links := &datastore.Table{Name: "grp_kids", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "grp", Kind: datastore.Integer, NotNull: true, Indexed: true},
		{Name: "kid", Kind: datastore.Integer, NotNull: true, Indexed: true},
	}, UniqueTogether: [][]string{{"grp", "kid"}}}
	if err := db.Define(ctx, []*datastore.Table{kids, groups, links}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*datastore.Table{kids, kids, groups} {
		if _, err := db.Create(ctx, tbl, []datastore.Record{{}}); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(tbl *datastore.Table, v float64) []datastore.Lock {
		return []datastore.Lock{{Query: &datastore.Query{Table: tbl, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: v}, Limit: criteria.Unlimited}}}
	}
	holding := make(chan struct{})
	done := make(chan error, 1)
	attempts := 0
	go func() {
		// The other path: the parent, then (once the replace waits for
		// it) the child the replace holds.
		done <- db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			attempts++
			if _, err := tx.(datastore.Locker).Lock(ctx, byID(groups, 1)); err != nil {
				return err
			}
			if attempts == 1 {
				close(holding)
				time.Sleep(300 * time.Millisecond)
			}
			_, err := tx.(datastore.Locker).Lock(ctx, byID(kids, 2))
			return err
		})
	}()
	<-holding
	var got *datastore.Replaced
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		out, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{{
			Parent: groups, Key: 1.0, Child: kids, Want: []any{int64(1), int64(2)},
			Through: &datastore.Through{Table: links, ParentColumn: "grp", ChildColumn: "kid"},
		}})
		if err == nil {
			got = out[0]
		}
		return err
	})
	if err != nil {
		t.Fatalf("ReplaceCollections = %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the other transaction: %v", err)
	}
	if !got.Applied || !cmp.Equal(got.Added, []any{1.0, 2.0}) {
		t.Errorf("Replaced = applied %v, added %v; want true, [1 2]", got.Applied, got.Added)
	}
}
