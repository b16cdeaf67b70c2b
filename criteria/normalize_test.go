package criteria_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

func testModel() *model.Model {
	attrs := map[string]*model.Attribute{
		"id":     {Name: "id", Type: model.Number, AutoIncrement: true},
		"name":   {Name: "name", Type: model.String},
		"age":    {Name: "age", Type: model.Number},
		"role":   {Name: "role", Type: model.String},
		"active": {Name: "active", Type: model.Boolean},
		"meta":   {Name: "meta", Type: model.JSON},
		"owner":  {Name: "owner", Model: "user", Type: model.Number},
		"pets":   {Name: "pets", Collection: "pet", Via: "owner"},
	}
	return &model.Model{Identity: "user", PrimaryKey: "id", Schema: true, Attributes: attrs,
		Order: []string{"id", "name", "age", "role", "active", "meta", "owner", "pets"}}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestNormalize(t *testing.T) {
	m := testModel()
	cases := []struct {
		in   string
		want *criteria.Criteria
	}{
		{`null`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`false`, &criteria.Criteria{Limit: criteria.Unlimited, Noop: true}},
		{`7`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: 7.0}}},
		{`[1,"2"]`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "id", Op: criteria.In, Value: []any{1.0, 2.0}}}},
		{`{"name":"bob"}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "bob"}}},
		{`{"where":{"age":"12"},"limit":"10","skip":"2"}`, &criteria.Criteria{Limit: 10, Skip: 2, Where: &criteria.Cmp{Attr: "age", Op: criteria.Eq, Value: 12.0}}},
		{`{"where":{},"limit":0}`, &criteria.Criteria{Limit: 0, Noop: true}},
		{`{"where":{},"limit":""}`, &criteria.Criteria{Limit: 0, Noop: true}},
		{`{"where":{},"limit":"Infinity"}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"where":{},"limit":null}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"where":{"id":{"in":[]}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Noop: true}},
		{`{"where":{"id":{"nin":[]}}}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"where":{"name":{"contains":"a%b"}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.Like, Value: `%a\%b%`}}},
		{`{"where":{"name":{"startsWith":"x"}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.Like, Value: `x%`}}},
		{`{"where":{"name":{"endsWith":"x"}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "name", Op: criteria.Like, Value: `%x`}}},
		{`{"where":{"name":{"contains":""}}}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"where":{"age":{"lessThan":3}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "age", Op: criteria.Lt, Value: 3.0}}},
		{`{"where":{"age":{"!=":[1,2]}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "age", Op: criteria.Nin, Value: []any{1.0, 2.0}}}},
		{`{"where":{"age":{"!=":null}}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "age", Op: criteria.Ne, Value: nil}}},
		{`{"where":{"active":"true"}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "active", Op: criteria.Eq, Value: true}}},
		{`{"where":{"owner":"3"}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "owner", Op: criteria.Eq, Value: 3.0}}},
		{`{"where":{"or":[{"role":"a"},{"role":{"in":[]}}]}}`, &criteria.Criteria{Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "role", Op: criteria.Eq, Value: "a"}}},
		{`{"where":{"or":[{"role":"a"},{}]}}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"where":{"or":[]}}`, &criteria.Criteria{Limit: criteria.Unlimited, Noop: true}},
		// The spec's §4.5 example (children ordered by attribute name).
		{`{"where":{"name":"bob","age":{">":"20","<":30},"or":[{"role":"a"},{"role":{"in":[]}}]}}`, &criteria.Criteria{Limit: criteria.Unlimited,
			Where: &criteria.And{Exprs: []criteria.Expr{
				&criteria.And{Exprs: []criteria.Expr{
					&criteria.Cmp{Attr: "age", Op: criteria.Lt, Value: 30.0},
					&criteria.Cmp{Attr: "age", Op: criteria.Gt, Value: 20.0},
				}},
				&criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "bob"},
				&criteria.Cmp{Attr: "role", Op: criteria.Eq, Value: "a"},
			}}}},
		{`{"sort":"name DESC"}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{`{"sort":"name desc"}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{`{"sort":["age", {"name":"DESC"}]}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "age"}, {Attr: "name", Desc: true}}}},
		{`{"sort":{"name":-1}}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{`{"sort":{"name":-1,"age":1}}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "age"}, {Attr: "name", Desc: true}}}},
		{`{"sort":{}}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"sort":[{"name":"DESC"}]}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{`{"sort":["name DESC"]}`, &criteria.Criteria{Limit: criteria.Unlimited, Sort: []criteria.Sort{{Attr: "name", Desc: true}}}},
		{`{"select":["name"]}`, &criteria.Criteria{Limit: criteria.Unlimited, Select: []string{"id", "name"}}},
		{`{"select":["*"]}`, &criteria.Criteria{Limit: criteria.Unlimited}},
		{`{"omit":["name","pets"]}`, &criteria.Criteria{Limit: criteria.Unlimited, Omit: []string{"name"}}},
	}
	for _, tc := range cases {
		got, err := criteria.Normalize(decode(t, tc.in), m)
		if err != nil {
			t.Errorf("Normalize(%s) error = %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Normalize(%s) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestNormalizeErrors(t *testing.T) {
	m := testModel()
	for _, in := range []string{
		`true`,
		`{"foo":1}`,
		`{"where":{},"foo":1}`,
		`{"pets":1}`,
		`{"a.b":1}`,
		`{"where":{"age":"abc"}}`,
		`{"where":{"age":{}}}`,
		`{"where":{"age":{"bogus":1}}}`,
		`{"where":{"age":{"contains":"x"}}}`,
		`{"where":{"active":{">":1}}}`,
		`{"where":{"age":{">":null}}}`,
		`{"where":{"age":{"in":[null]}}}`,
		`{"where":{"age":{"in":1}}}`,
		`{"where":{"name":{"like":""}}}`,
		`{"where":{"or":{"a":1}}}`,
		`{"where":{"name":{"a":1,"b":2}}}`,
		`{"where":{},"limit":-1}`,
		`{"where":{},"limit":1.5}`,
		`{"where":{},"limit":"abc"}`,
		`{"where":{},"skip":-1}`,
		`{"where":{},"skip":"x"}`,
		`{"sort":"bogus"}`,
		`{"sort":"name SIDEWAYS"}`,
		`{"sort":"name ASC, age DESC"}`,
		`{"sort":["name","name"]}`,
		`{"sort":"pets"}`,
		`{"sort":{"name":"DESC"}}`,
		`{"sort":{"name":"ASC","age":"DESC"}}`,
		`{"sort":{"name":2}}`,
		`{"select":["bogus"]}`,
		`{"select":["pets"]}`,
		`{"omit":["id"]}`,
		`{"select":["name"],"omit":["age"]}`,
		`{"groupBy":"name"}`,
	} {
		_, err := criteria.Normalize(decode(t, in), m)
		if got := model.KindOf(err); got != model.Invalid {
			t.Errorf("Normalize(%s) kind = %v (err %v), want Invalid", in, got, err)
			continue
		}
		if e, _ := model.AsError(err); e.Code != model.CodeInvalidCriteria {
			t.Errorf("Normalize(%s) code = %q, want %s", in, e.Code, model.CodeInvalidCriteria)
		}
	}
}

// TestSortDictionaryMessages checks Waterline's own words for a sort
// dictionary that is not Mongo-style (normalizeSortClause, as
// forgeStageTwoQuery wraps it).
func TestSortDictionaryMessages(t *testing.T) {
	m := testModel()
	tests := []struct{ in, want string }{
		{`{"sort":{"name":"DESC"}}`, "Could not use the provided `sort` clause: The `sort` clause in the provided criteria is invalid.  " +
			"If specified, it should be either a string like `'fullName DESC'`, or an array like `[ { fullName: 'DESC' } ]`.  " +
			"But it looks like you might need to wrap this in an array, because instead, got: { name: 'DESC' }"},
		{`{"sort":{"first name":"it's"}}`, "Could not use the provided `sort` clause: The `sort` clause in the provided criteria is invalid.  " +
			"If specified, it should be either a string like `'fullName DESC'`, or an array like `[ { fullName: 'DESC' } ]`.  " +
			"But it looks like you might need to wrap this in an array, because instead, got: { 'first name': \"it's\" }"},
		{`{"sort":{"name":"ASC","age":-1}}`, "Could not use the provided `sort` clause: The `sort` clause in the provided criteria is invalid.  " +
			"If specified as a dictionary, it should use Mongo-esque semantics, using -1 and 1 for the sort direction  " +
			"(something like `{ fullName: -1, rank: 1 }`).  But instead, got: { age: -1, name: 'ASC' }"},
	}
	for _, tt := range tests {
		_, err := criteria.Normalize(decode(t, tt.in), m)
		e, ok := model.AsError(err)
		if !ok || e.Code != model.CodeInvalidCriteria || e.Msg != tt.want {
			t.Errorf("Normalize(%s) = %v\nwant E_INVALID_CRITERIA: %s", tt.in, err, tt.want)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	w := map[string]any{"name": "x"}
	for range 40 {
		w = map[string]any{"and": []any{w}}
	}
	if _, err := criteria.Normalize(map[string]any{"where": w}, testModel()); model.KindOf(err) != model.Invalid {
		t.Errorf("Normalize(40 levels) = %v, want an Invalid error", err)
	}
}

func TestRename(t *testing.T) {
	e := &criteria.Or{Exprs: []criteria.Expr{&criteria.Cmp{Attr: "a", Op: criteria.Eq, Value: 1.0}}}
	got := criteria.Rename(e, func(s string) string { return "col_" + s })
	want := &criteria.Or{Exprs: []criteria.Expr{&criteria.Cmp{Attr: "col_a", Op: criteria.Eq, Value: 1.0}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rename mismatch (-want +got):\n%s", diff)
	}
	if e.Exprs[0].(*criteria.Cmp).Attr != "a" {
		t.Error("Rename changed its input")
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{`{"where":{"name":"bob"}}`, `{"limit":"10","skip":1,"sort":"name DESC"}`, `[1,2,3]`} {
		f.Add(s)
	}
	m := testModel()
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		c, err := criteria.Normalize(v, m)
		if err != nil {
			if model.KindOf(err) != model.Invalid {
				t.Fatalf("Normalize(%s) returned a non-client error: %v", in, err)
			}
			return
		}
		if c.Limit < 0 || c.Skip < 0 {
			t.Fatalf("Normalize(%s) = limit %d skip %d", in, c.Limit, c.Skip)
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	m := testModel()
	in := map[string]any{"where": map[string]any{"name": "bob", "age": map[string]any{">": "20"}}, "limit": "30", "sort": "name DESC"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := criteria.Normalize(in, m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSchemalessCriteria(t *testing.T) {
	m := testModel()
	m.Schema = false
	for _, in := range []string{`{"color":"red"}`, `{"$x":{">":1}}`, `{"sort":"color DESC"}`, `{"where":{"_n":null}}`} {
		if _, err := criteria.Normalize(decode(t, in), m); err != nil {
			t.Errorf("Normalize(%s) on a schemaless model = %v, want nil", in, err)
		}
	}
	c, err := criteria.Normalize(decode(t, `{"amount":"12"}`), m)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&criteria.Cmp{Attr: "amount", Op: criteria.Eq, Value: "12"}); !cmp.Equal(c.Where, criteria.Expr(want)) {
		t.Errorf("undeclared constraint = %#v, want the string uncoerced", c.Where)
	}
	for _, in := range []string{
		`{"a-b":1}`, `{"delete":1}`, `{"toJSON":1}`, `{"where":{"9x":1}}`, `{"sort":"a-b"}`,
		`{"color":{"k":1}}`, `{"select":["title"]}`, `{"omit":["name"]}`,
	} {
		if _, err := criteria.Normalize(decode(t, in), m); model.KindOf(err) != model.Invalid {
			t.Errorf("Normalize(%s) on a schemaless model = %v, want Invalid", in, err)
		}
	}
}
