package datastoretest

import (
	"slices"
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
	plan := func(mode datastore.Migrate, tables ...*datastore.Table) []datastore.Change {
		t.Helper()
		got, err := p.Plan(t.Context(), tables, mode)
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

	// A column that holds values and becomes unique: one index to create
	// (MySQL retypes a text column first, as part of it).
	v3 := &datastore.Table{Name: name, PrimaryKey: "id", Columns: slices.Clone(v2.Columns)}
	v3.Columns[1].Unique = true
	if ix := plan(datastore.MigrateAlter, v3); len(ix) != 1 || ix[0].Kind != datastore.CreateIndex {
		t.Errorf("Plan(alter) making keep unique = %v, want one index to create", ix)
	}
	define(t, a, datastore.MigrateAlter, v3)
	if got := plan(datastore.MigrateAlter, v3); len(got) != 0 {
		t.Errorf("Plan(alter) after Define(alter) = %v, want nothing", got)
	}

	// Several tables, in the order given.
	missing := &datastore.Table{Name: tableName(t, "missing"), PrimaryKey: "id", Columns: v1.Columns[:2]}
	want = []datastore.Change{{Kind: datastore.CreateTable, Table: missing.Name}}
	if d := cmp.Diff(want, plan(datastore.MigrateAlter, missing, v3)); d != "" {
		t.Errorf("Plan(alter) of a missing and a current table (-want +got):\n%s", d)
	}
	want = []datastore.Change{{Kind: datastore.CreateTable, Table: missing.Name}, {Kind: datastore.RecreateTable, Table: name, Rows: 3}}
	if d := cmp.Diff(want, plan(datastore.MigrateDrop, missing, v3)); d != "" {
		t.Errorf("Plan(drop) (-want +got):\n%s", d)
	}
	if got := plan(datastore.MigrateSafe, missing, v1); len(got) != 0 {
		t.Errorf("Plan(safe) = %v, want nothing", got)
	}
	if _, err := p.Plan(t.Context(), []*datastore.Table{v3}, "sometimes"); err == nil {
		t.Errorf("Plan(unknown strategy) = nil error")
	}
	if n := count(t, a, all(v3)); n != 3 {
		t.Fatalf("Plan changed the table: Count = %d, want 3", n)
	}
}
