package orm_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// joinModels are the models of the singular-join tests: pets point at an
// owner (a renamed foreign key column), a schemaless vet and their best
// friend, another pet (the table joined to itself); owners have a JSON
// attribute and a renamed column, and pets a collection of tags.
func joinModels(t *testing.T) []*model.Model {
	t.Helper()
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}
	defs := map[string]map[string]any{
		"owner": {"attributes": map[string]any{
			"name": "string", "meta": "json", "age": map[string]any{"type": "number", "columnName": "age_col"},
			"pets": map[string]any{"collection": "pet", "via": "owner"}}},
		"vet": {"schema": false, "attributes": map[string]any{"name": "string"}},
		"pet": {"attributes": map[string]any{
			"name": "string", "data": "json",
			"owner":      map[string]any{"model": "owner", "columnName": "owner_id"},
			"vet":        map[string]any{"model": "vet"},
			"bestFriend": map[string]any{"model": "pet"},
			"tags":       map[string]any{"collection": "tag", "via": "pets"}}},
		"tag": {"attributes": map[string]any{
			"label": "string", "pets": map[string]any{"collection": "pet", "via": "tags"}}},
	}
	var list []*model.Model
	for _, id := range []string{"owner", "vet", "pet", "tag"} {
		m, err := model.Parse(id, id+".yaml", defs[id], defaults)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, m)
	}
	return list
}

// TestPopulateSingularJoined checks that reading singular associations
// with their records in one joined query (datastore.JoinFinder) answers
// exactly what reading them with a second query answers: with select,
// omit, sort and pages, a dangling key, a null key, a self-association, a
// schemaless and a renamed target, several at once and beside a
// collection, by key and not, and inside a transaction.
func TestPopulateSingularJoined(t *testing.T) {
	onEachAdapter(t, populateSingularJoined)
}

