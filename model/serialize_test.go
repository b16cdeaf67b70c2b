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
