package datastoretest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/datastore"
)

// testPlan checks datastore.Planner, for adapters that implement it: the
// plan lists what Define then does, counts the values a dropped column
// holds, and is empty once the schema matches.
func testPlan(t *testing.T, a datastore.Adapter) {
	p, ok := a.(datastore.Planner)
	if !ok {
		t.Skip("the adapter is no datastore.Planner")
	}
	name := tableName(t, "t")
	v1 := &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "keep", Kind: datastore.String},
		{Name: "full", Kind: datastore.Number},
		{Name: "empty", Kind: datastore.String},
	}}
	v2 := &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "keep", Kind: datastore.String},
		{Name: "code", Kind: datastore.String, Unique: true},
	}}
	plan := func(mode datastore.Migrate, tbl *datastore.Table) []datastore.Change {
		t.Helper()
		got, err := p.Plan(t.Context(), []*datastore.Table{tbl}, mode)
		if err != nil {
			t.Fatalf("Plan(%s): %v", mode, err)
		}
		return got
	}
	if got := plan(datastore.MigrateSafe, v1); len(got) != 0 {
		t.Errorf("Plan(safe) = %v, want nothing", got)
	}
	want := []datastore.Change{{Kind: datastore.CreateTable, Table: name}}
	if d := cmp.Diff(want, plan(datastore.MigrateAlter, v1)); d != "" {
		t.Errorf("Plan(alter) of a missing table (-want +got):\n%s", d)
	}
	define(t, a, datastore.MigrateAlter, v1)
	if got := plan(datastore.MigrateAlter, v1); len(got) != 0 {
		t.Errorf("Plan(alter) after Define(alter) = %v, want nothing", got)
	}
	create(t, a, v1, datastore.Record{"keep": "a", "full": 1.0}, datastore.Record{"keep": "b", "full": 2.0}, datastore.Record{"keep": "c"})
	got := plan(datastore.MigrateAlter, v2)
	byKind := map[datastore.ChangeKind][]datastore.Change{}
	for _, c := range got {
		byKind[c.Kind] = append(byKind[c.Kind], c)
	}
	drops := map[string]int64{}
	for _, c := range byKind[datastore.DropColumn] {
		drops[c.Column] = c.Rows
	}
	if d := cmp.Diff(map[string]int64{"full": 2, "empty": 0}, drops); d != "" {
		t.Errorf("Plan(alter) dropped columns and their values (-want +got):\n%s", d)
	}
	if adds := byKind[datastore.AddColumn]; len(adds) != 1 || adds[0].Column != "code" {
		t.Errorf("Plan(alter) added columns = %v, want code", adds)
	}
	if ix := byKind[datastore.CreateIndex]; len(ix) != 1 {
		t.Errorf("Plan(alter) indexes = %v, want one (code's unique index)", ix)
	}
	if n := count(t, a, all(v1)); n != 3 {
		t.Fatalf("Plan changed the table: Count = %d, want 3", n)
	}
	define(t, a, datastore.MigrateAlter, v2)
	if got := plan(datastore.MigrateAlter, v2); len(got) != 0 {
		t.Errorf("Plan(alter) after Define(alter) = %v, want nothing", got)
	}
	want = []datastore.Change{{Kind: datastore.RecreateTable, Table: name, Rows: 3}}
	if d := cmp.Diff(want, plan(datastore.MigrateDrop, v2)); d != "" {
		t.Errorf("Plan(drop) (-want +got):\n%s", d)
	}
}
