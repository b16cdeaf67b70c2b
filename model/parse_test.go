package model_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/model"
)

// templateDefaults is the new-app template's models config.
func templateDefaults() map[string]any {
	return map[string]any{"attributes": map[string]any{
		"id":        map[string]any{"type": "number", "autoIncrement": true},
		"createdAt": map[string]any{"type": "number", "autoCreatedAt": true},
		"updatedAt": map[string]any{"type": "number", "autoUpdatedAt": true},
	}}
}

func attrs(a map[string]any) map[string]any { return map[string]any{"attributes": a} }

func mustParse(t *testing.T, identity string, def map[string]any) *model.Model {
	t.Helper()
	m, err := model.Parse(identity, "models/"+identity+".yaml", def, templateDefaults())
	if err != nil {
		t.Fatalf("Parse(%s) error: %v", identity, err)
	}
	return m
}

func TestParseDefaults(t *testing.T) {
	m := mustParse(t, "User", attrs(map[string]any{
		"name":  "string",
		"age":   map[string]any{"type": "number", "defaultsTo": 3, "min": int64(0)},
		"email": map[string]any{"type": "string", "email": true, "columnName": "email_address"},
		"pet":   map[string]any{"model": "Pet"},
		"tags":  map[string]any{"collection": "tag", "via": "users"},
	}))
	if m.Identity != "user" || m.TableName != "user" || m.PrimaryKey != "id" || m.Datastore != "default" || !m.Schema || m.Migrate != "" {
		t.Errorf("Parse settings = %q %q %q %q %v %q", m.Identity, m.TableName, m.PrimaryKey, m.Datastore, m.Schema, m.Migrate)
	}
	wantOrder := []string{"id", "age", "email", "name", "pet", "tags", "createdAt", "updatedAt"}
	if diff := cmp.Diff(wantOrder, m.Order); diff != "" {
		t.Errorf("Order (-want +got):\n%s", diff)
	}
	if a := m.Attr("age"); a.DefaultsTo != 3.0 || !a.HasDefault || a.ColumnName != "age" || len(a.Rules) != 1 || a.Rules[0].Arg != 0.0 {
		t.Errorf("age = %+v", a)
	}
	if a := m.Attr("email"); a.ColumnName != "email_address" || len(a.Rules) != 1 || a.Rules[0].Name != "isEmail" {
		t.Errorf("email = %+v (legacy rule name must become isEmail)", a)
	}
	if a := m.Attr("pet"); a.Model != "pet" || !a.IsSingular() {
		t.Errorf("pet = %+v", a)
	}
	if a := m.PK(); !a.AutoIncrement || a.Type != model.Number || !a.Unique {
		t.Errorf("pk = %+v", a)
	}
	if a := m.Attr("createdAt"); !a.AutoCreatedAt || a.ColumnType != "_numbertimestamp" {
		t.Errorf("createdAt = %+v", a)
	}
}

