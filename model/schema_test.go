package model_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/model"
)

// defs maps identities to attribute definitions.
type defs map[string]map[string]any

func buildSchema(t *testing.T, d defs) (*model.Schema, error) {
	t.Helper()
	var ms []*model.Model
	for _, id := range slices.Sorted(maps.Keys(d)) {
		ms = append(ms, mustParse(t, id, attrs(d[id])))
	}
	return model.NewSchema(ms)
}

func mustSchema(t *testing.T, d defs) *model.Schema {
	t.Helper()
	s, err := buildSchema(t, d)
	if err != nil {
		t.Fatalf("NewSchema: %v", err)
	}
	return s
}

func TestSchemaManyToManyVia(t *testing.T) {
	s := mustSchema(t, defs{
		"user": {"pets": map[string]any{"collection": "pet", "via": "owners"}},
		"pet":  {"owners": map[string]any{"collection": "user", "via": "pets", "dominant": true}, "name": "string"},
	})
	js := s.Junctions()
	if len(js) != 1 {
		t.Fatalf("Junctions() = %d models, want 1", len(js))
	}
	j := js[0]
	if j.Identity != "pet_owners__user_pets" || j.TableName != "pet_owners__user_pets" || !j.Junction || j.PrimaryKey != "id" {
		t.Errorf("junction = %s/%s junction=%v pk=%s", j.Identity, j.TableName, j.Junction, j.PrimaryKey)
	}
	if diff := cmp.Diff([]string{"id", "pet_owners", "user_pets"}, j.Order); diff != "" {
		t.Errorf("junction Order (-want +got):\n%s", diff)
	}
	if a := j.Attr("pet_owners"); a.Model != "pet" || a.Type != model.Number || !a.Required {
		t.Errorf("pet_owners = %+v", a)
	}
	if !j.PK().AutoIncrement {
		t.Errorf("junction pk not autoIncrement")
	}
	user, pet := s.Model("user"), s.Model("pet")
	up, po := user.Attr("pets").Assoc, pet.Attr("owners").Assoc
	if up.Kind != model.ManyToMany || up.Target != pet || up.Inverse != pet.Attr("owners") || up.Join.Model != j {
		t.Errorf("user.pets assoc = %+v", up)
	}
	if up.Join.ParentAttr != "user_pets" || up.Join.ChildAttr != "pet_owners" {
		t.Errorf("user.pets join = %s/%s, want user_pets/pet_owners", up.Join.ParentAttr, up.Join.ChildAttr)
	}
	if po.Join.Model != j || po.Join.ParentAttr != "pet_owners" || po.Join.ChildAttr != "user_pets" {
		t.Errorf("pet.owners join = %+v", po.Join)
	}
	if s.Model(j.Identity) != j {
		t.Errorf("Model(%q) does not return the junction", j.Identity)
	}
	if diff := cmp.Diff([]string{"pet", "user"}, identities(s.Models())); diff != "" {
		t.Errorf("Models() (-want +got):\n%s", diff)
	}
}

func identities(ms []*model.Model) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.Identity)
	}
	return ids
}

func TestSchemaViaLess(t *testing.T) {
	s := mustSchema(t, defs{
		"user": {"pets": map[string]any{"collection": "pet"}},
		"pet":  {"name": "string"},
	})
	js := s.Junctions()
	if len(js) != 1 || js[0].Identity != "pet_pets_pet__user_pets" {
		t.Fatalf("Junctions() = %v, want [pet_pets_pet__user_pets]", identities(js))
	}
	if diff := cmp.Diff([]string{"id", "pet_pets_pet", "user_pets"}, js[0].Order); diff != "" {
		t.Errorf("junction Order (-want +got):\n%s", diff)
	}
	a := s.Model("user").Attr("pets").Assoc
	if a.Kind != model.ManyToMany || a.Inverse != nil || a.Join.ParentAttr != "user_pets" || a.Join.ChildAttr != "pet_pets_pet" {
		t.Errorf("user.pets assoc = %+v join %+v", a, a.Join)
	}
	if js[0].Attr("pet_pets_pet").Model != "pet" {
		t.Errorf("pet_pets_pet must hold pet ids")
	}
}

