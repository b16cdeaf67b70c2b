package orm_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// noteModel is a schemaless model with one declared attribute.
func noteModel(t *testing.T, extra map[string]any) *model.Model {
	t.Helper()
	attrs := map[string]any{
		"id":    map[string]any{"type": "number", "autoIncrement": true},
		"title": "string",
	}
	for k, v := range extra {
		attrs[k] = v
	}
	m, err := model.Parse("note", "note.yaml", map[string]any{"schema": false, "migrate": "drop", "attributes": attrs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSchemaless(t *testing.T) {
	engines := []struct {
		name string
		open func(t *testing.T) datastore.Adapter
	}{
		{"sqlite", func(t *testing.T) datastore.Adapter {
			db := memSQLite(t)
			return db
		}},
		{"postgres", func(t *testing.T) datastore.Adapter {
			db, err := postgres.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.Postgres(t)})
			if err != nil {
				t.Fatal(err)
			}
			return db
		}},
		{"mysql", func(t *testing.T) datastore.Adapter {
			db, err := mysql.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.MySQLDatabase(t)})
			if err != nil {
				t.Fatal(err)
			}
			return db
		}},
	}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) { testSchemaless(t, eng.open(t)) })
	}
}

func testSchemaless(t *testing.T, db datastore.Adapter) {
	m := noteModel(t, nil)
	o := migrated(t, db, m)
	ctx := t.Context()
	if o.Table("note").Column(orm.ExtraColumn) == nil {
		t.Fatalf("table of a schemaless model has no %s column", orm.ExtraColumn)
	}
	a := mustCreate(t, o, m, map[string]any{"title": "a", "color": "red", "size": 3, "tags": []any{"x", 1.0}, "meta": map[string]any{"k": true}, "gone": nil})
	want := model.Record{"id": a["id"], "title": "a", "color": "red", "size": 3.0, "tags": []any{"x", 1.0}, "meta": map[string]any{"k": true}, "gone": nil}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Create returned (-want +got):\n%s", diff)
	}
	mustCreate(t, o, m, map[string]any{"title": "b", "color": "blue", "size": 10, "done": true})
	mustCreate(t, o, m, map[string]any{"title": "c", "size": "10", "done": false})
	mustCreate(t, o, m, map[string]any{"title": "d"})

	find := func(where map[string]any, sort any) []any {
		t.Helper()
		raw := map[string]any{"where": where}
		if sort != nil {
			raw["sort"] = sort
		}
		c, err := criteria.Normalize(raw, m)
		if err != nil {
			t.Fatalf("Normalize(%v): %v", raw, err)
		}
		recs, err := o.Find(ctx, m, c, nil)
		if err != nil {
			t.Fatalf("Find(%v): %v", raw, err)
		}
		titles := []any{}
		for _, r := range recs {
			titles = append(titles, r["title"])
		}
		return titles
	}
	tests := []struct {
		where map[string]any
		sort  any
		want  []any
	}{
		{map[string]any{"color": "red"}, nil, []any{"a"}},
		{map[string]any{"size": 10.0}, nil, []any{"b"}},
		{map[string]any{"size": "10"}, nil, []any{"c"}},
		{map[string]any{"done": true}, nil, []any{"b"}},
		{map[string]any{"done": false}, nil, []any{"c"}},
		{map[string]any{"size": 1.0}, nil, []any{}},
		{map[string]any{"color": nil}, nil, []any{"c", "d"}},
		{map[string]any{"gone": nil}, nil, []any{"a", "b", "c", "d"}},
		{map[string]any{"color": map[string]any{"!=": "red"}}, nil, []any{"b", "c", "d"}},
		{map[string]any{"color": map[string]any{"!=": nil}}, nil, []any{"a", "b"}},
		{map[string]any{"size": map[string]any{">": 2.0}}, nil, []any{"a", "b"}},
		{map[string]any{"size": map[string]any{"<=": 3.0}}, nil, []any{"a"}},
		{map[string]any{"size": map[string]any{">=": "1"}}, nil, []any{"c"}},
		{map[string]any{"done": map[string]any{">": false}}, nil, []any{}},
		{map[string]any{"size": []any{3.0, "10"}}, nil, []any{"a", "c"}},
		{map[string]any{"size": map[string]any{"nin": []any{3.0, "10"}}}, nil, []any{"b", "d"}},
		{map[string]any{"color": map[string]any{"contains": "e"}}, nil, []any{"a", "b"}},
		{map[string]any{"color": map[string]any{"startsWith": "R"}}, nil, []any{}},
		{map[string]any{"size": map[string]any{"like": "1%"}}, nil, []any{"c"}},
		{map[string]any{"or": []any{map[string]any{"color": "red"}, map[string]any{"done": false}}}, nil, []any{"a", "c"}},
		{map[string]any{"title": "b", "color": "blue"}, nil, []any{"b"}},
		{nil, "color DESC", []any{"a", "b", "c", "d"}},
		{map[string]any{"size": map[string]any{">": 0.0}}, []any{map[string]any{"size": "DESC"}}, []any{"b", "a"}},
	}
	for _, tt := range tests {
		if got := find(tt.where, tt.sort); !cmp.Equal(got, tt.want) {
			t.Errorf("Find(where %v, sort %v) = %v, want %v", tt.where, tt.sort, got, tt.want)
		}
	}

	// Update sets the given keys, keeps the others, and stores null.
	before, after, _, err := o.Update(ctx, m, a["id"], map[string]any{"color": nil, "size": 4, "shape": "round"})
	if err != nil {
		t.Fatal(err)
	}
	if before["color"] != "red" {
		t.Errorf("Update before[color] = %v, want red", before["color"])
	}
	want = model.Record{"id": a["id"], "title": "a", "color": nil, "size": 4.0, "shape": "round", "tags": []any{"x", 1.0}, "meta": map[string]any{"k": true}, "gone": nil}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("Update returned (-want +got):\n%s", diff)
	}
	got, err := o.FindByPK(ctx, m, a["id"], nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record after update (-want +got):\n%s", diff)
	}
	// A record created without undeclared keys gains them on update.
	d, err := o.FindOne(ctx, m, &criteria.Criteria{Where: &criteria.Cmp{Attr: "title", Op: criteria.Eq, Value: "d"}, Limit: 2}, nil)
	if err != nil || d == nil {
		t.Fatalf("FindOne(d) = %v, %v", d, err)
	}
	if _, after, _, err := o.Update(ctx, m, d["id"], map[string]any{"n": 1}); err != nil || after["n"] != 1.0 {
		t.Errorf("Update(d, n: 1) = %v, %v; want n 1", after, err)
	}
	if n, err := o.Count(ctx, m, &criteria.Cmp{Attr: "n", Op: criteria.Eq, Value: 1.0}); err != nil || n != 1 {
		t.Errorf("Count(n = 1) = %d, %v; want 1", n, err)
	}

	// Refusals: names that are not identifiers, values that are not JSON.
	for _, in := range []map[string]any{
		{"a-b": 1.0}, {"a.b": 1.0}, {`a"b`: 1.0}, {"toJSON": 1.0}, {"delete": 1.0}, {"x": func() {}},
	} {
		if _, _, err := o.Create(ctx, m, in); model.KindOf(err) != model.Invalid {
			t.Errorf("Create(%v) kind = %v (%v), want Invalid", in, model.KindOf(err), err)
		}
	}
	if _, _, _, err := o.Update(ctx, m, a["id"], map[string]any{"$[0]": 1.0}); model.KindOf(err) != model.Invalid {
		t.Errorf("Update($[0]) kind = %v (%v), want Invalid", model.KindOf(err), err)
	}
	if n, _ := o.Count(ctx, m, nil); n != 4 {
		t.Errorf("records after refused creates = %d, want 4", n)
	}
}