func TestParseSettings(t *testing.T) {
	def := map[string]any{
		"tableName": "people", "primaryKey": "email", "datastore": "other", "schema": false,
		"migrate": "drop", "cascadeOnDestroy": true,
		"customToJSON": map[string]any{"omit": []any{"password"}},
		"attributes": map[string]any{
			"email":     map[string]any{"type": "string", "required": true},
			"password":  "string",
			"createdAt": false,
			"id":        false,
		},
	}
	m, err := model.Parse("person", "models/person.yaml", def, map[string]any{
		"attributes": templateDefaults()["attributes"], "cascadeOnDestroy": false, "migrate": "safe", "datastore": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.TableName != "people" || m.PrimaryKey != "email" || m.Datastore != "other" || m.Schema ||
		m.Migrate != model.MigrateDrop || !m.CascadeOnDestroy {
		t.Errorf("settings = %+v", m)
	}
	if diff := cmp.Diff([]string{"email", "password", "updatedAt"}, m.Order); diff != "" {
		t.Errorf("Order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"password"}, m.Omit); diff != "" {
		t.Errorf("Omit (-want +got):\n%s", diff)
	}
	// Defaults apply when the model does not say otherwise.
	m2, err := model.Parse("thing", "", attrs(map[string]any{"id": "number"}), map[string]any{"migrate": "safe", "schema": false})
	if err != nil {
		t.Fatal(err)
	}
	if m2.Migrate != model.MigrateSafe || m2.Schema {
		t.Errorf("defaults not applied: %+v", m2)
	}
}

func TestParseTypeRenames(t *testing.T) {
	m := mustParse(t, "x", attrs(map[string]any{
		"a": "text", "b": "integer", "c": map[string]any{"type": "FLOAT"}, "d": "json",
	}))
	for name, want := range map[string]model.Type{"a": model.String, "b": model.Number, "c": model.Number, "d": model.JSON} {
		if got := m.Attr(name).Type; got != want {
			t.Errorf("type of %s = %s, want %s", name, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		identity string
		def      map[string]any
		defaults map[string]any
		attr     string
	}{
		{"bad identity", "9user", attrs(nil), nil, ""},
		{"identity with dash", "my-user", attrs(nil), nil, ""},
		{"legacy autoPK", "x", map[string]any{"autoPK": false}, nil, ""},
		{"legacy connection", "x", map[string]any{"connection": "db"}, nil, ""},
		{"legacy connection in defaults", "x", attrs(nil), map[string]any{"connection": "db"}, ""},
		{"legacy autoCreatedAt", "x", map[string]any{"autoCreatedAt": true}, nil, ""},
		{"tableName in defaults", "x", attrs(nil), map[string]any{"tableName": "t"}, ""},
		{"unknown model key", "x", map[string]any{"colour": "red"}, nil, ""},
		{"schema not bool", "x", map[string]any{"schema": "yes"}, nil, ""},
		{"bad migrate", "x", map[string]any{"migrate": "sometimes"}, nil, ""},
		{"attributes not a map", "x", map[string]any{"attributes": []any{}}, nil, ""},
		{"customToJSON function", "x", map[string]any{"customToJSON": "function(){}"}, nil, ""},
		{"customToJSON unknown attr", "x", map[string]any{"customToJSON": map[string]any{"omit": []any{"nope"}}}, nil, ""},
		{"primaryKey names nothing", "x", map[string]any{"primaryKey": "uid"}, nil, ""},
		{"primaryKey boolean", "x", attrs(map[string]any{"id": "boolean"}), nil, "id"},
		{"primaryKey association", "x", map[string]any{"primaryKey": "o", "attributes": map[string]any{"o": map[string]any{"model": "y"}}}, nil, "o"},
		{"pk allowNull", "x", attrs(map[string]any{"id": map[string]any{"type": "number", "allowNull": true}}), nil, "id"},
		{"pk defaultsTo", "x", attrs(map[string]any{"id": map[string]any{"type": "number", "defaultsTo": 1}}), nil, "id"},
		{"pk timestamp", "x", attrs(map[string]any{"id": map[string]any{"type": "number", "autoCreatedAt": true}}), nil, "id"},
		{"primaryKey on attribute", "x", attrs(map[string]any{"email": map[string]any{"type": "string", "primaryKey": true}}), nil, "email"},
		{"protected", "x", attrs(map[string]any{"p": map[string]any{"type": "string", "protected": true}}), nil, "p"},
		{"attribute named toJSON", "x", attrs(map[string]any{"toJSON": "string"}), nil, "toJSON"},
		{"dot in name", "x", attrs(map[string]any{"a.b": "string"}), nil, "a.b"},
		{"legacy type array", "x", attrs(map[string]any{"a": "array"}), nil, "a"},
		{"legacy type date", "x", attrs(map[string]any{"a": map[string]any{"type": "datetime"}}), nil, "a"},
		{"unknown type", "x", attrs(map[string]any{"a": "uuid"}), nil, "a"},
		{"missing type", "x", attrs(map[string]any{"a": map[string]any{"required": true}}), nil, "a"},
		{"definition a number", "x", attrs(map[string]any{"a": 3}), nil, "a"},
		{"unknown key", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "size": 3}}), nil, "a"},
		{"unknown key in default attribute", "x", attrs(nil), attrs(map[string]any{"a": map[string]any{"type": "string", "size": 3}}), "a"},
		{"removed rule", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "alpha": true}}), nil, "a"},
		{"removed rule notNull", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "notNull": true}}), nil, "a"},
		{"required not bool", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "required": "yes"}}), nil, "a"},
		{"columnName not string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "columnName": 3}}), nil, "a"},
		{"type on association", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "model": "y"}}), nil, "a"},
		{"model and collection", "x", attrs(map[string]any{"a": map[string]any{"model": "y", "collection": "y"}}), nil, "a"},
		{"required with defaultsTo", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "required": true, "defaultsTo": "x"}}), nil, "a"},
		{"required with allowNull", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "required": true, "allowNull": true}}), nil, "a"},
		{"required on collection", "x", attrs(map[string]any{"a": map[string]any{"collection": "y", "required": true}}), nil, "a"},
		{"columnName on collection", "x", attrs(map[string]any{"a": map[string]any{"collection": "y", "columnName": "c"}}), nil, "a"},
		{"allowNull on json", "x", attrs(map[string]any{"a": map[string]any{"type": "json", "allowNull": true}}), nil, "a"},
		{"allowNull on ref", "x", attrs(map[string]any{"a": map[string]any{"type": "ref", "allowNull": true}}), nil, "a"},
		{"allowNull on association", "x", attrs(map[string]any{"a": map[string]any{"model": "y", "allowNull": true}}), nil, "a"},
		{"allowNull on timestamp", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "autoUpdatedAt": true, "allowNull": true}}), nil, "a"},
		{"allowNull with defaultsTo null", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "allowNull": true, "defaultsTo": nil}}), nil, "a"},
		{"defaultsTo wrong type", "x", attrs(map[string]any{"age": map[string]any{"type": "number", "defaultsTo": "x"}}), nil, "age"},
		{"defaultsTo numeric string", "x", attrs(map[string]any{"age": map[string]any{"type": "number", "defaultsTo": "12"}}), nil, "age"},
		{"defaultsTo number on string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "defaultsTo": 12}}), nil, "a"},
		{"defaultsTo null on boolean", "x", attrs(map[string]any{"a": map[string]any{"type": "boolean", "defaultsTo": nil}}), nil, "a"},
		{"defaultsTo breaks rule", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "isIn": []any{"a"}, "defaultsTo": "b"}}), nil, "a"},
		{"defaultsTo on association", "x", attrs(map[string]any{"a": map[string]any{"model": "y", "defaultsTo": 1}}), nil, "a"},
		{"defaultsTo on timestamp", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "autoCreatedAt": true, "defaultsTo": 1}}), nil, "a"},
		{"both timestamps", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "autoCreatedAt": true, "autoUpdatedAt": true}}), nil, "a"},
		{"boolean timestamp", "x", attrs(map[string]any{"a": map[string]any{"type": "boolean", "autoCreatedAt": true}}), nil, "a"},
		{"required timestamp", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "autoCreatedAt": true, "required": true}}), nil, "a"},
		{"autoIncrement on string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "autoIncrement": true}}), nil, "a"},
		{"via on model", "x", attrs(map[string]any{"a": map[string]any{"model": "y", "via": "b"}}), nil, "a"},
		{"through without via", "x", attrs(map[string]any{"a": map[string]any{"collection": "y", "through": "z"}}), nil, "a"},
		{"dominant without via", "x", attrs(map[string]any{"a": map[string]any{"collection": "y", "dominant": true}}), nil, "a"},
		{"dominant on model", "x", attrs(map[string]any{"a": map[string]any{"model": "y", "dominant": true}}), nil, "a"},
		{"rule not for type", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "isEmail": true}}), nil, "a"},
		{"maxLength on number", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "maxLength": 3}}), nil, "a"},
		{"min on string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "min": 3}}), nil, "a"},
		{"isString on string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "isString": true}}), nil, "a"},
		{"isIn on boolean", "x", attrs(map[string]any{"a": map[string]any{"type": "boolean", "isIn": []any{true}}}), nil, "a"},
		{"regex does not compile", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "regex": "(["}}), nil, "a"},
		{"regex not a string", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "regex": 3}}), nil, "a"},
		{"flag rule not bool", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "isEmail": "yes"}}), nil, "a"},
		{"min not a number", "x", attrs(map[string]any{"a": map[string]any{"type": "number", "min": "3"}}), nil, "a"},
		{"maxLength negative", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "maxLength": -1}}), nil, "a"},
		{"maxLength fraction", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "maxLength": 1.5}}), nil, "a"},
		{"isIn not a list", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "isIn": "a,b"}}), nil, "a"},
		{"isAfter bad date", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "isAfter": "someday"}}), nil, "a"},
		{"rule twice via legacy name", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "in": []any{"a"}, "isIn": []any{"a"}}}), nil, "a"},
		{"custom from YAML", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "custom": true}}), nil, "a"},
		{"encrypt", "x", attrs(map[string]any{"a": map[string]any{"type": "string", "encrypt": true}}), nil, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defaults := tt.defaults
			if defaults == nil {
				defaults = templateDefaults()
			}
			m, err := model.Parse(tt.identity, "models/x.yaml", tt.def, defaults)
			var de *model.DefinitionError
			if !errors.As(err, &de) {
				t.Fatalf("Parse() = %v, %v; want a *DefinitionError", m, err)
			}
			if de.Attr != tt.attr {
				t.Errorf("Parse() error attr = %q, want %q (%v)", de.Attr, tt.attr, err)
			}
		})
	}
}