func TestSchemaSelfReference(t *testing.T) {
	s := mustSchema(t, defs{
		"user": {
			"friends":   map[string]any{"collection": "user"},
			"followers": map[string]any{"collection": "user", "via": "following"},
			"following": map[string]any{"collection": "user", "via": "followers"},
		},
	})
	got := identities(s.Junctions())
	want := []string{"user_followers__user_following", "user_friends__user_friends_user"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Junctions() (-want +got):\n%s", diff)
	}
	u := s.Model("user")
	fo, fi := u.Attr("followers").Assoc.Join, u.Attr("following").Assoc.Join
	if fo.Model != fi.Model || fo.ParentAttr != fi.ChildAttr || fo.ChildAttr != fi.ParentAttr {
		t.Errorf("sides do not mirror: %+v %+v", fo, fi)
	}
}

func TestSchemaOneToMany(t *testing.T) {
	s := mustSchema(t, defs{
		"user": {"pets": map[string]any{"collection": "pet", "via": "owner"}, "uid": "string"},
		"pet":  {"owner": map[string]any{"model": "user"}},
	})
	user, pet := s.Model("user"), s.Model("pet")
	if a := user.Attr("pets").Assoc; a.Kind != model.HasMany || a.Target != pet || a.Inverse != pet.Attr("owner") || a.Join != nil {
		t.Errorf("user.pets = %+v", a)
	}
	owner := pet.Attr("owner")
	if owner.Assoc.Kind != model.BelongsTo || owner.Assoc.Target != user || owner.Assoc.Inverse != user.Attr("pets") {
		t.Errorf("pet.owner = %+v", owner.Assoc)
	}
	if owner.Type != model.Number {
		t.Errorf("pet.owner type = %s, want the user pk type number", owner.Type)
	}
	if len(s.Junctions()) != 0 {
		t.Errorf("one-to-many must not create a junction")
	}
}

func TestSchemaSingularTakesStringPKType(t *testing.T) {
	var ms []*model.Model
	ms = append(ms, mustParse(t, "account", map[string]any{"primaryKey": "code", "attributes": map[string]any{"code": "string"}}))
	ms = append(ms, mustParse(t, "invoice", attrs(map[string]any{"account": map[string]any{"model": "Account"}})))
	s, err := model.NewSchema(ms)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Model("invoice").Attr("account").Type; got != model.String {
		t.Errorf("invoice.account type = %s, want string", got)
	}
}

func TestSchemaThrough(t *testing.T) {
	s := mustSchema(t, defs{
		"user":    {"pets": map[string]any{"collection": "pet", "via": "owner", "through": "petuser"}},
		"pet":     {"owners": map[string]any{"collection": "user", "via": "pet", "through": "petuser"}},
		"petuser": {"owner": map[string]any{"model": "user"}, "pet": map[string]any{"model": "pet"}},
	})
	th := s.Model("petuser")
	a := s.Model("user").Attr("pets").Assoc
	if a.Kind != model.Through || a.Join.Model != th || a.Join.ParentAttr != "owner" || a.Join.ChildAttr != "pet" ||
		a.Inverse != s.Model("pet").Attr("owners") {
		t.Errorf("user.pets = %+v join %+v", a, a.Join)
	}
	b := s.Model("pet").Attr("owners").Assoc
	if b.Join.ParentAttr != "pet" || b.Join.ChildAttr != "owner" {
		t.Errorf("pet.owners join = %+v", b.Join)
	}
	if !th.Schema || len(s.Junctions()) != 0 {
		t.Errorf("through model schema=%v, junctions=%d", th.Schema, len(s.Junctions()))
	}
}

