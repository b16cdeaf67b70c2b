package blueprint_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/jsonenc"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// rowsORM is an ORM on SQLite whose models exercise what rowsJSON must
// write as encoding the records would: renamed columns, attributes
// customToJSON omits (in the record and in a joined one), JSON, boolean
// and number attributes, a model joined to itself, a collection (which
// needs records) and a model with a ToJSON function.
func rowsORM(t *testing.T, db datastore.Adapter) (*orm.ORM, map[string]*model.Model) {
	t.Helper()
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{
		"id":        map[string]any{"type": "number", "autoIncrement": true},
		"createdAt": map[string]any{"type": "number", "autoCreatedAt": true},
	}}
	defs := map[string]map[string]any{
		"owner": {"attributes": map[string]any{
			"name": "string", "email": map[string]any{"type": "string", "columnName": "mail"}, "secret": "string",
			"meta": "json", "score": "number",
		}, "customToJSON": map[string]any{"omit": []any{"secret"}}},
		"item": {"attributes": map[string]any{
			"name": "string", "price": "number", "flag": "boolean", "data": "json",
			"label":  map[string]any{"type": "string", "columnName": "lbl"},
			"hidden": "string",
			"owner":  map[string]any{"model": "owner", "columnName": "owner_id"},
			"buddy":  map[string]any{"model": "item"},
		}, "customToJSON": map[string]any{"omit": []any{"hidden"}}},
		"box":   {"attributes": map[string]any{"name": "string", "items": map[string]any{"collection": "item"}}},
		"shown": {"attributes": map[string]any{"name": "string", "owner": map[string]any{"model": "owner"}}},
	}
	return ormOf(t, db, defaults, defs, func(models map[string]*model.Model) {
		models["shown"].ToJSON = func(r model.Record) model.Record {
			r["shown"] = true
			return r
		}
	})
}

