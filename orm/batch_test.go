package orm_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// oneByOne hides an adapter's datastore.BatchFinder but keeps its
// ThroughFinder, so the ORM sends population reads one by one.
type oneByOne struct{ datastore.Adapter }

func (a oneByOne) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	return a.Adapter.(datastore.ThroughFinder).FindThrough(ctx, q, j)
}

func (a oneByOne) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	return a.Adapter.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return fn(ctx, oneByOne{tx})
	})
}

// calls counts the reads an adapter is asked for: each call is one round
// trip on a networked engine.
type calls struct{ find, through, batch atomic.Int64 }

// counted is an adapter that counts its reads in n and offers
// datastore.BatchFinder even over an engine without it (SQLite), running
// the batch one read after the other, so the ORM's batching is exercised
// on every engine.
type counted struct {
	datastore.Adapter
	n *calls
}

func (a counted) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	a.n.find.Add(1)
	return a.Adapter.Find(ctx, q)
}

func (a counted) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	a.n.through.Add(1)
	return a.Adapter.(datastore.ThroughFinder).FindThrough(ctx, q, j)
}

func (a counted) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	a.n.batch.Add(1)
	if bf, ok := a.Adapter.(datastore.BatchFinder); ok {
		return bf.FindBatch(ctx, reads)
	}
	out := make([][]datastore.Record, len(reads))
	for i, r := range reads {
		var err error
		if r.Through == nil {
			out[i], err = a.Adapter.Find(ctx, r.Query)
		} else {
			out[i], err = a.Adapter.(datastore.ThroughFinder).FindThrough(ctx, r.Query, r.Through)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (a counted) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	return a.Adapter.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return fn(ctx, counted{tx, a.n})
	})
}

func (n *calls) String() string {
	return fmt.Sprintf("%d Find, %d FindThrough, %d FindBatch", n.find.Load(), n.through.Load(), n.batch.Load())
}

func (n *calls) reset() { n.find.Store(0); n.through.Store(0); n.batch.Store(0) }

// TestBatchedPopulation checks that reading a record and its collections
// in one batch (datastore.BatchFinder) answers exactly what reading them
// one by one answers, for FindByPK, FindOne and Find, with every kind of
// subcriteria; that one record reads as it does in a list; and that the
// batch saves the round trips it should.
func TestBatchedPopulation(t *testing.T) {
	onEachAdapter(t, batchedPopulation)
}

