package orm_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// TestReplaceThenFind checks that ReplaceThenFind answers what Replace then
// FindByPK would, on both sides of both kinds of collection, whether the
// record was read with the change (PostgreSQL) or after it.
func TestReplaceThenFind(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		o, m := newORMOn(t, db)
		ctx := t.Context()
		ann := mustCreate(t, o, m["owner"], map[string]any{"name": "Ann"})
		var pets []any
		for _, name := range []string{"Rex", "Tom", "Kit", "Bo"} {
			pets = append(pets, mustCreate(t, o, m["pet"], map[string]any{"name": name, "owner": ann["id"]})["id"])
		}
		red := mustCreate(t, o, m["tag"], map[string]any{"label": "red", "pets": pets[:2]})
		bob := mustCreate(t, o, m["owner"], map[string]any{"name": "Bob"})
		sub := &criteria.Criteria{Limit: 2, Sort: []criteria.Sort{{Attr: "name"}}, Omit: []string{"createdAt"}}
		// Read from the locks on PostgreSQL: every column, in key order.
		firstTwo := &criteria.Criteria{Limit: 2, Sort: []criteria.Sort{{Attr: "id"}}, Omit: []string{"name"}}
		tests := []struct {
			name   string
			model  *model.Model
			alias  string
			parent any
			ids    []any
			pops   []orm.Populate
		}{
			{"many-to-many", m["tag"], "pets", red["id"], []any{pets[2], pets[0]}, []orm.Populate{{Attr: "pets"}}},
			{"many-to-many with criteria", m["tag"], "pets", red["id"], []any{pets[1], pets[2], pets[3]}, []orm.Populate{{Attr: "pets", Criteria: sub}}},
			{"many-to-many, the first two by key", m["tag"], "pets", red["id"], []any{pets[3], pets[0], pets[2]}, []orm.Populate{{Attr: "pets", Criteria: firstTwo}}},
			{"many-to-many, emptied", m["tag"], "pets", red["id"], nil, []orm.Populate{{Attr: "pets"}}},
			{"one-to-many", m["owner"], "pets", bob["id"], []any{pets[0], pets[1]}, []orm.Populate{{Attr: "pets"}}},
			{"one-to-many, no population", m["owner"], "pets", bob["id"], []any{pets[1]}, nil},
			{"one-to-many, taken back", m["owner"], "pets", ann["id"], []any{pets[3], pets[1], pets[0]}, []orm.Populate{{Attr: "pets", Criteria: firstTwo}}},
		}
		for _, tt := range tests {
			changes, got, err := o.ReplaceThenFind(ctx, tt.model, tt.alias, tt.parent, tt.ids, tt.pops)
			if err != nil {
				t.Fatalf("%s: ReplaceThenFind = %v", tt.name, err)
			}
			if len(changes) == 0 {
				t.Errorf("%s: no changes reported", tt.name)
			}
			want, err := o.FindByPK(ctx, tt.model, tt.parent, tt.pops)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: answer differs from FindByPK (-want +got):\n%s", tt.name, d)
			}
		}
		_, rec, err := o.ReplaceThenFind(ctx, m["tag"], "pets", 999.0, []any{pets[0]}, []orm.Populate{{Attr: "pets"}})
		if me, ok := model.AsError(err); !ok || me.Kind != model.NotFound || rec != nil {
			t.Errorf("ReplaceThenFind(missing parent) = %v, %v; want a NotFound error", rec, err)
		}
	})
}