// TestFindJSONSameBytes checks finds and findOnes answered with their JSON written as
// the rows are read (Request.RawBody) against the same finds answered with
// records and encoded: the same bytes, for every kind of value, renamed
// and omitted attributes, joined records present, null and dangling, and
// each criteria a find takes; and that the rows' way is taken where it can
// be.
func TestFindJSONSameBytes(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(t.Context(), datastore.Config{Name: "default", URL: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testFindJSONSameBytes(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.Postgres(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testFindJSONSameBytes(t, db)
	})
}

func testFindJSONSameBytes(t *testing.T, db datastore.Adapter) {
	o, models := rowsORM(t, db)
	s := blueprint.NewService(blueprint.Config{ORM: o})
	create := func(m string, rec map[string]any) {
		t.Helper()
		if _, err := s.Do(t.Context(), &blueprint.Request{Action: blueprint.Create, Model: models[m], Body: rec}, nil); err != nil {
			t.Fatal(err)
		}
	}
	create("owner", map[string]any{"name": "Ann", "email": "ann@example.com", "secret": "s1", "meta": map[string]any{"b": 1.0, "a": []any{"x", nil}}, "score": 1.5})
	create("owner", map[string]any{"name": "Bob \"the\" <builder> é\u2028", "score": 1e21})
	create("owner", map[string]any{"name": "Gone"})
	for _, name := range []string{"Dee", "Eve", "Fay"} {
		create("owner", map[string]any{"name": name})
	}
	values := []map[string]any{
		{"name": "one", "price": 1.0, "flag": true, "data": map[string]any{"z": 1.0, "k": "v"}, "label": "L1", "hidden": "h", "owner": 1.0},
		{"name": "two", "price": -0.5, "flag": false, "data": []any{1.0, "2"}, "owner": 2.0, "buddy": 1.0},
		{"name": "three\n\ttab", "price": 9007199254740993.0, "data": "text", "owner": 3.0, "buddy": 2.0},
		{"name": "four", "price": 1e-7, "data": 12.0, "buddy": 3.0},
		{"name": "five", "price": 0.0, "owner": 4.0, "buddy": 4.0},
		{"name": "six", "price": 123456789012.25, "owner": 5.0, "buddy": 5.0},
		{"name": "seven", "owner": 6.0, "buddy": 6.0},
		{"name": "", "owner": 3.0},
	}
	for _, v := range values {
		create("item", v)
	}
	create("box", map[string]any{"name": "b", "items": []any{1.0, 2.0}})
	create("shown", map[string]any{"name": "s", "owner": 1.0})
	// Owner 3 and item 4 go: three items point at nothing.
	for _, gone := range []string{"owner", "item"} {
		id := map[string]string{"owner": "3", "item": "4"}[gone]
		if _, err := s.Do(t.Context(), &blueprint.Request{Action: blueprint.Destroy, Model: models[gone], Path: map[string]string{"id": id}}, nil); err != nil {
			t.Fatal(err)
		}
	}

	type request struct {
		action blueprint.Action
		path   map[string]string
		query  map[string]any
	}
	var requests []request
	for _, id := range []string{"1", "2", "3", "4", "5", "8", "99", "x"} {
		for _, q := range []map[string]any{nil, {"select": "name"}, {"omit": "owner"}, {"populate": "false"}, {"populate": "buddy"}} {
			requests = append(requests, request{blueprint.FindOne, map[string]string{"id": id}, q})
		}
	}
	requests = append(requests, request{blueprint.FindOne, nil, map[string]any{"id": map[string]any{">": 0.0}}})
	queries := []map[string]any{
		{},
		{"limit": 2.0},
		{"limit": 1.0, "skip": 2.0},
		{"limit": 30.0},
		{"sort": "name DESC"},
		{"sort": "price ASC", "limit": 4.0},
		{"select": "name"},
		{"select": "name,owner"},
		{"select": "label,buddy", "limit": 2.0},
		{"omit": "name"},
		{"omit": "owner,label"},
		{"populate": "false"},
		{"populate": "owner"},
		{"populate": "buddy", "limit": 2.0},
		{"where": `{"name":{"startsWith":"t"}}`},
		{"where": `{"name":"nobody"}`},
		{"price": 1.0},
		{"limit": 0.0},
	}
	for _, q := range queries {
		requests = append(requests, request{blueprint.Find, nil, q})
	}
	raw := 0
	for _, m := range []string{"item", "owner", "box", "shown"} {
		// Each find twice, the rows' way second then first: a page's
		// first read notes whether its associations point at distinct
		// records, which decides whether the next reads join them.
		for round := range 2 {
			for _, rq := range requests {
				q := rq.query
				if m != "item" && len(q) > 0 && q["limit"] == nil && q["populate"] == nil {
					continue
				}
				do := func(raw bool) (*blueprint.Result, error) {
					return s.Do(t.Context(), &blueprint.Request{Action: rq.action, Model: models[m], Path: rq.path, Query: q, RawBody: raw}, nil)
				}
				var got, want *blueprint.Result
				var gotErr, wantErr error
				if round == 0 {
					want, wantErr = do(false)
					got, gotErr = do(true)
				} else {
					got, gotErr = do(true)
					want, wantErr = do(false)
				}
				name := fmt.Sprintf("%s %s %v %v", rq.action, m, rq.path, q)
				if (wantErr == nil) != (gotErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Fatalf("%s: error %v, want %v", name, gotErr, wantErr)
				}
				if wantErr != nil {
					continue
				}
				wantJSON, err := jsonenc.Append(nil, want.Body, nil)
				if err != nil {
					t.Fatal(err)
				}
				gotJSON, err := jsonenc.Append(nil, got.Body, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := got.Body.(json.RawMessage); ok {
					raw++
				} else if m == "item" {
					t.Logf("%s: answered with records", name)
				}
				if string(gotJSON) != string(wantJSON) || got.Status != want.Status {
					t.Errorf("%s:\n got %d %s\nwant %d %s", name, got.Status, gotJSON, want.Status, wantJSON)
				}
			}
		}
	}
	if raw < len(requests) {
		t.Errorf("%d reads answered from their rows, want at least %d", raw, len(requests))
	}
}