func batchedPopulation(t *testing.T, db datastore.Adapter) {
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}
	defs := map[string]map[string]any{
		"owner": {"attributes": map[string]any{
			"name":     "string",
			"pets":     map[string]any{"collection": "pet", "via": "owner"},
			"toys":     map[string]any{"collection": "toy", "via": "owner"},
			"clubs":    map[string]any{"collection": "club", "via": "members"},
			"favorite": map[string]any{"model": "pet"}}},
		"pet": {"attributes": map[string]any{"name": "string", "owner": map[string]any{"model": "owner"}}},
		"toy": {"attributes": map[string]any{"name": "string", "owner": map[string]any{"model": "owner"}}},
		"club": {"attributes": map[string]any{
			"name": "string", "members": map[string]any{"collection": "owner", "via": "clubs"}}},
	}
	m := map[string]*model.Model{}
	var list []*model.Model
	for id, def := range defs {
		mm, err := model.Parse(id, id+".yaml", def, defaults)
		if err != nil {
			t.Fatal(err)
		}
		m[id] = mm
		list = append(list, mm)
	}
	n := &calls{}
	batched := migrated(t, counted{db, n}, list...)
	plain, err := orm.New(batched.Schema(), map[string]datastore.Adapter{"default": oneByOne{db}})
	if err != nil {
		t.Fatal(err)
	}

	// Owner i has 5-i pets and 4-i toys (names repeat, so sorts need the
	// key to break ties); owner 3 has nothing. Clubs hold owners 0..i.
	var owners []any
	for i := range 4 {
		owners = append(owners, mustCreate(t, batched, m["owner"], map[string]any{"name": fmt.Sprint("owner", i)})["id"])
	}
	var firstPet any
	for i, o := range owners {
		for p := range 5 - i - 1 {
			pet := mustCreate(t, batched, m["pet"], map[string]any{"name": fmt.Sprint("pet", p%2), "owner": o})
			if firstPet == nil {
				firstPet = pet["id"]
			}
		}
		for p := range 4 - i - 1 {
			mustCreate(t, batched, m["toy"], map[string]any{"name": fmt.Sprint("toy", p), "owner": o})
		}
	}
	for i := range 3 {
		mustCreate(t, batched, m["club"], map[string]any{"name": fmt.Sprint("club", i), "members": owners[:i+1]})
	}
	if _, _, _, err := batched.Update(t.Context(), m["owner"], owners[0], map[string]any{"favorite": firstPet}); err != nil {
		t.Fatal(err)
	}

	all := []orm.Populate{{Attr: "pets"}, {Attr: "toys"}, {Attr: "clubs"}, {Attr: "favorite"}}
	for _, tt := range []struct {
		name string
		c    *criteria.Criteria
	}{
		{"default", nil},
		{"limit (plain query)", &criteria.Criteria{Limit: 30}},
		{"limit (window)", &criteria.Criteria{Limit: 2}},
		{"skip and limit", &criteria.Criteria{Limit: 2, Skip: 1}},
		{"skip only", &criteria.Criteria{Limit: criteria.Unlimited, Skip: 1}},
		{"sort", &criteria.Criteria{Limit: 3, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{"where", &criteria.Criteria{Limit: 30, Where: &criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "pet1"}}},
		{"select", &criteria.Criteria{Limit: 30, Select: []string{"name"}}},
		{"omit", &criteria.Criteria{Limit: 30, Omit: []string{"name"}}},
		{"noop", &criteria.Criteria{Noop: true}},
	} {
		pops := []orm.Populate{{Attr: "pets", Criteria: tt.c}, {Attr: "toys"}, {Attr: "favorite"}}
		if tt.c == nil || !tt.c.Noop {
			// The clubs' members are owners, so the same subcriteria fit
			// them only where they name no pet attribute.
			pops = append(pops, orm.Populate{Attr: "clubs", Criteria: &criteria.Criteria{Limit: limitOf(tt.c), Skip: skipOf(tt.c)}})
		}
		every := &criteria.Criteria{Limit: criteria.Unlimited}
		list, err := plain.Find(t.Context(), m["owner"], every, pops)
		if err != nil {
			t.Fatalf("%s: Find one by one: %v", tt.name, err)
		}
		got, err := batched.Find(t.Context(), m["owner"], every, pops)
		if err != nil {
			t.Fatalf("%s: Find batched: %v", tt.name, err)
		}
		if diff := cmp.Diff(list, got); diff != "" {
			t.Errorf("%s: Find batched differs (-one by one +batched):\n%s", tt.name, diff)
		}
		// One record reads as it does in the list, where its collections
		// share queries with the other records' (per-parent limits).
		for i, pk := range append(append([]any{}, owners...), 999.0) {
			var want model.Record
			if i < len(list) {
				want = list[i]
			}
			for _, o := range []*orm.ORM{plain, batched} {
				got, err := o.FindByPK(t.Context(), m["owner"], pk, pops)
				if err != nil {
					t.Fatalf("%s: FindByPK(%v): %v", tt.name, pk, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: FindByPK(%v) (batched: %t) differs from the list's record (-list +FindByPK):\n%s",
						tt.name, pk, o == batched, diff)
				}
			}
		}
	}
	if got, err := batched.FindByPK(t.Context(), m["owner"], owners[0], all); err != nil {
		t.Fatal(err)
	} else if len(got["pets"].([]model.Record)) != 4 || len(got["toys"].([]model.Record)) != 3 ||
		len(got["clubs"].([]model.Record)) != 3 || got["favorite"] == nil {
		t.Errorf("FindByPK(owner0) = %v, want 4 pets, 3 toys, 3 clubs and a favorite", got)
	}

	// The record and its three collections travel in one batch; the
	// singular association follows, once the record has told its key.
	n.reset()
	if _, err := batched.FindByPK(t.Context(), m["owner"], owners[0], all); err != nil {
		t.Fatal(err)
	}
	if n.batch.Load() != 1 || n.find.Load() != 1 || n.through.Load() != 0 {
		t.Errorf("FindByPK with three collections and a model: %v; want 1 FindBatch and 1 Find", n)
	}
	// FindOne pinning the key (with more conditions) batches as well, and
	// a record that fails the other conditions comes back as nil.
	for _, name := range []string{"owner0", "nobody"} {
		c := &criteria.Criteria{Where: &criteria.And{Exprs: []criteria.Expr{
			&criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: name},
			&criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: owners[0]},
		}}, Select: []string{"name"}, Omit: []string{"toys"}}
		want, err := plain.FindOne(t.Context(), m["owner"], c, all)
		if err != nil {
			t.Fatal(err)
		}
		n.reset()
		got, err := batched.FindOne(t.Context(), m["owner"], c, all)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("FindOne(%s) batched differs (-one by one +batched):\n%s", name, diff)
		}
		if (want == nil) != (name == "nobody") {
			t.Errorf("FindOne(%s) = %v", name, want)
		}
		if n.batch.Load() != 1 {
			t.Errorf("FindOne(%s) pinning the key: %v; want 1 FindBatch", name, n)
		}
	}
	// A list's collections travel in one batch too.
	n.reset()
	if _, err := batched.Find(t.Context(), m["owner"], &criteria.Criteria{Limit: criteria.Unlimited}, all); err != nil {
		t.Fatal(err)
	}
	if n.batch.Load() != 1 || n.find.Load() != 2 || n.through.Load() != 0 {
		t.Errorf("Find with three collections and a model: %v; want 1 FindBatch and 2 Finds", n)
	}

	// Inside a transaction the batch reads the transaction's own rows.
	err = batched.InTx(t.Context(), "default", func(ctx context.Context) error {
		if _, err := batched.Replace(ctx, m["owner"], "clubs", owners[3], []any{1.0}); err != nil {
			return err
		}
		got, err := batched.FindByPK(ctx, m["owner"], owners[3], all)
		if err != nil {
			return err
		}
		if clubs := got["clubs"].([]model.Record); len(clubs) != 1 {
			t.Errorf("owner3's clubs inside the transaction = %v, want 1 club", clubs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func limitOf(c *criteria.Criteria) int64 {
	if c == nil {
		return criteria.Unlimited
	}
	return c.Limit
}

func skipOf(c *criteria.Criteria) int64 {
	if c == nil {
		return 0
	}
	return c.Skip
}
