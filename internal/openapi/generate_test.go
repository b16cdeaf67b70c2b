package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
)

func parse(t *testing.T, identity, def string) *model.Model {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(def), &d); err != nil {
		t.Fatal(err)
	}
	m, err := model.Parse(identity, identity+".json", d, map[string]any{"attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// describe returns the document of opts, validated with kin-openapi, and
// decoded.
func describe(t *testing.T, opts skiff.Options) map[string]any {
	t.Helper()
	b, err := skiff.DescribeAPI(opts)
	if err != nil {
		t.Fatal(err)
	}
	load(t, b)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func dig(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// TestSchemasFromValidations: types, required, allowNull, defaultsTo and
// the validation rules become JSON Schema keywords in request bodies;
// responses leave out customToJSON.omit and describe associations as keys
// or records.
func TestSchemasFromValidations(t *testing.T) {
	account := parse(t, "account", `{"attributes": {
		"name": {"type": "string", "required": true, "maxLength": 20},
		"email": {"type": "string", "isEmail": true},
		"role": {"type": "string", "isIn": ["admin", "user"], "defaultsTo": "user"},
		"code": {"type": "string", "required": true, "regex": "^[a-z]+$"},
		"age": {"type": "number", "min": 0, "max": 150, "isInteger": true, "allowNull": true},
		"active": {"type": "boolean"},
		"prefs": {"type": "json"},
		"secret": {"type": "string"},
		"team": {"model": "team"},
		"badges": {"collection": "badge"}
	}, "customToJSON": {"omit": ["secret"]}}`)
	team := parse(t, "team", `{"attributes": {"key": {"type": "string"}}, "primaryKey": "key"}`)
	badge := parse(t, "badge", `{"attributes": {"label": {"type": "string"}}}`)
	doc := describe(t, skiff.Options{Models: []*model.Model{account, team, badge}})
	schemas := dig(doc, "components", "schemas")

	anyJSON := []any{"string", "number", "boolean", "object", "array", "null"}
	wantNew := map[string]any{
		"type": "object", "title": "New account", "required": []any{"code", "name"},
		"properties": map[string]any{
			"id":     map[string]any{"type": "number"},
			"name":   map[string]any{"type": "string", "maxLength": 20.0, "minLength": 1.0},
			"email":  map[string]any{"type": "string", "anyOf": []any{map[string]any{"const": ""}, map[string]any{"format": "email"}}},
			"role":   map[string]any{"type": "string", "default": "user", "anyOf": []any{map[string]any{"const": ""}, map[string]any{"enum": []any{"admin", "user"}}}},
			"code":   map[string]any{"type": "string", "pattern": "^[a-z]+$", "minLength": 1.0},
			"age":    map[string]any{"type": []any{"integer", "null"}, "minimum": 0.0, "maximum": 150.0},
			"active": map[string]any{"type": "boolean"},
			"prefs":  map[string]any{"type": anyJSON},
			"secret": map[string]any{"type": "string"},
			"team": map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}},
				"description": "The key of a `team` record."},
			"badges": map[string]any{"type": "array", "items": map[string]any{"type": "number"}, "description": "The keys of `badge` records."},
		},
	}
	if diff := cmp.Diff(wantNew, dig(schemas, "AccountNew")); diff != "" {
		t.Errorf("AccountNew (-want +got):\n%s", diff)
	}
	patch := dig(schemas, "AccountPatch").(map[string]any)
	if _, ok := patch["required"]; ok {
		t.Errorf("AccountPatch requires %v, want nothing required", patch["required"])
	}
	if d := dig(patch, "properties", "role", "default"); d != nil {
		t.Errorf("AccountPatch gives role the default %v, want none (an update sets no defaults)", d)
	}

	rec := dig(schemas, "Account", "properties").(map[string]any)
	if _, ok := rec["secret"]; ok {
		t.Errorf("the account response has secret, which customToJSON.omit leaves out")
	}
	wantTeam := map[string]any{
		"description": "The key of the `team` record, the record when populated, or null.",
		"oneOf":       []any{map[string]any{"type": "string"}, map[string]any{"$ref": "#/components/schemas/TeamPlain"}, map[string]any{"type": "null"}},
	}
	if diff := cmp.Diff(wantTeam, rec["team"]); diff != "" {
		t.Errorf("Account.team (-want +got):\n%s", diff)
	}
	if got := dig(rec, "badges", "items", "oneOf"); !cmp.Equal(got, []any{map[string]any{"type": "number"}, map[string]any{"$ref": "#/components/schemas/BadgePlain"}}) {
		t.Errorf("Account.badges items = %v, want a key or a badge", got)
	}
	if got := dig(rec, "age", "type"); !cmp.Equal(got, []any{"number", "null"}) {
		t.Errorf("Account.age type = %v, want [number null]", got)
	}

	// The criteria of find, and the error bodies.
	var names []string
	for _, p := range dig(doc, "paths", "/account", "get", "parameters").([]any) {
		if r, ok := dig(p, "$ref").(string); ok {
			names = append(names, strings.TrimPrefix(r, "#/components/parameters/"))
		} else {
			names = append(names, dig(p, "name").(string))
		}
	}
	want := []string{"where", "limit", "skip", "sort", "select", "omit", "populate", "id", "active", "age", "code", "email", "name", "prefs", "role", "team"}
	if !slices.Equal(names, want) {
		t.Errorf("GET /account parameters = %v, want %v", names, want)
	}
	if got := dig(doc, "components", "responses", "NotFound", "content", "text/plain", "schema", "const"); got != "Not Found" {
		t.Errorf("the 404 body is %v, want the text Not Found", got)
	}
	if got := dig(schemas, "UniqueError", "required"); !cmp.Equal(got, []any{"code", "message", "modelIdentity", "attrNames"}) {
		t.Errorf("UniqueError requires %v", got)
	}
}

func paths(doc map[string]any) []string {
	var out []string
	for p, item := range dig(doc, "paths").(map[string]any) {
		for m := range item.(map[string]any) {
			out = append(out, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(out)
	return out
}

// TestBlueprintSettings: the paths follow prefix, restPrefix, pluralize,
// rest and actions; shortcuts are left out; a custom route shadows the
// blueprint route it precedes and has no schema.
func TestBlueprintSettings(t *testing.T) {
	pet := func() *model.Model { return parse(t, "pet", `{"attributes": {"name": {"type": "string"}}}`) }
	hello := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	doc := describe(t, skiff.Options{
		Models:     []*model.Model{pet()},
		Blueprints: &skiff.Blueprints{Rest: true, Shortcuts: true, Actions: true, Pluralize: true, Prefix: "/api", RestPrefix: "/v1"},
		Actions:    map[string]http.Handler{"hello": hello},
		Routes: []skiff.Route{{Method: "GET", Path: "/api/v1/pets/:id", Handler: hello}, {Path: "/files/*", Handler: hello},
			{Method: "GET", Path: "/docs/:page?", Redirect: "/"}},
		Sockets: skiff.Sockets{Disabled: true},
	})
	want := []string{
		"DELETE /api/hello", "DELETE /api/v1/pets/{id}",
		"GET /api/hello", "GET /api/v1/pets", "GET /api/v1/pets/{id}", "GET /docs", "GET /docs/{page}", "GET /openapi.json",
		"PATCH /api/hello", "PATCH /api/v1/pets/{id}",
		"POST /api/hello", "POST /api/v1/pets",
		"PUT /api/hello", "PUT /api/v1/pets/{id}",
	}
	if got := paths(doc); !slices.Equal(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
	if got := dig(doc, "paths", "/api/v1/pets/{id}", "get", "responses", "default"); got == nil {
		t.Errorf("GET /api/v1/pets/{id} is not the custom route that shadows findOne: %v", dig(doc, "paths", "/api/v1/pets/{id}", "get"))
	}
	desc := dig(doc, "info", "description").(string)
	if !strings.Contains(desc, "shortcut routes") || !strings.Contains(desc, "/files/*") {
		t.Errorf("the description does not say that shortcuts and /files/* are left out: %s", desc)
	}

	// rest: false leaves the models undescribed (only shortcuts).
	doc = describe(t, skiff.Options{Models: []*model.Model{pet()}, Blueprints: &skiff.Blueprints{Shortcuts: true}})
	if got := paths(doc); !slices.Equal(got, []string{"GET /__getcookie", "GET /openapi.json"}) {
		t.Errorf("paths without rest = %v", got)
	}
	if got := dig(doc, "tags").([]any); len(got) != 1 || dig(got[0], "name") != "custom" {
		t.Errorf("tags without rest = %v, want only custom", got)
	}
	// In production the document is not a route unless enabled.
	doc = describe(t, skiff.Options{Env: "production", Models: []*model.Model{pet()}})
	if got := dig(doc, "paths", "/openapi.json"); got != nil {
		t.Errorf("production documents /openapi.json without openapi.enabled")
	}
}

// TestServedWhereConfigured: GET /openapi.json in development, not in
// production unless enabled, then at its path.
func TestServedWhereConfigured(t *testing.T) {
	on := true
	for _, tc := range []struct {
		name   string
		env    string
		api    skiff.OpenAPI
		path   string
		status int
	}{
		{"development", "development", skiff.OpenAPI{}, "/openapi.json", http.StatusOK},
		{"development, off", "development", skiff.OpenAPI{Enabled: new(bool)}, "/openapi.json", http.StatusNotFound},
		{"production", "production", skiff.OpenAPI{}, "/openapi.json", http.StatusNotFound},
		{"production, enabled", "production", skiff.OpenAPI{Enabled: &on, Path: "/api/spec.json"}, "/api/spec.json", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parse(t, "note", `{"attributes": {"text": {"type": "string"}}}`)
			m.Migrate = model.MigrateSafe
			db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: ":memory:"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			app, err := skiff.New(t.Context(), skiff.Options{
				Env: tc.env, Models: []*model.Model{m}, Datastores: map[string]datastore.Adapter{"default": db}, OpenAPI: tc.api,
				Session: skiff.SessionSettings{Secret: "s"}, Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://app.example"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { app.Close() })
			w := httptest.NewRecorder()
			app.Handler().ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
			if w.Code != tc.status {
				t.Fatalf("GET %s = %d, want %d", tc.path, w.Code, tc.status)
			}
			if tc.status == http.StatusOK {
				load(t, w.Body.Bytes())
				if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type = %q", ct)
				}
			}
		})
	}
}
