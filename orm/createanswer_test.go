package orm_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// TestCreateAnswer checks that the answer CreateAnswer reads with the
// insert is the record Create then Populate give, that it leaves the
// stored record unpopulated, and that a missing owner is refused as Create
// refuses it.
func TestCreateAnswer(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		o, m := newORMOn(t, db)
		ctx := t.Context()
		ann := mustCreate(t, o, m["owner"], map[string]any{"name": "Ann"})
		pops := []orm.Populate{{Attr: "owner"}, {Attr: "tags"}}
		rec, answer, rest, _, err := o.CreateAnswer(ctx, m["pet"], map[string]any{"name": "Rex", "owner": ann["id"]}, pops)
		if err != nil {
			t.Fatal(err)
		}
		if rec["owner"] != ann["id"] {
			t.Errorf("stored record's owner = %v, want the key %v", rec["owner"], ann["id"])
		}
		if _, ok := db.(datastore.GuardedCreator); ok && (len(rest) != 1 || rest[0].Attr != "tags") {
			t.Errorf("populates left = %v, want tags only: the owner is read with the insert", rest)
		}
		if err := o.Populate(ctx, m["pet"], []model.Record{answer}, rest); err != nil {
			t.Fatal(err)
		}
		want, err := o.FindByPK(ctx, m["pet"], rec["id"], pops)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(map[string]any(want), map[string]any(answer)); d != "" {
			t.Errorf("CreateAnswer's answer differs from a find (-want +got):\n%s", d)
		}

		_, _, _, _, gotErr := o.CreateAnswer(ctx, m["pet"], map[string]any{"name": "Tom", "owner": 999.0}, pops)
		_, _, wantErr := o.Create(ctx, m["pet"], map[string]any{"name": "Tom", "owner": 999.0})
		if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() {
			t.Errorf("CreateAnswer(missing owner) = %v, Create = %v; want the same refusal", gotErr, wantErr)
		}
		n, err := o.Count(ctx, m["pet"], nil)
		if err != nil || n != 1 {
			t.Errorf("pets after the refusals = %d, %v; want 1", n, err)
		}
	})
}

// deletingGuards is an adapter whose guarded creates lose the race that
// an engine reading the guards' rows after the insert can lose: the row
// pointed at is deleted between the insert and that read, so the key
// stays where the row was asked for (datastore.Guard.Column).
type deletingGuards struct {
	datastore.Adapter
	gc datastore.GuardedCreator
}

func (d deletingGuards) CreateGuarded(ctx context.Context, t *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	plain := make([]datastore.Guard, len(guards))
	for i, g := range guards {
		plain[i] = datastore.Guard{Table: g.Table, Key: g.Key}
	}
	row, err := d.gc.CreateGuarded(ctx, t, rec, plain)
	if err != nil || row == nil {
		return row, err
	}
	for _, g := range guards {
		if g.Column == "" {
			continue
		}
		if _, err := d.Destroy(ctx, &datastore.Query{Table: g.Table, Limit: criteria.Unlimited,
			Where: &criteria.Cmp{Attr: g.Table.PrimaryKey, Op: criteria.Eq, Value: g.Key}}); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// TestCreateAnswerOwnerDeletedMeanwhile checks that a create whose owner
// is deleted between the insert and the read of it for the answer
// succeeds and leaves the owner to Populate, which finds none.
func TestCreateAnswerOwnerDeletedMeanwhile(t *testing.T) {
	db := memSQLite(t)
	o, m := newORMOn(t, deletingGuards{Adapter: db, gc: db})
	ctx := t.Context()
	ann := mustCreate(t, o, m["owner"], map[string]any{"name": "Ann"})
	pops := []orm.Populate{{Attr: "owner"}}
	rec, answer, rest, _, err := o.CreateAnswer(ctx, m["pet"], map[string]any{"name": "Rex", "owner": ann["id"]}, pops)
	if err != nil {
		t.Fatalf("CreateAnswer: %v, want the created record", err)
	}
	if rec["owner"] != ann["id"] {
		t.Errorf("stored record's owner = %v, want the key %v", rec["owner"], ann["id"])
	}
	if len(rest) != 1 || rest[0].Attr != "owner" {
		t.Fatalf("populates left = %v, want the owner", rest)
	}
	if err := o.Populate(ctx, m["pet"], []model.Record{answer}, rest); err != nil {
		t.Fatal(err)
	}
	if answer["owner"] != nil {
		t.Errorf("answer's owner = %v, want none: it was deleted", answer["owner"])
	}
}
