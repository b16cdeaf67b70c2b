package datastoretest

import (
	"context"
	"maps"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// joinFixture is the fixture of the JoinFinder tests: owners with text
// keys, and people pointing at an owner (owner) and at another person
// (friend: the table joined to itself). Person 3's keys point at no row,
// person 2 has no owner, person 4 is its own friend. Both tables have a
// name and a JSON meta column, which a join must keep apart.
func joinFixture(t *testing.T, a datastore.Adapter) (people, owners *datastore.Table, joins []datastore.Join) {
	t.Helper()
	owners = &datastore.Table{Name: tableName(t, "owner"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.String, PrimaryKey: true, Unique: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "meta", Kind: datastore.JSON},
		{Name: "rank", Kind: datastore.Number},
		{Name: "ok", Kind: datastore.Boolean},
	}}
	people = &datastore.Table{Name: tableName(t, "person"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "owner", Kind: datastore.String, Indexed: true},
		{Name: "friend", Kind: datastore.Integer, Indexed: true},
		{Name: "meta", Kind: datastore.JSON},
	}}
	define(t, a, datastore.MigrateDrop, owners, people)
	create(t, a, owners,
		datastore.Record{"id": "o1", "name": "Ann", "meta": map[string]any{"tags": []any{"x"}}, "rank": 1.5, "ok": true},
		datastore.Record{"id": "o2", "name": "Bob", "meta": nil, "rank": nil, "ok": false},
	)
	person := func(name string, owner, friend, meta any) datastore.Record {
		return datastore.Record{"name": name, "owner": owner, "friend": friend, "meta": meta}
	}
	create(t, a, people,
		person("p1", "o1", 2.0, map[string]any{"color": "red"}),
		person("p2", nil, 1.0, nil),
		person("p3", "gone", 99.0, map[string]any{"color": "blue"}),
		person("p4", "o2", 4.0, map[string]any{"color": "red"}),
	)
	return people, owners, []datastore.Join{{Column: "owner", Table: owners}, {Column: "friend", Table: people}}
}

// joinQueries are the queries of people the join tests read: all by name
// descending, a page, one record with some columns, and a JSON key.
func joinQueries(people *datastore.Table) (byName, page, picked, keyed *datastore.Query) {
	byName = all(people)
	byName.Sort = []criteria.Sort{{Attr: "name", Desc: true}}
	page = where(people, op("name", criteria.Ne, "p2"))
	page.Sort, page.Limit, page.Skip = []criteria.Sort{{Attr: "name"}}, 2, 1
	picked = where(people, eq("id", 4.0))
	picked.Select = []string{"id", "meta"}
	keyed = where(people, &criteria.Cmp{Attr: "meta", Key: "color", Op: criteria.Eq, Value: "red"})
	return byName, page, picked, keyed
}

// joinedWant is what FindJoined of q with joins answers, made from Finds:
// the rows of q, each join's column replaced by the row it points at.
func joinedWant(t *testing.T, a datastore.Adapter, q *datastore.Query, joins []datastore.Join) []datastore.Record {
	t.Helper()
	rows := find(t, a, q)
	withKeys := find(t, a, &datastore.Query{Table: q.Table, Where: q.Where, Sort: q.Sort, Limit: q.Limit, Skip: q.Skip})
	for i, row := range rows {
		for _, j := range joins {
			var got any
			for _, r := range find(t, a, all(j.Table)) {
				if key := withKeys[i][j.Column]; key != nil && r[j.Table.PrimaryKey] == key {
					got = r
				}
			}
			row[j.Column] = got
		}
	}
	return rows
}

func testFindJoined(t *testing.T, a datastore.Adapter) {
	jf, ok := a.(datastore.JoinFinder)
	if !ok {
		t.Skip("the adapter does not implement datastore.JoinFinder")
	}
	people, owners, joins := joinFixture(t, a)
	byName, page, picked, keyed := joinQueries(people)
	tests := []struct {
		name  string
		q     *datastore.Query
		joins []datastore.Join
		want  [][2]any // each row's owner name and friend name, when set
	}{
		{"all", byName, joins, [][2]any{{"Bob", "p4"}, {nil, nil}, {nil, "p1"}, {"Ann", "p2"}}},
		{"page", page, joins, [][2]any{{nil, nil}, {"Bob", "p4"}}},
		{"select without the keys", picked, joins, [][2]any{{"Bob", "p4"}}},
		{"json key", keyed, joins[:1], [][2]any{{"Ann", nil}, {"Bob", nil}}},
		{"self only", where(people, eq("name", "p2")), joins[1:], [][2]any{{nil, "p1"}}},
		{"none", where(people, eq("name", "nobody")), joins, [][2]any{}},
	}
	for _, tt := range tests {
		got, err := jf.FindJoined(t.Context(), tt.q, tt.joins)
		if err != nil {
			t.Errorf("FindJoined(%s) = %v", tt.name, err)
			continue
		}
		if got == nil {
			t.Errorf("FindJoined(%s) = nil slice, want non-nil", tt.name)
		}
		diff(t, label("FindJoined(%s)", tt.name), got, joinedWant(t, a, tt.q, tt.joins))
		names := make([][2]any, len(got))
		for i, r := range got {
			for k, j := range tt.joins {
				if row, ok := r[j.Column].(datastore.Record); ok {
					names[i][k] = row["name"]
				}
			}
		}
		if len(tt.joins) == 1 && tt.joins[0].Column == "friend" {
			for i := range names {
				names[i] = [2]any{nil, names[i][0]}
			}
		}
		diff(t, label("FindJoined(%s) joined names", tt.name), names, tt.want)
	}
	got, err := jf.FindJoined(t.Context(), where(people, eq("id", 1.0)), joins[:1])
	if err != nil {
		t.Fatalf("FindJoined(one) = %v", err)
	}
	diff(t, "FindJoined(one) owner", got[0]["owner"], datastore.Record{
		"id": "o1", "name": "Ann", "meta": map[string]any{"tags": []any{"x"}}, "rank": 1.5, "ok": true,
	})

	if bf, ok := a.(datastore.BatchFinder); ok {
		reads := []datastore.Read{{Query: byName, Joins: joins}, {Query: all(owners)}, {Query: picked, Joins: joins}}
		got, err := bf.FindBatch(t.Context(), reads)
		if err != nil {
			t.Fatalf("FindBatch(joined) = %v", err)
		}
		diff(t, "FindBatch read 0 (joined)", got[0], joinedWant(t, a, byName, joins))
		diff(t, "FindBatch read 1", got[1], find(t, a, all(owners)))
		diff(t, "FindBatch read 2 (joined)", got[2], joinedWant(t, a, picked, joins))
	}

	// Inside a transaction, the join sees the transaction's own rows.
	err = a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, owners, []datastore.Record{{"id": "gone", "name": "Cid"}}); err != nil {
			return err
		}
		jf, ok := tx.(datastore.JoinFinder)
		if !ok {
			t.Error("the adapter implements JoinFinder but its transactions do not")
			return errTest
		}
		got, err := jf.FindJoined(ctx, where(people, eq("name", "p3")), joins[:1])
		if err != nil {
			return err
		}
		if len(got) != 1 {
			t.Errorf("FindJoined in a transaction = %d rows, want 1", len(got))
			return errTest
		}
		owner, _ := got[0]["owner"].(datastore.Record)
		diff(t, "FindJoined in a transaction", maps.Clone(owner)["name"], "Cid")
		return errTest
	})
	if err != errTest {
		t.Errorf("InTx = %v, want the rollback error", err)
	}
}
