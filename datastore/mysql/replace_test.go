package mysql_test

import (
	"context"
	"testing"

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
}
