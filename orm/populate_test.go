package orm_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// linksOnly hides an adapter's optional capabilities (ThroughFinder), so the
// ORM reads many-to-many collections with a query for the join rows and one
// for the children.
type linksOnly struct{ datastore.Adapter }

func (l linksOnly) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	return l.Adapter.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return fn(ctx, linksOnly{tx})
	})
}

// TestPopulateThroughJoin checks that many-to-many population in one joined
// query (datastore.ThroughFinder) answers exactly what reading the join
// rows and then the children answers, for every kind of subcriteria, on
// the plain path and on the per-parent window path.
func TestPopulateThroughJoin(t *testing.T) {
	onEachAdapter(t, populateThroughJoin)
}

func populateThroughJoin(t *testing.T, db datastore.Adapter) {
	joined, m := newORMOn(t, db)
	if _, ok := db.(datastore.ThroughFinder); !ok {
		t.Fatalf("%T does not implement datastore.ThroughFinder", db)
	}
	links, err := orm.New(joined.Schema(), map[string]datastore.Adapter{"default": linksOnly{db}})
	if err != nil {
		t.Fatal(err)
	}
	// Tag i holds pets i..i+5 (of 8), so pets have several tags; tag 4 has
	// none; pet names repeat, so sorts need the key to break ties.
	var tags []any
	for i := range 5 {
		tags = append(tags, mustCreate(t, joined, m["tag"], map[string]any{"label": fmt.Sprint("tag", i)})["id"])
	}
	for p := range 8 {
		var mine []any
		for i := range 4 {
			if p >= i && p < i+6 {
				mine = append(mine, tags[i])
			}
		}
		mustCreate(t, joined, m["pet"], map[string]any{"name": fmt.Sprint("pet", p%3), "tags": mine})
	}
	for _, tt := range []struct {
		name string
		c    *criteria.Criteria
	}{
		{"default", nil},
		{"limit (plain query)", &criteria.Criteria{Limit: 30}},
		{"limit (window)", &criteria.Criteria{Limit: 2}},
		{"skip and limit", &criteria.Criteria{Limit: 2, Skip: 1}},
		{"skip only", &criteria.Criteria{Limit: criteria.Unlimited, Skip: 4}},
		{"sort", &criteria.Criteria{Limit: 3, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{"where", &criteria.Criteria{Limit: 30, Where: &criteria.Cmp{Attr: "name", Op: criteria.In, Value: []any{"pet0", "pet2"}}}},
		{"select", &criteria.Criteria{Limit: 30, Select: []string{"name"}}},
		{"omit", &criteria.Criteria{Limit: 30, Omit: []string{"name", "owner"}}},
		{"noop", &criteria.Criteria{Noop: true}},
	} {
		pops := []orm.Populate{{Attr: "pets", Criteria: tt.c}}
		all := &criteria.Criteria{Limit: criteria.Unlimited}
		want, err := links.Find(t.Context(), m["tag"], all, pops)
		if err != nil {
			t.Fatalf("%s: Find without the join: %v", tt.name, err)
		}
		got, err := joined.Find(t.Context(), m["tag"], all, pops)
		if err != nil {
			t.Fatalf("%s: Find with the join: %v", tt.name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: population with the join differs (-links +join):\n%s", tt.name, diff)
		}
		if len(got) != 5 || len(got[0]["pets"].([]model.Record)) == 0 && !tt.c.Noop && tt.name != "where" {
			t.Errorf("%s: tags = %v, want 5 tags, the first with pets", tt.name, got)
		}
	}
	// Inside a transaction the join reads the transaction's own links.
	err = joined.InTx(t.Context(), "default", func(ctx context.Context) error {
		if _, err := joined.Replace(ctx, m["tag"], "pets", tags[4], []any{1.0}); err != nil {
			return err
		}
		got, err := joined.FindByPK(ctx, m["tag"], tags[4], []orm.Populate{{Attr: "pets"}})
		if err != nil {
			return err
		}
		if pets := got["pets"].([]model.Record); len(pets) != 1 {
			t.Errorf("tag4's pets inside the transaction = %v, want 1 pet", pets)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPopulateThroughJoinSchemaless checks the joined query on a schemaless
// child: its undeclared keys come back, and filters and sorts on them work
// with the join table beside it.
func TestPopulateThroughJoinSchemaless(t *testing.T) {
	onEachAdapter(t, populateThroughJoinSchemaless)
}

func populateThroughJoinSchemaless(t *testing.T, db datastore.Adapter) {
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}
	note, err := model.Parse("note", "note.yaml", map[string]any{"schema": false, "attributes": map[string]any{
		"title": "string", "labels": map[string]any{"collection": "label", "via": "notes"}}}, defaults)
	if err != nil {
		t.Fatal(err)
	}
	label, err := model.Parse("label", "label.yaml", map[string]any{"attributes": map[string]any{
		"name": "string", "notes": map[string]any{"collection": "note", "via": "labels"}}}, defaults)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := model.NewSchema([]*model.Model{note, label})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	joined, err := orm.New(schema, map[string]datastore.Adapter{"default": db})
	if err != nil {
		t.Fatal(err)
	}
	if err := joined.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	links, err := orm.New(schema, map[string]datastore.Adapter{"default": linksOnly{db}})
	if err != nil {
		t.Fatal(err)
	}
	l1 := mustCreate(t, joined, label, map[string]any{"name": "one"})["id"]
	l2 := mustCreate(t, joined, label, map[string]any{"name": "two"})["id"]
	for i, color := range []string{"red", "blue", "red", "green", "red"} {
		mustCreate(t, joined, note, map[string]any{"title": fmt.Sprint("n", i), "color": color, "size": float64(i % 3),
			"labels": []any{l1, l2}[:1+i%2]})
	}
	for _, raw := range []map[string]any{
		{},
		{"where": map[string]any{"color": "red"}, "sort": "size DESC"},
		{"where": map[string]any{"size": map[string]any{">": 0.0}}, "limit": 1.0, "sort": "color ASC"},
	} {
		c, err := criteria.Normalize(raw, note)
		if err != nil {
			t.Fatalf("Normalize(%v): %v", raw, err)
		}
		pops := []orm.Populate{{Attr: "notes", Criteria: c}}
		all := &criteria.Criteria{Limit: criteria.Unlimited}
		want, err := links.Find(t.Context(), label, all, pops)
		if err != nil {
			t.Fatalf("%v: Find without the join: %v", raw, err)
		}
		got, err := joined.Find(t.Context(), label, all, pops)
		if err != nil {
			t.Fatalf("%v: Find with the join: %v", raw, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: population with the join differs (-links +join):\n%s", raw, diff)
		}
		if notes := got[0]["notes"].([]model.Record); len(notes) == 0 || notes[0]["color"] == nil {
			t.Errorf("%v: label one's notes = %v, want notes with their undeclared keys", raw, notes)
		}
	}
}
