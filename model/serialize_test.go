package model_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/model"
)

func TestSerialize(t *testing.T) {
	var ms []*model.Model
	ms = append(ms, mustParse(t, "user", map[string]any{
		"customToJSON": map[string]any{"omit": []any{"password"}},
		"attributes": map[string]any{
			"password": "string",
			"pets":     map[string]any{"collection": "pet", "via": "owner"},
			"best":     map[string]any{"model": "pet"},
		},
	}))
	ms = append(ms, mustParse(t, "pet", map[string]any{
		"customToJSON": map[string]any{"omit": []any{"secret"}},
		"attributes":   map[string]any{"owner": map[string]any{"model": "user"}, "secret": "string"},
	}))
	s, err := model.NewSchema(ms)
	if err != nil {
		t.Fatal(err)
	}
	user := s.Model("user")
	in := model.Record{
		"id": 1.0, "password": "hash",
		"best": model.Record{"id": 2.0, "secret": "s", "owner": 1.0},
		"pets": []model.Record{{"id": 2.0, "secret": "s"}, {"id": 3.0, "secret": "t"}},
	}
	got := user.Serialize(in)
	want := model.Record{
		"id":   1.0,
		"best": model.Record{"id": 2.0, "owner": 1.0},
		"pets": []model.Record{{"id": 2.0}, {"id": 3.0}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Serialize (-want +got):\n%s", diff)
	}
	if in["password"] != "hash" || in["best"].(model.Record)["secret"] != "s" || in["pets"].([]model.Record)[0]["secret"] != "s" {
		t.Errorf("Serialize mutated its input: %v", in)
	}
	// Unpopulated keys pass through.
	if got := user.Serialize(model.Record{"id": 1.0, "best": 2.0}); got["best"] != 2.0 {
		t.Errorf("Serialize(key) best = %v, want 2", got["best"])
	}

	user.ToJSON = func(r model.Record) model.Record {
		r["shown"] = true
		return r
	}
	got = user.Serialize(model.Record{"id": 1.0, "password": "hash"})
	if diff := cmp.Diff(model.Record{"id": 1.0, "password": "hash", "shown": true}, got); diff != "" {
		t.Errorf("Serialize with ToJSON (-want +got):\n%s", diff)
	}
}

// SerializeOwned answers what Serialize answers, shared children included.
func TestSerializeOwned(t *testing.T) {
	var ms []*model.Model
	ms = append(ms, mustParse(t, "user", map[string]any{
		"customToJSON": map[string]any{"omit": []any{"password"}},
		"attributes": map[string]any{
			"password": "string",
			"prefs":    "json",
			"pets":     map[string]any{"collection": "pet", "via": "owner"},
			"best":     map[string]any{"model": "pet"},
		},
	}))
	ms = append(ms, mustParse(t, "pet", map[string]any{
		"customToJSON": map[string]any{"omit": []any{"secret"}},
		"attributes":   map[string]any{"owner": map[string]any{"model": "user"}, "secret": "string"},
	}))
	s, err := model.NewSchema(ms)
	if err != nil {
		t.Fatal(err)
	}
	user, pet := s.Model("user"), s.Model("pet")
	input := func() model.Record {
		shared := model.Record{"id": 2.0, "secret": "s", "owner": 1.0}
		return model.Record{
			"id": 1.0, "password": "hash", "prefs": map[string]any{"secret": "kept"},
			"best": shared,
			"pets": []model.Record{shared, {"id": 3.0, "secret": "t"}},
		}
	}
	check := func(name string) {
		t.Helper()
		want := user.Serialize(input())
		if diff := cmp.Diff(want, user.SerializeOwned(input())); diff != "" {
			t.Errorf("%s: SerializeOwned differs from Serialize (-want +got):\n%s", name, diff)
		}
	}
	check("omit")
	pet.ToJSON = func(r model.Record) model.Record {
		r["twice"] = r["id"].(float64) * 2
		delete(r, "secret")
		return r
	}
	check("child ToJSON")
	in := input()
	child := in["best"].(model.Record)
	user.SerializeOwned(in)
	if child["secret"] != "s" || child["twice"] != nil {
		t.Errorf("SerializeOwned handed a child with ToJSON over instead of a copy: %v", child)
	}
	user.ToJSON = func(r model.Record) model.Record { r["shown"] = true; return r }
	check("parent ToJSON")
}