func TestSchemalessDeclaredAttributeWins(t *testing.T) {
	db := memSQLite(t)
	m := noteModel(t, nil)
	o := migrated(t, db, m)
	rec := mustCreate(t, o, m, map[string]any{"title": "t", "rank": "high"})

	// The model now declares rank: the old undeclared value is hidden.
	m2 := noteModel(t, map[string]any{"rank": "number"})
	m2.Migrate = model.MigrateAlter
	o2 := remigrated(t, db, m2)
	got, err := o2.FindByPK(t.Context(), m2, rec["id"], nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["rank"] != nil {
		t.Errorf("rank = %#v, want nil (the declared column, not the old undeclared value)", got["rank"])
	}
}

func TestReservedExtraColumn(t *testing.T) {
	m := noteModel(t, map[string]any{"x": map[string]any{"type": "string", "columnName": orm.ExtraColumn}})
	schema, err := model.NewSchema([]*model.Model{m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orm.New(schema, map[string]datastore.Adapter{"default": nil}); err == nil {
		t.Errorf("orm.New with an attribute in column %s = nil error, want a refusal", orm.ExtraColumn)
	}
}

func TestSchemalessMigrate(t *testing.T) {
	db := memSQLite(t)
	t.Cleanup(func() { db.Close() })
	open := func(schemaless bool, mode model.Migrate) (*orm.ORM, *model.Model) {
		t.Helper()
		m := noteModel(t, nil)
		m.Schema, m.Migrate = !schemaless, mode
		return remigrated(t, db, m), m
	}
	o, m := open(false, model.MigrateDrop)
	old := mustCreate(t, o, m, map[string]any{"title": "old", "color": "dropped"})
	if _, ok := old["color"]; ok {
		t.Fatalf("schemaful model stored an undeclared key: %v", old)
	}

	// safe leaves the table alone: the column is missing, so writes of
	// undeclared keys fail rather than lose them.
	o, m = open(true, model.MigrateSafe)
	if _, _, err := o.Create(t.Context(), m, map[string]any{"title": "x", "color": "red"}); err == nil {
		t.Errorf("Create with an undeclared key on a safe table without %s = nil error, want one", orm.ExtraColumn)
	}

	// alter adds the column and keeps the rows.
	o, m = open(true, model.MigrateAlter)
	rec := mustCreate(t, o, m, map[string]any{"title": "new", "color": "red"})
	if rec["color"] != "red" {
		t.Errorf("Create after alter = %v, want color red", rec)
	}
	got, err := o.FindByPK(t.Context(), m, old["id"], nil)
	if err != nil || got["title"] != "old" {
		t.Errorf("old row after alter = %v, %v; want it kept", got, err)
	}
}
