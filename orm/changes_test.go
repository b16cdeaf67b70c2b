package orm_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// onEachStore runs fn with the test models on SQLite and on PostgreSQL
// (see internal/testenv): collection changes read the rows they lock on an
// engine that locks, and read them separately on one that does not.
func onEachStore(t *testing.T, fn func(t *testing.T, o *orm.ORM, m map[string]*model.Model)) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		o, m := newORMOn(t, db)
		fn(t, o, m)
	})
}

// describe renders changes as "model#id.attr +[added] -[removed]" for
// collections and "model#id.attr=key" for singular keys.
func describe(ch orm.Changes) []string {
	var out []string
	for _, l := range ch {
		s := fmt.Sprintf("%s#%v.%s", l.Model.Identity, l.ID, l.Attr)
		if !l.Plural() {
			out = append(out, fmt.Sprintf("%s=%v", s, l.Key))
			continue
		}
		if len(l.Added) > 0 {
			s += fmt.Sprintf(" +%v", l.Added)
		}
		if len(l.Removed) > 0 {
			s += fmt.Sprintf(" -%v", l.Removed)
		}
		out = append(out, s)
	}
	return out
}

func wantChanges(t *testing.T, what string, got orm.Changes, want ...string) {
	t.Helper()
	if d := describe(got); !slices.Equal(d, want) {
		t.Errorf("%s: changes\n got %q\nwant %q", what, d, want)
	}
}

func TestChangesReportEverySide(t *testing.T) {
	onEachStore(t, changesReportEverySide)
}

func changesReportEverySide(t *testing.T, o *orm.ORM, m map[string]*model.Model) {
	ctx := t.Context()
	ann := mustCreate(t, o, m["owner"], map[string]any{"name": "ann"})  // 1
	bob := mustCreate(t, o, m["owner"], map[string]any{"name": "bob"})  // 2
	rex := mustCreate(t, o, m["pet"], map[string]any{"name": "rex"})    // 1
	fido := mustCreate(t, o, m["pet"], map[string]any{"name": "fido"})  // 2
	red := mustCreate(t, o, m["tag"], map[string]any{"label": "red"})   // 1
	blue := mustCreate(t, o, m["tag"], map[string]any{"label": "blue"}) // 2
	_ = blue

	// A singular key on create: the parent's collection gains the record.
	rec, ch, err := o.Create(ctx, m["pet"], map[string]any{"name": "tom", "owner": ann["id"], "tags": []any{red["id"], "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if rec["id"] != 3.0 {
		t.Fatalf("tom = %v", rec)
	}
	wantChanges(t, "create pet", ch, "pet#3.owner=1", "owner#1.pets +[3]", "pet#3.tags +[1]", "tag#1.pets +[3]")

	// Children taken from another parent on create.
	_, ch, err = o.Create(ctx, m["owner"], map[string]any{"name": "cy", "pets": []any{rex["id"], 3}})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "create owner", ch, "owner#3.pets +[1 3]", "pet#1.owner=3", "pet#3.owner=3", "owner#1.pets -[3]")

	// A key moving from one parent to another.
	_, _, ch, err = o.Update(ctx, m["pet"], rex["id"], map[string]any{"owner": bob["id"]})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "update pet", ch, "pet#1.owner=2", "owner#3.pets -[1]", "owner#2.pets +[1]")
	_, _, ch, err = o.Update(ctx, m["pet"], rex["id"], map[string]any{"name": "rex2", "owner": bob["id"]})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "update without key change", ch)

	// Replace: members in neither list stay out of the report; stolen-from parents lose theirs.
	ch, err = o.Replace(ctx, m["owner"], "pets", ann["id"], []any{rex["id"], fido["id"]})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace pets", ch, "owner#1.pets +[1 2]", "pet#1.owner=1", "pet#2.owner=1", "owner#2.pets -[1]")
	ch, err = o.Replace(ctx, m["owner"], "pets", ann["id"], []any{fido["id"], 3})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace pets again", ch, "owner#1.pets +[3] -[1]", "pet#3.owner=1", "pet#1.owner=<nil>", "owner#3.pets -[3]")
	ch, err = o.Replace(ctx, m["pet"], "tags", fido["id"], []any{red["id"], blue["id"]})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace tags", ch, "pet#2.tags +[1 2]", "tag#1.pets +[2]", "tag#2.pets +[2]")

	// Add and remove that change nothing report nothing.
	ch, err = o.AddTo(ctx, m["pet"], "tags", fido["id"], red["id"])
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "add member again", ch)
	ch, err = o.RemoveFrom(ctx, m["pet"], "tags", rex["id"], red["id"])
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "remove non-member", ch)
	ch, err = o.RemoveFrom(ctx, m["pet"], "tags", fido["id"], "2")
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "remove", ch, "pet#2.tags -[2]", "tag#2.pets -[2]")

	// Destroy: every side that pointed at the record, from the stored links.
	_, ch, err = o.Destroy(ctx, m["pet"], fido["id"])
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "destroy pet", ch, "owner#1.pets -[2]", "tag#1.pets -[2]")
	_, ch, err = o.Destroy(ctx, m["owner"], ann["id"])
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "destroy owner", ch, "pet#3.owner=<nil>")

	// A failed write reports nothing.
	_, ch, err = o.Create(ctx, m["pet"], map[string]any{"name": "x", "owner": 99})
	if model.KindOf(err) != model.Invalid || ch != nil {
		t.Errorf("create with a missing owner: %v, %v", ch, err)
	}
}

