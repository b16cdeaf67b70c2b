package orm_test

import (
	"context"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// newORM builds an ORM over a fresh SQLite database with owners, pets
// (one-to-many) and tags (many-to-many with pets); owners cascade.
func newORM(t *testing.T) (*orm.ORM, map[string]*model.Model) {
	t.Helper()
	db := memSQLite(t)
	return newORMOn(t, db)
}

// newORMOn is newORM over the given adapter, which it closes at cleanup.
func newORMOn(t *testing.T, db datastore.Adapter) (*orm.ORM, map[string]*model.Model) {
	t.Helper()
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}
	defs := map[string]map[string]any{
		"owner": {"cascadeOnDestroy": true, "attributes": map[string]any{
			"name": "string", "pets": map[string]any{"collection": "pet", "via": "owner"}}},
		"pet": {"attributes": map[string]any{
			"name": "string", "owner": map[string]any{"model": "owner"},
			"tags": map[string]any{"collection": "tag", "via": "pets"}}},
		"tag": {"cascadeOnDestroy": true, "attributes": map[string]any{
			"label": "string", "pets": map[string]any{"collection": "pet", "via": "tags"}}},
	}
	models := map[string]*model.Model{}
	var list []*model.Model
	for id, def := range defs {
		m, err := model.Parse(id, id+".yaml", def, defaults)
		if err != nil {
			t.Fatal(err)
		}
		models[id] = m
		list = append(list, m)
	}
	return migrated(t, db, list...), models
}

// migrated builds an ORM of models over db as the default datastore,
// migrates it, and closes db when the test ends.
func migrated(t *testing.T, db datastore.Adapter, models ...*model.Model) *orm.ORM {
	t.Helper()
	t.Cleanup(func() { db.Close() })
	return remigrated(t, db, models...)
}

// remigrated is migrated for a db that is closed elsewhere: a second ORM
// over the same tables, as after an app restart with changed models.
func remigrated(t *testing.T, db datastore.Adapter, models ...*model.Model) *orm.ORM {
	t.Helper()
	schema, err := model.NewSchema(models)
	if err != nil {
		t.Fatal(err)
	}
	o, err := orm.New(schema, map[string]datastore.Adapter{"default": db})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return o
}

// onEachAdapter runs fn on a fresh SQLite database, on a PostgreSQL
// schema of its own and on a MySQL database of its own (internal/testenv: skipped when PostgreSQL is out of
// reach, failed under CI=true). fn owns the adapter and closes it.
func onEachAdapter(t *testing.T, fn func(t *testing.T, db datastore.Adapter)) {
	t.Run("sqlite", func(t *testing.T) {
		db := memSQLite(t)
		fn(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.Postgres(t)})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, db)
	})
	t.Run("mysql", func(t *testing.T) {
		db, err := mysql.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.MySQLDatabase(t)})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, db)
	})
}

func mustCreate(t *testing.T, o *orm.ORM, m *model.Model, in map[string]any) model.Record {
	t.Helper()
	rec, _, err := o.Create(context.Background(), m, in)
	if err != nil {
		t.Fatalf("Create %s %v: %v", m.Identity, in, err)
	}
	return rec
}

func TestPopulateAndCascade(t *testing.T) {
	o, m := newORM(t)
	ctx := t.Context()
	ann := mustCreate(t, o, m["owner"], map[string]any{"name": "Ann"})
	red := mustCreate(t, o, m["tag"], map[string]any{"label": "red"})
	blue := mustCreate(t, o, m["tag"], map[string]any{"label": "blue"})
	rex := mustCreate(t, o, m["pet"], map[string]any{"name": "Rex", "owner": ann["id"], "tags": []any{red["id"], blue["id"]}})
	mustCreate(t, o, m["pet"], map[string]any{"name": "Tom", "owner": ann["id"], "tags": []any{red["id"]}})

	all := &criteria.Criteria{Limit: criteria.Unlimited}
	tags, err := o.Find(ctx, m["tag"], all, []orm.Populate{{Attr: "pets"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tags[0]["pets"].([]model.Record)); got != 2 {
		t.Errorf("red has %d pets, want 2 (many-to-many seen from the other side)", got)
	}
	limited := &criteria.Criteria{Limit: 1, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}
	owners, err := o.Find(ctx, m["owner"], all, []orm.Populate{{Attr: "pets", Criteria: limited}})
	if err != nil {
		t.Fatal(err)
	}
	pets := owners[0]["pets"].([]model.Record)
	if len(pets) != 1 || pets[0]["name"] != "Tom" {
		t.Errorf("owner pets with limit 1 sorted by name DESC = %v, want [Tom]", pets)
	}

	if _, _, err := o.Destroy(ctx, m["tag"], red["id"]); err != nil {
		t.Fatal(err)
	}
	got, err := o.FindByPK(ctx, m["pet"], rex["id"], []orm.Populate{{Attr: "tags"}})
	if err != nil {
		t.Fatal(err)
	}
	if tags := got["tags"].([]model.Record); len(tags) != 1 || tags[0]["label"] != "blue" {
		t.Errorf("after destroying red (cascade), Rex's tags = %v, want [blue]", tags)
	}
	if _, _, err := o.Destroy(ctx, m["owner"], ann["id"]); err != nil {
		t.Fatal(err)
	}
	got, err = o.FindByPK(ctx, m["pet"], rex["id"], nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["owner"] != nil {
		t.Errorf("after destroying the owner (cascade), Rex's owner = %v, want null", got["owner"])
	}
}

func TestCreateRefusesMissingAssociatedRecords(t *testing.T) {
	o, m := newORM(t)
	for _, in := range []map[string]any{
		{"name": "Rex", "owner": 42.0},
		{"name": "Rex", "tags": []any{7.0}},
	} {
		_, _, err := o.Create(t.Context(), m["pet"], in)
		if model.KindOf(err) != model.Invalid {
			t.Errorf("Create pet %v = %v, want an Invalid error", in, err)
		}
	}
	n, err := o.Count(t.Context(), m["pet"], nil)
	if err != nil || n != 0 {
		t.Errorf("pets after refused creates = %d (%v), want 0", n, err)
	}
}

// Records read back under their attribute names whatever the columns are
// called, including attributes named like another attribute's column.
func TestColumnNamesReadBack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		attrs map[string]any
	}{
		{"renamed", map[string]any{
			"a": map[string]any{"type": "string", "columnName": "a_col"},
			"b": map[string]any{"type": "number", "columnName": "b_col"}}},
		{"swapped", map[string]any{
			"a": map[string]any{"type": "string", "columnName": "b"},
			"b": map[string]any{"type": "number", "columnName": "a"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := model.Parse("thing", "thing.yaml", map[string]any{"migrate": "drop", "attributes": tt.attrs},
				map[string]any{"attributes": map[string]any{"id": map[string]any{"type": "number", "autoIncrement": true}}})
			if err != nil {
				t.Fatal(err)
			}
			db := memSQLite(t)
			o := migrated(t, db, m)
			want := model.Record{"id": 1.0, "a": "x", "b": 2.0}
			created := mustCreate(t, o, m, map[string]any{"a": "x", "b": 2.0})
			found, err := o.FindByPK(t.Context(), m, 1.0, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []model.Record{created, found} {
				if len(got) != len(want) || got["id"] != want["id"] || got["a"] != want["a"] || got["b"] != want["b"] {
					t.Errorf("record = %v, want %v", got, want)
				}
			}
		})
	}
}

// memSQLite opens a fresh in-memory SQLite database, failing tb when it
// cannot.
func memSQLite(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(tb.Context(), datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}
