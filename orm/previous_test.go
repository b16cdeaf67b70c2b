package orm_test

import (
	"testing"

	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// TestWithPrevious: update and destroy hand back the record as it was,
// populated, read before the change: the singular targets the keys pointed
// at before, and the collections a cascading destroy then empties.
func TestWithPrevious(t *testing.T) {
	onEachStore(t, func(t *testing.T, o *orm.ORM, m map[string]*model.Model) {
		ctx := t.Context()
		ann := mustCreate(t, o, m["owner"], map[string]any{"name": "ann"})
		bob := mustCreate(t, o, m["owner"], map[string]any{"name": "bob"})
		red := mustCreate(t, o, m["tag"], map[string]any{"label": "red"})
		rex := mustCreate(t, o, m["pet"], map[string]any{"name": "rex", "owner": ann["id"], "tags": []any{red["id"]}})
		petPops := []orm.Populate{{Attr: "owner"}, {Attr: "tags"}}

		prev, after, ch, err := o.UpdateWithPrevious(ctx, m["pet"], rex["id"], map[string]any{"owner": bob["id"]}, petPops)
		if err != nil {
			t.Fatal(err)
		}
		owner, _ := prev["owner"].(model.Record)
		tags, _ := prev["tags"].([]model.Record)
		if owner["name"] != "ann" || len(tags) != 1 || tags[0]["label"] != "red" || prev["name"] != "rex" {
			t.Errorf("UpdateWithPrevious previous = %v, want rex with owner ann and tag red", prev)
		}
		if after["owner"] != bob["id"] {
			t.Errorf("UpdateWithPrevious after = %v, want owner %v", after, bob["id"])
		}
		// The changes still come from the keys, not from the populated copy.
		wantChanges(t, "update with previous", ch, "pet#1.owner=2", "owner#1.pets -[1]", "owner#2.pets +[1]")

		prev, _, _, err = o.UpdateWithPrevious(ctx, m["pet"], 99, map[string]any{"name": "x"}, petPops)
		if err != nil || prev != nil {
			t.Errorf("UpdateWithPrevious of a missing record = %v, %v; want nil, nil", prev, err)
		}

		// bob cascades on destroy: his pets are read before they are unlinked.
		prev, ch, err = o.DestroyWithPrevious(ctx, m["owner"], bob["id"], []orm.Populate{{Attr: "pets"}})
		if err != nil {
			t.Fatal(err)
		}
		pets, _ := prev["pets"].([]model.Record)
		if prev["name"] != "bob" || len(pets) != 1 || pets[0]["name"] != "rex" {
			t.Errorf("DestroyWithPrevious previous = %v, want bob with pet rex", prev)
		}
		wantChanges(t, "destroy with previous", ch, "pet#1.owner=<nil>")
	})
}
