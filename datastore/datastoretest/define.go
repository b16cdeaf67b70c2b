package datastoretest

import (
	"testing"

	"github.com/skiffhq/skiff/datastore"
)

func testDefineDrop(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	create(t, a, tbl, datastore.Record{"s": "x"}, datastore.Record{"s": "y"})
	define(t, a, datastore.MigrateDrop, tbl)
	if n := count(t, a, all(tbl)); n != 0 {
		t.Errorf("Count after Define(drop) = %d, want 0", n)
	}
	got := create(t, a, tbl, datastore.Record{"s": "z"})
	if got[0]["id"] != 1.0 {
		t.Errorf("first id after Define(drop) = %v, want 1", got[0]["id"])
	}
}

func testDefineAlter(t *testing.T, a datastore.Adapter) {
	name := tableName(t, "t")
	v1 := &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "keep", Kind: datastore.String},
		{Name: "gone", Kind: datastore.Number, Unique: true},
	}}
	v2 := &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "keep", Kind: datastore.String},
		{Name: "added", Kind: datastore.JSON},
		{Name: "code", Kind: datastore.String, Unique: true},
	}}
	// Alter creates a missing table.
	define(t, a, datastore.MigrateAlter, v1)
	create(t, a, v1, datastore.Record{"keep": "a", "gone": 1.0}, datastore.Record{"keep": "b", "gone": 2.0})

	define(t, a, datastore.MigrateAlter, v2)
	want := []datastore.Record{
		{"id": 1.0, "keep": "a", "added": nil, "code": nil},
		{"id": 2.0, "keep": "b", "added": nil, "code": nil},
	}
	diff(t, "Find after Define(alter)", find(t, a, all(v2)), want)
	if _, err := a.Find(t.Context(), all(v1)); err == nil {
		t.Errorf("Find selecting a dropped column: error = nil, want an error")
	}
	// The new unique column is enforced, and keys keep counting.
	got := create(t, a, v2, datastore.Record{"keep": "c", "code": "k", "added": map[string]any{"x": 1.0}})
	if got[0]["id"] != 3.0 {
		t.Errorf("id after Define(alter) = %v, want 3", got[0]["id"])
	}
	_, err := a.Create(t.Context(), v2, []datastore.Record{{"code": "k"}})
	uniqueErr(t, "Create(duplicate added unique column)", err)

	// Alter again with the same tables changes nothing.
	define(t, a, datastore.MigrateAlter, v2)
	if n := count(t, a, all(v2)); n != 3 {
		t.Errorf("Count after second Define(alter) = %d, want 3", n)
	}
}

func testDefineSafe(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateSafe, tbl)
	if _, err := a.Find(t.Context(), all(tbl)); err == nil {
		t.Errorf("Find on a table Define(safe) was asked for: error = nil, want an error (safe creates nothing)")
	}
	define(t, a, datastore.MigrateDrop, tbl)
	create(t, a, tbl, datastore.Record{"s": "x"})
	define(t, a, datastore.MigrateSafe, tbl)
	if n := count(t, a, all(tbl)); n != 1 {
		t.Errorf("Count after Define(safe) = %d, want 1", n)
	}
}
