package datastoretest

import (
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

func testUpdate(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	ctx := t.Context()

	q := where(tbl, eq("tag", "x"))
	got, err := a.Update(ctx, q, datastore.Record{"score": 9.0, "tag": "z"})
	if err != nil {
		t.Fatalf("Update(no fetch) = %v", err)
	}
	if len(got) != 0 {
		t.Errorf("Update(no fetch) returned %d records, want none", len(got))
	}
	diff(t, "ids updated to tag z", ids(find(t, a, where(tbl, eq("tag", "z")))), nums(1, 4))

	q = where(tbl, op("id", criteria.In, []any{7.0, 2.0}))
	q.Fetch = true
	got, err = a.Update(ctx, q, datastore.Record{"admin": nil, "name": "upd", "age": int64(99)})
	if err != nil {
		t.Fatalf("Update(fetch) = %v", err)
	}
	diff(t, "Update(fetch) result", got, []datastore.Record{
		{"id": 2.0, "name": "upd", "age": 99.0, "score": nil, "admin": nil, "tag": nil},
		{"id": 7.0, "name": "upd", "age": 99.0, "score": 1.0, "admin": nil, "tag": nil},
	})

	// Updating a where column returns the rows as updated.
	q = where(tbl, eq("name", "upd"))
	q.Fetch = true
	got, err = a.Update(ctx, q, datastore.Record{"name": "again"})
	if err != nil {
		t.Fatalf("Update(where column) = %v", err)
	}
	diff(t, "Update(where column) ids", ids(got), nums(2, 7))

	q = where(tbl, eq("name", "nobody"))
	q.Fetch = true
	got, err = a.Update(ctx, q, datastore.Record{"name": "x"})
	if err != nil || len(got) != 0 {
		t.Errorf("Update(no match, fetch) = %v, %v; want empty, nil", got, err)
	}
	if n := count(t, a, all(tbl)); n != 8 {
		t.Errorf("Count after updates = %d, want 8", n)
	}
}

func testDestroy(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	ctx := t.Context()

	got, err := a.Destroy(ctx, where(tbl, eq("admin", true)))
	if err != nil {
		t.Fatalf("Destroy(no fetch) = %v", err)
	}
	if len(got) != 0 {
		t.Errorf("Destroy(no fetch) returned %d records, want none", len(got))
	}
	diff(t, "ids left", ids(find(t, a, all(tbl))), nums(2, 3, 5, 6, 8))

	q := where(tbl, op("id", criteria.In, []any{8.0, 3.0}))
	q.Fetch = true
	got, err = a.Destroy(ctx, q)
	if err != nil {
		t.Fatalf("Destroy(fetch) = %v", err)
	}
	diff(t, "Destroy(fetch) result", got, []datastore.Record{
		{"id": 3.0, "name": "Cat", "age": nil, "score": 3.0, "admin": nil, "tag": "y"},
		{"id": 8.0, "name": "a*b", "age": 50.0, "score": 2.0, "admin": false, "tag": "y"},
	})
	got, err = a.Destroy(ctx, q)
	if err != nil || len(got) != 0 {
		t.Errorf("Destroy(fetch, already gone) = %v, %v; want empty, nil", got, err)
	}
	if _, err := a.Destroy(ctx, all(tbl)); err != nil {
		t.Fatalf("Destroy(all) = %v", err)
	}
	if n := count(t, a, all(tbl)); n != 0 {
		t.Errorf("Count after Destroy(all) = %d, want 0", n)
	}
}

func testUnique(t *testing.T, a datastore.Adapter) {
	tbl := &datastore.Table{
		Name:       tableName(t, "t"),
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "email", Kind: datastore.String, Unique: true},
			{Name: "left", Kind: datastore.Integer, NotNull: true},
			{Name: "right", Kind: datastore.Integer, NotNull: true},
		},
		UniqueTogether: [][]string{{"left", "right"}},
	}
	define(t, a, datastore.MigrateDrop, tbl)
	ctx := t.Context()
	create(t, a, tbl,
		datastore.Record{"email": "a@x", "left": 1.0, "right": 1.0},
		datastore.Record{"email": nil, "left": 1.0, "right": 2.0},
		datastore.Record{"email": nil, "left": 2.0, "right": 1.0}, // nulls never collide
	)

	_, err := a.Create(ctx, tbl, []datastore.Record{{"email": "a@x", "left": 5.0, "right": 5.0}})
	ue := uniqueErr(t, "Create(duplicate email)", err)
	diff(t, "UniqueError.Columns (email)", ue.Columns, []string{"email"})
	if ue.Table != tbl.Name {
		t.Errorf("UniqueError.Table = %q, want %q", ue.Table, tbl.Name)
	}

	_, err = a.Create(ctx, tbl, []datastore.Record{{"email": "b@x", "left": 1.0, "right": 2.0}})
	ue = uniqueErr(t, "Create(duplicate pair)", err)
	diff(t, "UniqueError.Columns (pair)", ue.Columns, []string{"left", "right"})

	_, err = a.Create(ctx, tbl, []datastore.Record{{"id": 1.0, "left": 9.0, "right": 9.0}})
	ue = uniqueErr(t, "Create(duplicate key)", err)
	diff(t, "UniqueError.Columns (key)", ue.Columns, []string{"id"})

	q := where(tbl, eq("id", 2.0))
	q.Fetch = true
	_, err = a.Update(ctx, q, datastore.Record{"email": "a@x"})
	ue = uniqueErr(t, "Update(duplicate email)", err)
	diff(t, "UniqueError.Columns (update)", ue.Columns, []string{"email"})
	_, err = a.Update(ctx, where(tbl, eq("id", 2.0)), datastore.Record{"left": 1.0, "right": 1.0})
	uniqueErr(t, "Update(duplicate pair, no fetch)", err)

	// The failed update kept the record (decisions.md: no data loss).
	diff(t, "record after failed updates", find(t, a, where(tbl, eq("id", 2.0))), []datastore.Record{
		{"id": 2.0, "email": nil, "left": 1.0, "right": 2.0},
	})
	if n := count(t, a, all(tbl)); n != 3 {
		t.Errorf("Count after unique violations = %d, want 3", n)
	}
}

// testLongNames checks that index names derived from long table and column
// names (past PostgreSQL's 63 bytes) still report their columns.
func testLongNames(t *testing.T, a datastore.Adapter) {
	long := tableName(t, "a_table_name_long_enough_to_pass_every_identifier_limit_xx")[:60]
	col := "a_column_name_that_is_also_rather_long_for_an_index_name"
	tbl := &datastore.Table{Name: long, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: col, Kind: datastore.String, Unique: true},
	}}
	define(t, a, datastore.MigrateDrop, tbl)
	create(t, a, tbl, datastore.Record{col: "x"})
	_, err := a.Create(t.Context(), tbl, []datastore.Record{{col: "x"}})
	ue := uniqueErr(t, "Create(duplicate long column)", err)
	diff(t, "UniqueError.Columns (long)", ue.Columns, []string{col})
	_, err = a.Create(t.Context(), tbl, []datastore.Record{{"id": 1.0, col: "y"}})
	ue = uniqueErr(t, "Create(duplicate key, long table)", err)
	diff(t, "UniqueError.Columns (long key)", ue.Columns, []string{"id"})
}