func populateSingularJoined(t *testing.T, db datastore.Adapter) {
	if _, ok := db.(datastore.JoinFinder); !ok {
		t.Fatalf("%T does not implement datastore.JoinFinder", db)
	}
	models := joinModels(t)
	joined := migrated(t, db, models...)
	m := map[string]*model.Model{}
	for _, x := range models {
		m[x.Identity] = x
	}
	plain, err := orm.New(joined.Schema(), map[string]datastore.Adapter{"default": linksOnly{db}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ann := mustCreate(t, joined, m["owner"], map[string]any{"name": "Ann", "meta": map[string]any{"k": []any{1.0, "x"}}, "age": 40.0})
	bob := mustCreate(t, joined, m["owner"], map[string]any{"name": "Bob", "age": 30.0})
	vet := mustCreate(t, joined, m["vet"], map[string]any{"name": "Vic", "clinic": "North"})
	tag := mustCreate(t, joined, m["tag"], map[string]any{"label": "t"})
	var pets []any
	for i := range 6 {
		in := map[string]any{"name": fmt.Sprint("pet", i%4), "data": map[string]any{"i": float64(i)}, "tags": []any{tag["id"]}}
		switch i % 3 {
		case 0:
			in["owner"], in["vet"] = ann["id"], vet["id"]
		case 1:
			in["owner"] = bob["id"]
		}
		if i > 0 {
			in["bestFriend"] = pets[i-1]
		}
		pets = append(pets, mustCreate(t, joined, m["pet"], in)["id"])
	}
	// Pet 0 is its own best friend; pet 5's owner and vet were deleted
	// behind the ORM's back (dangling keys).
	petTable := joined.Table("pet")
	if _, err := db.Update(ctx, &datastore.Query{Table: petTable, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: pets[0]}, Limit: criteria.Unlimited},
		datastore.Record{"bestFriend": pets[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Update(ctx, &datastore.Query{Table: petTable, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: pets[5]}, Limit: criteria.Unlimited},
		datastore.Record{"owner_id": 999.0, "vet": 998.0}); err != nil {
		t.Fatal(err)
	}

	popSets := map[string][]orm.Populate{
		"owner":          {{Attr: "owner"}},
		"self":           {{Attr: "bestFriend"}},
		"schemaless":     {{Attr: "vet"}},
		"all singular":   {{Attr: "owner"}, {Attr: "vet"}, {Attr: "bestFriend"}},
		"with a list":    {{Attr: "tags"}, {Attr: "owner"}, {Attr: "bestFriend"}},
		"twice":          {{Attr: "owner"}, {Attr: "owner"}},
		"bad populate":   {{Attr: "owner"}, {Attr: "nope"}},
		"with criteria":  {{Attr: "owner", Criteria: &criteria.Criteria{Limit: 1}}},
		"list only":      {{Attr: "tags"}},
		"no populations": nil,
	}
	crits := map[string]*criteria.Criteria{
		"all":    {Limit: criteria.Unlimited},
		"select": {Limit: criteria.Unlimited, Select: []string{"name"}},
		"omit":   {Limit: criteria.Unlimited, Omit: []string{"name", "data"}},
		"page":   {Limit: 2, Skip: 1, Sort: []criteria.Sort{{Attr: "name", Desc: true}}},
		"where":  {Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.In, Value: []any{"pet0", "pet1"}}},
		"none":   {Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "nobody"}},
	}
	same := func(what string, got, want any, gotErr, wantErr error) {
		t.Helper()
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, want %v", what, gotErr, wantErr)
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: joined differs (-second query +joined):\n%s", what, diff)
		}
	}
	for pname, pops := range popSets {
		if pname == "twice" {
			// Two populates of one singular association: today's
			// path cannot (its second pass sees records), nor need
			// the join.
			continue
		}
		for cname, c := range crits {
			want, wantErr := plain.Find(ctx, m["pet"], c, pops)
			got, gotErr := joined.Find(ctx, m["pet"], c, pops)
			same(fmt.Sprintf("Find(%s, %s)", cname, pname), got, want, gotErr, wantErr)
		}
		for i, pk := range pets {
			want, wantErr := plain.FindByPK(ctx, m["pet"], pk, pops)
			got, gotErr := joined.FindByPK(ctx, m["pet"], pk, pops)
			same(fmt.Sprintf("FindByPK(pet %d, %s)", i, pname), got, want, gotErr, wantErr)
		}
		want, wantErr := plain.FindByPK(ctx, m["pet"], 12345.0, pops)
		got, gotErr := joined.FindByPK(ctx, m["pet"], 12345.0, pops)
		same(fmt.Sprintf("FindByPK(missing, %s)", pname), got, want, gotErr, wantErr)
	}

	// Spot checks of what both answer.
	got, err := joined.FindByPK(ctx, m["pet"], pets[5], popSets["all singular"])
	if err != nil {
		t.Fatal(err)
	}
	if got["owner"] != nil || got["vet"] != nil || got["bestFriend"].(model.Record)["id"] != pets[4] {
		t.Errorf("pet 5 = %v, want dangling owner and vet null, best friend pet 4", got)
	}
	got, err = joined.FindByPK(ctx, m["pet"], pets[0], popSets["all singular"])
	if err != nil {
		t.Fatal(err)
	}
	wantOwner := model.Record{"id": ann["id"], "name": "Ann", "meta": map[string]any{"k": []any{1.0, "x"}}, "age": 40.0}
	if diff := cmp.Diff(wantOwner, got["owner"]); diff != "" {
		t.Errorf("pet 0's owner (-want +got):\n%s", diff)
	}
	if v := got["vet"].(model.Record); v["clinic"] != "North" || v["name"] != "Vic" {
		t.Errorf("pet 0's vet = %v, want its undeclared clinic", v)
	}
	if bf := got["bestFriend"].(model.Record); bf["id"] != pets[0] || bf["bestFriend"] != pets[0] {
		t.Errorf("pet 0's best friend = %v, want itself, with its key unpopulated", bf)
	}

	// A collection replaced and the record answered with its owner.
	for _, o := range []*orm.ORM{plain, joined} {
		_, rec, err := o.ReplaceThenFind(ctx, m["pet"], "tags", pets[1], []any{tag["id"]}, popSets["with a list"])
		if err != nil {
			t.Fatal(err)
		}
		if rec["owner"].(model.Record)["name"] != "Bob" || len(rec["tags"].([]model.Record)) != 1 {
			t.Errorf("ReplaceThenFind = %v, want owner Bob and one tag", rec)
		}
	}

	// Inside a transaction the join sees the transaction's own changes.
	err = joined.InTx(ctx, "default", func(ctx context.Context) error {
		if _, _, _, err := joined.Update(ctx, m["owner"], bob["id"], map[string]any{"name": "Rob"}); err != nil {
			return err
		}
		for _, find := range []func() (model.Record, error){
			func() (model.Record, error) { return joined.FindByPK(ctx, m["pet"], pets[1], popSets["owner"]) },
			func() (model.Record, error) {
				recs, err := joined.Find(ctx, m["pet"], &criteria.Criteria{Limit: 1, Skip: 1}, popSets["owner"])
				if err != nil || len(recs) == 0 {
					return nil, err
				}
				return recs[0], nil
			},
		} {
			rec, err := find()
			if err != nil {
				return err
			}
			if rec["owner"].(model.Record)["name"] != "Rob" {
				t.Errorf("pet 1's owner in the transaction = %v, want Rob", rec["owner"])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// countingDB counts the reads an adapter serves, joined or not.
type countingDB struct {
	*sqlite.DB
	reads atomic.Int64
}

func (c *countingDB) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	c.reads.Add(1)
	return c.DB.Find(ctx, q)
}

func (c *countingDB) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	c.reads.Add(1)
	return c.DB.FindJoined(ctx, q, joins)
}

// TestPopulateSingularOneQuery checks that a record with its singular
// associations populated costs one query, and a page of them one query
// more for all of them, in process (SQLite) and where a query costs a
// round trip (an adapter that batches reads): reading each associated row
// once per record cost more than the second query. Records of one owner
// share its record.
func TestPopulateSingularOneQuery(t *testing.T) {
	for _, batching := range []bool{false, true} {
		t.Run(fmt.Sprintf("batching=%v", batching), func(t *testing.T) {
			db := memSQLite(t)
			models := joinModels(t)
			c := &countingDB{DB: db}
			var a datastore.Adapter = c
			if batching {
				a = batchingDB{c}
			}
			o := migrated(t, a, models...)
			m := map[string]*model.Model{}
			for _, x := range models {
				m[x.Identity] = x
			}
			ann := mustCreate(t, o, m["owner"], map[string]any{"name": "Ann"})
			for range 3 {
				mustCreate(t, o, m["pet"], map[string]any{"name": "p", "owner": ann["id"]})
			}
			pops := []orm.Populate{{Attr: "owner"}, {Attr: "bestFriend"}}
			c.reads.Store(0)
			if _, err := o.FindByPK(t.Context(), m["pet"], 1.0, pops); err != nil {
				t.Fatal(err)
			}
			if n := c.reads.Swap(0); n != 1 {
				t.Errorf("FindByPK with two singular populates took %d queries, want 1", n)
			}
			recs, err := o.Find(t.Context(), m["pet"], &criteria.Criteria{Limit: 30}, pops)
			if err != nil {
				t.Fatal(err)
			}
			if n := c.reads.Swap(0); n != 2 || len(recs) != 3 || recs[2]["owner"].(model.Record)["name"] != "Ann" {
				t.Errorf("Find with two singular populates took %d queries for %v, want 2 for 3 pets of Ann", n, recs)
			}
			if recs[0]["owner"].(model.Record)["id"] != recs[2]["owner"].(model.Record)["id"] {
				t.Errorf("pets of one owner = %v, want the same owner", recs)
			}
			if _, err := o.FindOne(t.Context(), m["pet"], &criteria.Criteria{Where: &criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "nobody"}}, pops); err != nil {
				t.Fatal(err)
			}
			if n := c.reads.Swap(0); n != 1 {
				t.Errorf("FindOne with two singular populates took %d queries, want 1", n)
			}
		})
	}
}

// batchingDB is countingDB claiming datastore.BatchFinder, as the adapters
// of engines behind a network do: it runs the reads one by one.
type batchingDB struct{ *countingDB }

func (b batchingDB) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	out := make([][]datastore.Record, len(reads))
	for i, r := range reads {
		var err error
		if r.Joins != nil {
			out[i], err = b.FindJoined(ctx, r.Query, r.Joins)
		} else {
			out[i], err = b.Find(ctx, r.Query)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestPopulateSingularPagesJoin checks that pages read a singular
// association by a join once a page pointed at distinct records enough,
// and by a second query again once one pointed at few, answering the same
// as a second query throughout.
func TestPopulateSingularPagesJoin(t *testing.T) {
	db := memSQLite(t)
	models := joinModels(t)
	c := &countingDB{DB: db}
	o := migrated(t, c, models...)
	m := map[string]*model.Model{}
	for _, x := range models {
		m[x.Identity] = x
	}
	plain, err := orm.New(o.Schema(), map[string]datastore.Adapter{"default": linksOnly{db}})
	if err != nil {
		t.Fatal(err)
	}
	var pets []any
	for i := range 4 {
		owner := mustCreate(t, o, m["owner"], map[string]any{"name": fmt.Sprint("owner", i)})
		pets = append(pets, mustCreate(t, o, m["pet"], map[string]any{"name": fmt.Sprint("pet", i), "owner": owner["id"]})["id"])
	}
	pops := []orm.Populate{{Attr: "owner"}}
	page := &criteria.Criteria{Limit: 30, Sort: []criteria.Sort{{Attr: "id"}}}
	find := func(what string, queries int64) {
		t.Helper()
		c.reads.Store(0)
		got, err := o.Find(t.Context(), m["pet"], page, pops)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.reads.Load(); n != queries {
			t.Errorf("%s: Find took %d queries, want %d", what, n, queries)
		}
		want, err := plain.Find(t.Context(), m["pet"], page, pops)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Find differs from the second query's (-want +got):\n%s", what, diff)
		}
	}
	find("first page of 4 owners", 2)
	find("next page of 4 owners", 1)
	for _, pk := range pets[1:] {
		if _, _, _, err := o.Update(t.Context(), m["pet"], pk, map[string]any{"owner": nil}); err != nil {
			t.Fatal(err)
		}
	}
	find("first page of 1 owner", 1)
	find("next page of 1 owner", 2)
}
