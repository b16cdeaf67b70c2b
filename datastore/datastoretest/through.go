package datastoretest

import (
	"context"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// itemLinks is the fixture of the ThroughFinder tests: items 1 to 5 and a
// join table linking group 1 to items 1, 2, 3, group 2 to items 2, 3, 4 and
// 99 (which does not exist), group 3 to nothing. The join table has columns
// named like the items' (id, name), which a join must keep apart.
func itemLinks(t *testing.T, a datastore.Adapter) (*datastore.Table, *datastore.Through) {
	t.Helper()
	items := &datastore.Table{Name: tableName(t, "item"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "rank", Kind: datastore.Number},
	}}
	links := &datastore.Table{Name: tableName(t, "link"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "grp", Kind: datastore.Integer, NotNull: true},
		{Name: "item", Kind: datastore.Integer, NotNull: true},
		{Name: "name", Kind: datastore.String},
	}}
	define(t, a, datastore.MigrateDrop, items, links)
	item := func(name string, rank any) datastore.Record { return datastore.Record{"name": name, "rank": rank} }
	create(t, a, items, item("e", 2.0), item("d", 1.0), item("c", nil), item("b", 1.0), item("a", 3.0))
	link := func(grp, item float64) datastore.Record {
		return datastore.Record{"grp": grp, "item": item, "name": "link"}
	}
	create(t, a, links, link(2, 4), link(1, 3), link(1, 1), link(2, 99), link(2, 2), link(1, 2), link(2, 3))
	return items, &datastore.Through{Table: links, ParentColumn: "grp", ChildColumn: "item", Parents: []any{1.0, 2.0, 3.0}}
}

// pairs lists each row's id and parent key.
func pairs(recs []datastore.Record) [][2]any {
	out := make([][2]any, len(recs))
	for i, r := range recs {
		out[i] = [2]any{r["id"], r[datastore.ParentKey]}
	}
	return out
}

func testFindThrough(t *testing.T, a datastore.Adapter) {
	if _, ok := a.(datastore.ThroughFinder); !ok {
		t.Skip("the adapter does not implement datastore.ThroughFinder")
	}
	items, j := itemLinks(t, a)
	type pair = [2]any
	tests := []struct {
		name        string
		where       criteria.Expr
		sort        []criteria.Sort
		limit, skip int64
		partition   bool
		parents     []any
		want        [][2]any
	}{
		{"all links, by parent", nil, nil, criteria.Unlimited, 0, false, nil,
			[][2]any{{1.0, 1.0}, {2.0, 1.0}, {3.0, 1.0}, {2.0, 2.0}, {3.0, 2.0}, {4.0, 2.0}}},
		{"one parent", nil, nil, criteria.Unlimited, 0, false, []any{2.0},
			[][2]any{{2.0, 2.0}, {3.0, 2.0}, {4.0, 2.0}}},
		{"no parents", nil, nil, criteria.Unlimited, 0, false, []any{}, [][2]any{}},
		{"where on the child's columns", op("name", criteria.In, []any{"e", "c"}), nil, criteria.Unlimited, 0, false, nil,
			[][2]any{{1.0, 1.0}, {3.0, 1.0}, {3.0, 2.0}}},
		{"where on a column both tables have", eq("name", "link"), nil, criteria.Unlimited, 0, false, nil, [][2]any{}},
		{"sorted, nulls lowest", nil, []criteria.Sort{{Attr: "rank", Desc: true}}, criteria.Unlimited, 0, false, nil,
			[][2]any{{1.0, 1.0}, {2.0, 1.0}, {3.0, 1.0}, {2.0, 2.0}, {4.0, 2.0}, {3.0, 2.0}}},
		{"limit and skip over the whole result", nil, nil, 3, 2, false, nil,
			[][2]any{{3.0, 1.0}, {2.0, 2.0}, {3.0, 2.0}}},
		{"limit per parent", nil, []criteria.Sort{{Attr: "name"}}, 2, 0, true, nil,
			[][2]any{{3.0, 1.0}, {2.0, 1.0}, {4.0, 2.0}, {3.0, 2.0}}},
		{"skip and limit per parent", nil, []criteria.Sort{{Attr: "name"}}, 1, 1, true, nil,
			[][2]any{{2.0, 1.0}, {3.0, 2.0}}},
		{"skip only per parent", nil, nil, criteria.Unlimited, 2, true, nil,
			[][2]any{{3.0, 1.0}, {4.0, 2.0}}},
	}
	for _, tt := range tests {
		q := where(items, tt.where)
		q.Sort, q.Limit, q.Skip = tt.sort, tt.limit, tt.skip
		if tt.partition {
			q.PartitionBy = datastore.ParentKey
		}
		jj := *j
		if tt.parents != nil {
			jj.Parents = tt.parents
		}
		got, err := a.(datastore.ThroughFinder).FindThrough(t.Context(), q, &jj)
		if err != nil {
			t.Errorf("FindThrough(%s) = %v", tt.name, err)
			continue
		}
		if got == nil {
			t.Errorf("FindThrough(%s) = nil slice, want non-nil", tt.name)
		}
		diff(t, label("FindThrough(%s) (id, parent) pairs", tt.name), pairs(got), tt.want)
	}

	q := where(items, eq("id", 2.0))
	q.Select = []string{"id", "name"}
	got, err := a.(datastore.ThroughFinder).FindThrough(t.Context(), q, j)
	if err != nil {
		t.Fatalf("FindThrough(select) = %v", err)
	}
	diff(t, "FindThrough(select)", got, []datastore.Record{
		{"id": 2.0, "name": "d", datastore.ParentKey: 1.0},
		{"id": 2.0, "name": "d", datastore.ParentKey: 2.0},
	})

	// Inside a transaction, the join sees the transaction's own links.
	err = a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, j.Table, []datastore.Record{{"grp": 3.0, "item": 5.0}}); err != nil {
			return err
		}
		tf, ok := tx.(datastore.ThroughFinder)
		if !ok {
			t.Error("the adapter implements ThroughFinder but its transactions do not")
			return errTest
		}
		jj := *j
		jj.Parents = []any{3.0}
		got, err := tf.FindThrough(ctx, all(items), &jj)
		if err != nil {
			return err
		}
		diff(t, "FindThrough in a transaction", pairs(got), [][2]any{{5.0, 3.0}})
		return errTest
	})
	if err != errTest {
		t.Errorf("InTx = %v, want the rollback error", err)
	}
}
