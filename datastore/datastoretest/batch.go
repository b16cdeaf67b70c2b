package datastoretest

import (
	"context"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// testFindBatch checks that a batch answers, read by read, what Find and
// FindThrough answer on their own, on the ThroughFinder fixture.
func testFindBatch(t *testing.T, a datastore.Adapter) {
	bf, ok := a.(datastore.BatchFinder)
	if !ok {
		t.Skip("the adapter does not implement datastore.BatchFinder")
	}
	_, through := a.(datastore.ThroughFinder)
	items, j := itemLinks(t, a)

	byRank := all(items)
	byRank.Sort = []criteria.Sort{{Attr: "rank", Desc: true}}
	page := all(items)
	page.Sort, page.Limit, page.Skip = []criteria.Sort{{Attr: "name"}}, 2, 1
	perParent := all(items)
	perParent.Sort, perParent.Limit, perParent.PartitionBy = []criteria.Sort{{Attr: "name"}}, 2, datastore.ParentKey
	picked := where(items, op("id", criteria.In, nums(2, 4)))
	picked.Select = []string{"id", "name"}
	one := *j
	one.Parents = []any{2.0}
	reads := []datastore.Read{
		{Query: byRank},
		{Query: where(items, eq("name", "nobody"))},
		{Query: page},
		{Query: picked},
	}
	if through {
		reads = append(reads,
			datastore.Read{Query: perParent, Through: j},
			datastore.Read{Query: all(items), Through: &one},
			datastore.Read{Query: picked, Through: j},
		)
	}
	got, err := bf.FindBatch(t.Context(), reads)
	if err != nil {
		t.Fatalf("FindBatch = %v", err)
	}
	if len(got) != len(reads) {
		t.Fatalf("FindBatch returned %d results for %d reads", len(got), len(reads))
	}
	for i, r := range reads {
		var want []datastore.Record
		if r.Through == nil {
			want = find(t, a, r.Query)
		} else {
			want, err = a.(datastore.ThroughFinder).FindThrough(t.Context(), r.Query, r.Through)
			if err != nil {
				t.Fatalf("FindThrough = %v", err)
			}
		}
		if got[i] == nil {
			t.Errorf("FindBatch read %d = nil slice, want non-nil", i)
		}
		diff(t, label("FindBatch read %d (through: %t)", i, r.Through != nil), got[i], want)
	}

	if got, err := bf.FindBatch(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("FindBatch(no reads) = %v, %v; want no results", got, err)
	}
	missing := &datastore.Table{Name: tableName(t, "missing"), PrimaryKey: "id",
		Columns: []datastore.Column{{Name: "id", Kind: datastore.Integer, PrimaryKey: true}}}
	if _, err := bf.FindBatch(t.Context(), []datastore.Read{{Query: all(items)}, {Query: all(missing)}}); err == nil {
		t.Error("FindBatch with a read of a missing table = nil error")
	}

	// Inside a transaction, the batch sees the transaction's own changes.
	err = a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		created, err := tx.Create(ctx, items, []datastore.Record{{"name": "f", "rank": 9.0}})
		if err != nil {
			return err
		}
		bf, ok := tx.(datastore.BatchFinder)
		if !ok {
			t.Error("the adapter implements BatchFinder but its transactions do not")
			return errTest
		}
		got, err := bf.FindBatch(ctx, []datastore.Read{{Query: where(items, eq("name", "f"))}, {Query: byRank}})
		if err != nil {
			return err
		}
		diff(t, "FindBatch in a transaction", [][]any{ids(got[0]), ids(got[1])[:1]},
			[][]any{{created[0]["id"]}, {created[0]["id"]}})
		return errTest
	})
	if err != errTest {
		t.Errorf("InTx = %v, want the rollback error", err)
	}
}
