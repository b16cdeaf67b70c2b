package orm_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// TestThroughCollections checks a collection stored through an explicit
// join model: add, remove and replace from either side write join records
// the join model itself reads back, and both sides see them at once.
func TestThroughCollections(t *testing.T) {
	onEachAdapter(t, throughCollections)
}

func throughCollections(t *testing.T, db datastore.Adapter) {
	t.Cleanup(func() { db.Close() })
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}
	defs := map[string]map[string]any{
		"member": {"attributes": map[string]any{"name": "string",
			"clubs": map[string]any{"collection": "club", "via": "member", "through": "membership"}}},
		"club": {"attributes": map[string]any{"title": "string",
			"members": map[string]any{"collection": "member", "via": "club", "through": "membership"}}},
		"membership": {"attributes": map[string]any{
			"member": map[string]any{"model": "member"}, "club": map[string]any{"model": "club"}}},
	}
	m := map[string]*model.Model{}
	var list []*model.Model
	for id, def := range defs {
		mod, err := model.Parse(id, id+".yaml", def, defaults)
		if err != nil {
			t.Fatal(err)
		}
		m[id] = mod
		list = append(list, mod)
	}
	schema, err := model.NewSchema(list)
	if err != nil {
		t.Fatal(err)
	}
	o, err := orm.New(schema, map[string]datastore.Adapter{"default": db})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := o.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ann := mustCreate(t, o, m["member"], map[string]any{"name": "Ann"})["id"]
	bob := mustCreate(t, o, m["member"], map[string]any{"name": "Bob"})["id"]
	chess := mustCreate(t, o, m["club"], map[string]any{"title": "chess"})["id"]
	golf := mustCreate(t, o, m["club"], map[string]any{"title": "golf"})["id"]

	ids := func(rec model.Record, attr string) []any {
		var out []any
		for _, r := range rec[attr].([]model.Record) {
			out = append(out, r["id"])
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		return out
	}
	get := func(mod string, id any, attr string) []any {
		t.Helper()
		recs, err := o.Find(ctx, m[mod], &criteria.Criteria{
			Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: id}, Limit: 1,
		}, []orm.Populate{{Attr: attr}})
		if err != nil || len(recs) != 1 {
			t.Fatalf("find %s %v: %v (%d records)", mod, id, err, len(recs))
		}
		return ids(recs[0], attr)
	}
	joins := func() int {
		t.Helper()
		n, err := o.Count(ctx, m["membership"], nil)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}

	if _, err := o.AddTo(ctx, m["member"], "clubs", ann, chess); err != nil {
		t.Fatal(err)
	}
	if _, err := o.AddTo(ctx, m["member"], "clubs", ann, chess); err != nil {
		t.Fatal(err)
	}
	if got := get("member", ann, "clubs"); !equalIDs(got, []any{chess}) {
		t.Errorf("ann's clubs after add = %v, want [%v]", got, chess)
	}
	if got := get("club", chess, "members"); !equalIDs(got, []any{ann}) {
		t.Errorf("chess members after add from the other side = %v, want [%v]", got, ann)
	}
	if n := joins(); n != 1 {
		t.Errorf("membership records after adding twice = %d, want 1", n)
	}
	if _, err := o.Replace(ctx, m["club"], "members", golf, []any{ann, bob}); err != nil {
		t.Fatal(err)
	}
	if got := get("member", ann, "clubs"); !equalIDs(got, []any{chess, golf}) {
		t.Errorf("ann's clubs after replace = %v, want [%v %v]", got, chess, golf)
	}
	if _, err := o.RemoveFrom(ctx, m["member"], "clubs", ann, golf); err != nil {
		t.Fatal(err)
	}
	if got := get("club", golf, "members"); !equalIDs(got, []any{bob}) {
		t.Errorf("golf members after remove = %v, want [%v]", got, bob)
	}
	if n := joins(); n != 2 {
		t.Errorf("membership records = %d, want 2", n)
	}
}

// equalIDs compares keys whatever numeric type the engine read them back as.
func equalIDs(got, want []any) bool {
	return fmt.Sprint(got) == fmt.Sprint(want)
}
