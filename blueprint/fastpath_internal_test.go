package blueprint

import (
	"reflect"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

// TestDefaultPopulateCriteria checks that the criteria populates makes for
// populateDefault's map without Normalize are those Normalize gives it.
func TestDefaultPopulateCriteria(t *testing.T) {
	m := fastPathModel(t, "id")
	a := m.Attributes["tags"]
	sub := populateDefault(a).(map[string]any)
	if !isDefaultPopulate(sub) {
		t.Fatalf("populateDefault's %v is not recognised", sub)
	}
	want, err := criteria.Normalize(sub, a.Assoc.Target)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{}
	pops, err := s.populates(m, map[string]any{"tags": sub}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pops) != 1 || !reflect.DeepEqual(pops[0].Criteria, want) {
		t.Fatalf("populates gave %+v, Normalize %+v", pops[0].Criteria, want)
	}
	for _, other := range []map[string]any{
		{"where": map[string]any{}, "limit": 10.0, "skip": 0.0},
		{"where": map[string]any{"label": "x"}, "limit": float64(DefaultLimit), "skip": 0.0},
		{"where": map[string]any{}, "limit": float64(DefaultLimit), "skip": 1.0},
		{"where": map[string]any{}, "limit": float64(DefaultLimit), "skip": 0.0, "sort": "label"},
		{"where": map[string]any{}, "limit": "30", "skip": 0.0},
	} {
		if isDefaultPopulate(other) {
			t.Errorf("%v taken for the default populate", other)
		}
	}
}

// TestTargetWhereFastPath checks that a key of one value normalises as the
// map {pk: value} does, errors included, and that a key named "and" still
// goes through the map.
func TestTargetWhereFastPath(t *testing.T) {
	s := &Service{}
	for _, pk := range []string{"id", "and"} {
		m := fastPathModel(t, pk)
		for _, v := range []any{"7", 7.0, "x", "", "1e3", 2.5, map[string]any{">": 3.0}, []any{1.0}} {
			got, gotErr := s.targetWhere(m, map[string]any{"where": map[string]any{pk: v}})
			e, _, err := criteria.NormalizeWhere(map[string]any{pk: v}, m)
			var want *criteria.Cmp
			if err == nil {
				if cmp, ok := e.(*criteria.Cmp); ok && cmp.Op == criteria.Eq && cmp.Value != nil {
					want = cmp
				}
			}
			if (gotErr == nil) != (want != nil) || want != nil && !reflect.DeepEqual(got, want) {
				t.Errorf("pk %q, value %#v: got %+v, %v; want %+v (NormalizeWhere error %v)", pk, v, got, gotErr, want, err)
			}
			if err != nil && gotErr != nil && err.Error() != gotErr.Error() {
				t.Errorf("pk %q, value %#v: error %q, want %q", pk, v, gotErr, err)
			}
		}
	}
}

func fastPathModel(t *testing.T, pk string) *model.Model {
	t.Helper()
	defaults := map[string]any{"primaryKey": pk, "attributes": map[string]any{pk: map[string]any{"type": "number", "autoIncrement": true}}}
	defs := map[string]map[string]any{
		"pet": {"attributes": map[string]any{"name": "string", "tags": map[string]any{"collection": "tag", "via": "pets"}}},
		"tag": {"attributes": map[string]any{"label": "string", "pets": map[string]any{"collection": "pet", "via": "tags"}}},
	}
	var list []*model.Model
	for id, def := range defs {
		m, err := model.Parse(id, id+".yaml", def, defaults)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, m)
	}
	schema, err := model.NewSchema(list)
	if err != nil {
		t.Fatal(err)
	}
	return schema.Model("pet")
}