func TestSchemaErrors(t *testing.T) {
	tests := []struct {
		name string
		defs defs
		attr string
	}{
		{"unknown model", defs{"pet": {"owner": map[string]any{"model": "user"}}}, "owner"},
		{"unknown collection", defs{"user": {"pets": map[string]any{"collection": "pet"}}}, "pets"},
		{"via names nothing", defs{
			"user": {"pets": map[string]any{"collection": "pet", "via": "owner"}},
			"pet":  {"name": "string"},
		}, "pets"},
		{"via model points elsewhere", defs{
			"user":  {"pets": map[string]any{"collection": "pet", "via": "home"}},
			"pet":   {"home": map[string]any{"model": "house"}},
			"house": {"name": "string"},
		}, "pets"},
		{"via collection does not point back", defs{
			"user": {"pets": map[string]any{"collection": "pet", "via": "owners"}},
			"pet":  {"owners": map[string]any{"collection": "user"}},
		}, "pets"},
		{"via at itself", defs{"user": {"friends": map[string]any{"collection": "user", "via": "friends"}}}, "friends"},
		{"via plain attribute", defs{
			"user": {"pets": map[string]any{"collection": "pet", "via": "name"}},
			"pet":  {"name": "string"},
		}, "pets"},
		{"dominant on one-to-many", defs{
			"user": {"pets": map[string]any{"collection": "pet", "via": "owner", "dominant": true}},
			"pet":  {"owner": map[string]any{"model": "user"}},
		}, "pets"},
		{"both dominant", defs{
			"pet":  {"owners": map[string]any{"collection": "user", "via": "pets", "dominant": true}},
			"user": {"pets": map[string]any{"collection": "pet", "via": "owners", "dominant": true}},
		}, "owners"},
		{"through unknown", defs{
			"user": {"pets": map[string]any{"collection": "pet", "via": "owner", "through": "nope"}},
			"pet":  {"name": "string"},
		}, "pets"},
		{"through via wrong", defs{
			"user":    {"pets": map[string]any{"collection": "pet", "via": "pet", "through": "petuser"}},
			"pet":     {"owners": map[string]any{"collection": "user", "via": "owner", "through": "petuser"}},
			"petuser": {"owner": map[string]any{"model": "user"}, "pet": map[string]any{"model": "pet"}},
		}, "owners"},
		{"through without mirror", defs{
			"user":    {"pets": map[string]any{"collection": "pet", "via": "owner", "through": "petuser"}},
			"pet":     {"name": "string"},
			"petuser": {"owner": map[string]any{"model": "user"}, "pet": map[string]any{"model": "pet"}},
		}, "pets"},
		{"through lacks target attribute", defs{
			"user":    {"pets": map[string]any{"collection": "pet", "via": "owner", "through": "petuser"}},
			"pet":     {"owners": map[string]any{"collection": "user", "via": "pet", "through": "petuser"}},
			"petuser": {"owner": map[string]any{"model": "user"}},
		}, "owners"},
		{"junction collides with model", defs{
			"user":                    {"pets": map[string]any{"collection": "pet"}},
			"pet":                     {"name": "string"},
			"pet_pets_pet__user_pets": {"name": "string"},
		}, "pets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildSchema(t, tt.defs)
			var de *model.DefinitionError
			if !errors.As(err, &de) {
				t.Fatalf("NewSchema() error = %v, want a *DefinitionError", err)
			}
			if de.Attr != tt.attr {
				t.Errorf("NewSchema() error attr = %q, want %q (%v)", de.Attr, tt.attr, err)
			}
		})
	}
}

func TestSchemaDuplicateIdentity(t *testing.T) {
	a := mustParse(t, "user", attrs(nil))
	b := mustParse(t, "User", attrs(nil))
	_, err := model.NewSchema([]*model.Model{a, b})
	var de *model.DefinitionError
	if !errors.As(err, &de) {
		t.Errorf("NewSchema(duplicate) error = %v, want a *DefinitionError", err)
	}
}

func TestSchemaJunctionDatastore(t *testing.T) {
	user := mustParse(t, "user", map[string]any{"datastore": "a", "attributes": map[string]any{"pets": map[string]any{"collection": "pet", "via": "owners"}}})
	pet := mustParse(t, "pet", map[string]any{"datastore": "b", "attributes": map[string]any{"owners": map[string]any{"collection": "user", "via": "pets", "dominant": true}}})
	s, err := model.NewSchema([]*model.Model{user, pet})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Junctions()[0].Datastore; got != "b" {
		t.Errorf("junction datastore = %q, want the dominant side's %q", got, "b")
	}
}