// A child destroyed without cascadeOnDestroy leaves its join rows behind
// (as in Sails); its destroy already reported it gone from each parent, so
// a later replace drops those rows without reporting the child again.
func TestReplaceDropsRowsOfDestroyedChildrenQuietly(t *testing.T) {
	onEachStore(t, replaceDropsRowsOfDestroyedChildrenQuietly)
}

func replaceDropsRowsOfDestroyedChildrenQuietly(t *testing.T, o *orm.ORM, m map[string]*model.Model) {
	ctx := t.Context()
	red := mustCreate(t, o, m["tag"], map[string]any{"label": "red"})
	rex := mustCreate(t, o, m["pet"], map[string]any{"name": "rex", "tags": []any{red["id"]}})
	fido := mustCreate(t, o, m["pet"], map[string]any{"name": "fido", "tags": []any{red["id"]}})
	_, ch, err := o.Destroy(ctx, m["pet"], rex["id"]) // pets do not cascade
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "destroy pet", ch, "tag#1.pets -[1]")

	ch, err = o.Replace(ctx, m["tag"], "pets", red["id"], []any{fido["id"]})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace keeping the live member", ch)
	ch, err = o.Replace(ctx, m["tag"], "pets", red["id"], []any{})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace emptying", ch, "tag#1.pets -[2]", "pet#2.tags -[1]")

	// The row rex left was deleted with the first replace.
	if n, err := o.Count(ctx, m["tag"].Attributes["pets"].Assoc.Join.Model, nil); err != nil || n != 0 {
		t.Errorf("join rows left: %d (%v)", n, err)
	}
}

func TestReplaceRefusals(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
			"id": map[string]any{"type": "number", "autoIncrement": true},
		}}
		boss, err := model.Parse("boss", "boss.yaml", map[string]any{"attributes": map[string]any{
			"staff": map[string]any{"collection": "hand", "via": "boss"}}}, defaults)
		if err != nil {
			t.Fatal(err)
		}
		hand, err := model.Parse("hand", "hand.yaml", map[string]any{"attributes": map[string]any{
			"boss": map[string]any{"model": "boss", "required": true}}}, defaults)
		if err != nil {
			t.Fatal(err)
		}
		o := migrated(t, db, boss, hand)
		replaceRefusals(t, o, boss, hand)
	})
}

// replaceRefusals checks that a replace removing members whose key is
// required, or naming a missing parent or child, changes nothing and says
// why, and that a valid one reports the children it takes from another
// parent.
func replaceRefusals(t *testing.T, o *orm.ORM, boss, hand *model.Model) {
	ctx := t.Context()
	mustCreate(t, o, boss, map[string]any{}) // 1
	mustCreate(t, o, boss, map[string]any{}) // 2
	mustCreate(t, o, hand, map[string]any{"boss": 1.0})
	mustCreate(t, o, hand, map[string]any{"boss": 1.0})
	mustCreate(t, o, hand, map[string]any{"boss": 2.0})
	refused := []struct {
		parent any
		ids    []any
		msg    string
	}{
		{1.0, []any{1.0, 3.0}, "Cannot remove 2 from `staff`: their `boss` is required."},
		{1.0, []any{}, "Cannot remove among 1, 2 from `staff`: their `boss` is required."},
		{1.0, []any{1.0, 2.0, 9.0}, "Could not use specified `staff`: no hand record has the primary key 9."},
		{9.0, []any{1.0}, "no boss record has the primary key 9"},
	}
	for _, r := range refused {
		_, err := o.Replace(ctx, boss, "staff", r.parent, r.ids)
		var me *model.Error
		if !errors.As(err, &me) || me.Msg != r.msg {
			t.Errorf("Replace(%v, %v) = %v, want %q", r.parent, r.ids, err, r.msg)
		}
	}
	recs, err := o.Find(ctx, hand, &criteria.Criteria{Limit: criteria.Unlimited}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []any{1.0, 1.0, 2.0} {
		if recs[i]["boss"] != want {
			t.Errorf("hand %v has boss %v after refused replaces, want %v", recs[i]["id"], recs[i]["boss"], want)
		}
	}
	ch, err := o.Replace(ctx, boss, "staff", 1.0, []any{3.0, 2.0, 1.0})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges(t, "replace taking a hand", ch, "boss#1.staff +[3]", "hand#3.boss=1", "boss#2.staff -[3]")
}