func TestDefinitionErrorText(t *testing.T) {
	_, err := model.Parse("user", "models/user.yaml", attrs(map[string]any{"age": map[string]any{"type": "number", "defaultsTo": "x"}}), nil)
	want := `models/user.yaml: attribute "age": defaultsTo "x" is not a number`
	if err == nil || err.Error() != want {
		t.Errorf("Parse() error = %v, want %s", err, want)
	}
}

func TestParseAccepted(t *testing.T) {
	tests := []struct {
		name string
		attr any
	}{
		{"doc keys", map[string]any{"type": "string", "description": "d", "example": "e", "extendedDescription": "x", "meta": map[string]any{}}},
		{"flag rule false", map[string]any{"type": "string", "isEmail": false}},
		{"regex with flags", map[string]any{"type": "string", "regex": "/^a+$/i"}},
		{"isAfter ms", map[string]any{"type": "number", "isAfter": 1000}},
		{"json defaultsTo", map[string]any{"type": "json", "defaultsTo": map[string]any{"a": []any{1, "b"}}}},
		{"json defaultsTo null", map[string]any{"type": "json", "defaultsTo": nil}},
		{"rule on association ignored", map[string]any{"model": "y", "isEmail": true}},
		{"string timestamp", map[string]any{"type": "string", "autoUpdatedAt": true}},
		{"allowNull with default", map[string]any{"type": "string", "allowNull": true, "defaultsTo": "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := model.Parse("x", "", attrs(map[string]any{"a": tt.attr}), templateDefaults()); err != nil {
				t.Errorf("Parse() error: %v", err)
			}
		})
	}
}
