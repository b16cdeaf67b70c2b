package datastoretest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/skiffhq/skiff/datastore"
)

// replaceIn runs r in a transaction of its own and returns what it did.
func replaceIn(t *testing.T, a datastore.Adapter, r *datastore.Replacement) *datastore.Replaced {
	t.Helper()
	var out *datastore.Replaced
	err := a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		outs, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{r})
		if err == nil {
			out = outs[0]
		}
		return err
	})
	if err != nil {
		t.Fatalf("ReplaceCollections = %v", err)
	}
	return out
}

// sorted returns vals, float64 keys, in ascending order: Added has none.
func sorted(vals []any) []any {
	out := slices.Clone(vals)
	slices.SortFunc(out, func(a, b any) int {
		x, y := a.(float64), b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return out
}

func testReplaceCollection(t *testing.T, a datastore.Adapter) {
	if _, ok := a.(datastore.CollectionReplacer); !ok {
		t.Skip("the adapter does not implement datastore.CollectionReplacer")
	}
	items, j := itemLinks(t, a)
	groups := kindsTable(tableName(t, "grp"))
	define(t, a, datastore.MigrateDrop, groups)
	create(t, a, groups, datastore.Record{}, datastore.Record{}, datastore.Record{})
	// members lists the items group grp links to, in link order.
	members := func(grp float64) []any {
		var out []any
		for _, l := range find(t, a, where(j.Table, eq("grp", grp))) {
			out = append(out, l["item"])
		}
		return out
	}
	through := func(grp float64, want ...any) *datastore.Replacement {
		return &datastore.Replacement{
			Parent: groups, Key: grp, Child: items, Want: want, Through: j,
		}
	}

	t.Run("join table", func(t *testing.T) {
		// Group 2 links 4, 99 (destroyed), 2 and 3, in that order.
		got := replaceIn(t, a, through(2, 5.0, 2.0, 1.0))
		diff(t, "applied", got.Applied, true)
		diff(t, "locked parent", got.Parent, datastore.Record{"id": 2.0})
		diff(t, "locked children", ids(got.Children), nums(1, 2, 3, 4, 5))
		diff(t, "removed, in link order, not the link to 99", got.Removed, nums(4, 3))
		diff(t, "added", sorted(got.Added), nums(1, 5))
		diff(t, "members after", sorted(members(2)), nums(1, 2, 5))
		diff(t, "other group untouched", members(1), nums(3, 1, 2))
	})
	t.Run("reads after the commit", func(t *testing.T) {
		r := through(3, 4.0)
		r.ParentColumns = []string{"id", "s"}
		r.After = []datastore.Read{
			{Query: where(j.Table, eq("grp", 3.0))},
			{Query: all(items), Through: &datastore.Through{Table: j.Table, ParentColumn: "grp", ChildColumn: "item", Parents: []any{3.0}}},
		}
		got := replaceIn(t, a, r)
		diff(t, "applied", got.Applied, true)
		diff(t, "locked parent's columns", got.Parent, datastore.Record{"id": 3.0, "s": nil})
		if len(got.After) != 2 {
			t.Fatalf("After = %d results, want 2", len(got.After))
		}
		diff(t, "links read after the commit", len(got.After[0]), 1)
		diff(t, "members read after the commit", ids(got.After[1]), nums(4))
	})
	t.Run("ends the transaction", func(t *testing.T) {
		var after error
		err := a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
			if _, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{through(3)}); err != nil {
				return err
			}
			_, after = tx.Find(ctx, all(items))
			return nil
		})
		if err != nil || after == nil {
			t.Errorf("InTx = %v, Find after ReplaceCollections = %v; want nil and an error", err, after)
		}
	})
	t.Run("several in one transaction", func(t *testing.T) {
		first, invalid, last := through(3, 1.0, 2.0), through(3, 5.0, 77.0), through(3, 2.0, 3.0)
		last.After = []datastore.Read{{Query: where(j.Table, eq("grp", 3.0))}}
		var got []*datastore.Replaced
		err := a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
			var err error
			got, err = tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{first, invalid, last})
			return err
		})
		if err != nil || len(got) != 3 {
			t.Fatalf("ReplaceCollections = %d results, %v; want 3 and no error", len(got), err)
		}
		diff(t, "applied", []bool{got[0].Applied, got[1].Applied, got[2].Applied}, []bool{true, false, true})
		diff(t, "first: added", sorted(got[0].Added), nums(1, 2))
		diff(t, "invalid: removed and added", [][]any{got[1].Removed, got[1].Added}, [][]any{nil, nil})
		diff(t, "last sees the first: removed, added", [][]any{got[2].Removed, got[2].Added}, [][]any{nums(1), nums(3)})
		diff(t, "each its own locks", ids(got[2].Children), nums(1, 2, 3))
		diff(t, "reads after the commit", len(got[2].After[0]), 2)
		diff(t, "members after", sorted(members(3)), nums(2, 3))
	})
	t.Run("busy child", func(t *testing.T) {
		var busy error
		err := a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
			if _, err := tx.(datastore.Locker).Lock(ctx, []datastore.Lock{{Query: lockByID(items, 5.0)}}); err != nil {
				return err
			}
			// Another transaction, while this one holds item 5.
			busy = a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
				_, err := tx.(datastore.CollectionReplacer).ReplaceCollections(ctx, []*datastore.Replacement{through(1, 5.0)})
				return err
			})
			return nil
		})
		if err != nil || !errors.Is(busy, datastore.ErrLockBusy) {
			t.Errorf("InTx = %v, ReplaceCollections of a busy child = %v; want nil and ErrLockBusy", err, busy)
		}
		diff(t, "members after", members(1), nums(3, 1, 2))
	})
	t.Run("missing parent", func(t *testing.T) {
		got := replaceIn(t, a, through(42, 1.0))
		diff(t, "applied", got.Applied, false)
		diff(t, "locked parent", got.Parent, datastore.Record(nil))
		diff(t, "members after", members(42), []any(nil))
	})
	t.Run("missing wanted child", func(t *testing.T) {
		got := replaceIn(t, a, through(1, 1.0, 77.0))
		diff(t, "applied", got.Applied, false)
		diff(t, "removed and added", [][]any{got.Removed, got.Added}, [][]any{nil, nil})
		diff(t, "members after", members(1), nums(3, 1, 2))
	})

	kids := &datastore.Table{Name: tableName(t, "kid"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "owner", Kind: datastore.Integer, Indexed: true},
	}}
	define(t, a, datastore.MigrateDrop, kids)
	owned := func(owner any) datastore.Record { return datastore.Record{"owner": owner} }
	create(t, a, kids, owned(1.0), owned(1.0), owned(2.0), owned(nil))
	oneToMany := func(owner float64, required bool, want ...any) *datastore.Replacement {
		return &datastore.Replacement{
			Parent: groups, Key: owner, Child: kids, Want: want, Via: "owner", Required: required,
		}
	}
	owners := func() []any {
		var out []any
		for _, k := range find(t, a, all(kids)) {
			out = append(out, k["owner"])
		}
		return out
	}
	t.Run("required key", func(t *testing.T) {
		got := replaceIn(t, a, oneToMany(1, true, 1.0, 3.0))
		diff(t, "applied", got.Applied, false)
		diff(t, "owners after", owners(), []any{1.0, 1.0, 2.0, nil})
	})
	t.Run("one-to-many", func(t *testing.T) {
		got := replaceIn(t, a, oneToMany(1, false, 4.0, 3.0))
		diff(t, "applied", got.Applied, true)
		var before [][2]any
		for _, r := range got.Children {
			before = append(before, [2]any{r["id"], r["owner"]})
		}
		diff(t, "locked children with their owner before", before, [][2]any{{1.0, 1.0}, {2.0, 1.0}, {3.0, 2.0}, {4.0, nil}})
		diff(t, "removed", got.Removed, nums(1, 2))
		diff(t, "added, 3 taken from owner 2", sorted(got.Added), nums(3, 4))
		diff(t, "owners after", owners(), []any{nil, nil, 1.0, 1.0})
	})
}
