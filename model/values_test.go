package model_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/model"
)

var now = time.Date(2017, 1, 27, 20, 5, 32, 315_000_000, time.UTC)

const nowMS = 1485547532315.0

// writeSchema is a small app: users with pets (one-to-many), tags
// (many-to-many), typed attributes of every kind and rules.
func writeSchema(t *testing.T) *model.Schema {
	t.Helper()
	return mustSchema(t, defs{
		"user": {
			"name":     "string",
			"age":      "number",
			"admin":    "boolean",
			"prefs":    "json",
			"blob":     "ref",
			"email":    map[string]any{"type": "string", "required": true, "isEmail": true},
			"nick":     map[string]any{"type": "string", "allowNull": true},
			"role":     map[string]any{"type": "string", "defaultsTo": "member", "isIn": []any{"member", "admin"}},
			"settings": map[string]any{"type": "json", "defaultsTo": map[string]any{"theme": "dark"}},
			"bio":      map[string]any{"type": "string", "maxLength": 5},
			"score":    map[string]any{"type": "number", "min": 0, "max": 10},
			"seenAt":   map[string]any{"type": "string", "autoUpdatedAt": true},
			"bestPet":  map[string]any{"model": "pet"},
			"pets":     map[string]any{"collection": "pet", "via": "owner"},
			"tags":     map[string]any{"collection": "tag", "via": "users"},
		},
		"pet": {"owner": map[string]any{"model": "user"}, "name": "string"},
		"tag": {"users": map[string]any{"collection": "user", "via": "tags"}, "code": "string"},
	})
}

func TestNewRecordDefaults(t *testing.T) {
	user := writeSchema(t).Model("user")
	got, err := user.NewRecord(map[string]any{"email": "a@b.co", "unknown": 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Record{
		"name": "", "age": 0.0, "admin": false, "prefs": nil, "blob": nil, "email": "a@b.co", "nick": nil,
		"role": "member", "settings": map[string]any{"theme": "dark"}, "bio": "", "score": 0.0,
		"seenAt": "2017-01-27T20:05:32.315Z", "bestPet": nil, "createdAt": nowMS, "updatedAt": nowMS,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewRecord (-want +got):\n%s", diff)
	}
	// defaultsTo is deep-cloned per record.
	got["settings"].(map[string]any)["theme"] = "light"
	again, _ := user.NewRecord(map[string]any{"email": "a@b.co"}, now)
	if again["settings"].(map[string]any)["theme"] != "dark" {
		t.Errorf("defaultsTo shared between records")
	}
}

func TestNewRecordValues(t *testing.T) {
	user := writeSchema(t).Model("user")
	tests := []struct {
		name  string
		attr  string
		in    any
		want  any
		valid bool
	}{
		{"number from numeric string", "age", "12", 12.0, true},
		{"number from int", "age", 12, 12.0, true},
		{"number from negative string", "age", "-1.5", -1.5, true},
		{"number from bool", "age", true, 1.0, true},
		{"number from word", "age", "abc", nil, false},
		{"number from empty string", "age", "", nil, false},
		{"number from list", "age", []any{1}, nil, false},
		{"number null without allowNull", "age", nil, nil, false},
		{"string from number", "name", 12, "12", true},
		{"string from float", "name", 1.5, "1.5", true},
		{"string from bool", "name", true, "true", true},
		{"string from dictionary", "name", map[string]any{}, nil, false},
		{"string null without allowNull", "name", nil, nil, false},
		{"string null with allowNull", "nick", nil, nil, true},
		{"boolean from 'true'", "admin", "true", true, true},
		{"boolean from '0'", "admin", "0", false, true},
		{"boolean from 1", "admin", 1, true, true},
		{"boolean from 'yes'", "admin", "yes", nil, false},
		{"boolean null", "admin", nil, nil, false},
		{"json dictionary", "prefs", map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, true},
		{"json null", "prefs", nil, nil, true},
		{"ref anything", "blob", []any{"x"}, []any{"x"}, true},
		{"required empty string", "email", "", nil, false},
		{"required null", "email", nil, nil, false},
		{"rule isEmail", "email", "x", nil, false},
		{"rule isIn", "role", "admin", "admin", true},
		{"rule isIn fails", "role", "boss", nil, false},
		{"rule maxLength runes", "bio", "héllo", "héllo", true},
		{"rule maxLength fails", "bio", "hello!", nil, false},
		{"rule maxLength skips empty", "bio", "", "", true},
		{"rule min", "score", "0", 0.0, true},
		{"rule max inclusive", "score", 10, 10.0, true},
		{"rule max fails", "score", 10.5, nil, false},
		{"rule min fails", "score", -1, nil, false},
		{"timestamp explicit", "createdAt", 5, 5.0, true},
		{"timestamp empty string", "seenAt", "", nil, false},
		{"singular key", "bestPet", "7", 7.0, true},
		{"singular null", "bestPet", nil, nil, true},
		{"singular zero", "bestPet", 0, nil, false},
		{"singular float", "bestPet", 1.5, nil, false},
		{"singular word", "bestPet", "abc", nil, false},
		{"collection dedup", "tags", []any{1, "1", 2.0}, []any{1.0, 2.0}, true},
		{"collection single value", "pets", 3, []any{3.0}, true},
		{"collection bad id", "pets", []any{1, -2}, nil, false},
		{"collection null", "pets", nil, nil, false},
		{"pk digits", "id", "00012", 12.0, true},
		{"pk negative", "id", -3, nil, false},
		{"pk null", "id", nil, nil, false},
		{"pk unsafe", "id", 9007199254740992.0, nil, false},
		{"pk max safe", "id", 9007199254740991.0, 9007199254740991.0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]any{"email": "a@b.co", tt.attr: tt.in}
			got, err := user.NewRecord(in, now)
			if !tt.valid {
				e, ok := model.AsError(err)
				if !ok || e.Kind != model.Invalid || e.Code != model.CodeInvalidNewRecord || e.Model != "user" ||
					len(e.Attrs) != 1 || e.Attrs[0] != tt.attr {
					t.Fatalf("NewRecord(%s: %#v) = %v, %v; want E_INVALID_NEW_RECORD on %s", tt.attr, tt.in, got, err, tt.attr)
				}
				if !strings.Contains(e.Msg, "`"+tt.attr+"`") {
					t.Errorf("message does not name the attribute: %s", e.Msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewRecord(%s: %#v) error: %v", tt.attr, tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got[tt.attr]); diff != "" {
				t.Errorf("NewRecord(%s: %#v)[%s] (-want +got):\n%s", tt.attr, tt.in, tt.attr, diff)
			}
		})
	}
}

func TestNewRecordMissing(t *testing.T) {
	s := writeSchema(t)
	user := s.Model("user")
	_, err := user.NewRecord(map[string]any{"name": "x"}, now)
	if e, ok := model.AsError(err); !ok || e.Code != model.CodeInvalidNewRecord || e.Attrs[0] != "email" {
		t.Errorf("NewRecord without required email = %v", err)
	}
	rec, err := user.NewRecord(map[string]any{"email": "a@b.co"}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"id", "pets", "tags"} {
		if _, ok := rec[absent]; ok {
			t.Errorf("NewRecord: %s present, want absent", absent)
		}
	}
}

func TestSchemalessKeys(t *testing.T) {
	m, err := model.Parse("note", "", map[string]any{"schema": false, "attributes": map[string]any{"id": "number"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.NewRecord(map[string]any{"extra": map[string]any{"n": 1}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(model.Record{"extra": map[string]any{"n": 1.0}}, got); diff != "" {
		t.Errorf("NewRecord schema:false (-want +got):\n%s", diff)
	}
	_, err = m.NewRecord(map[string]any{"extra": func() {}}, now)
	if model.KindOf(err) != model.Invalid {
		t.Errorf("NewRecord with non-JSON extra key = %v, want Invalid", err)
	}
}

func TestValuesToSet(t *testing.T) {
	user := writeSchema(t).Model("user")
	got, err := user.ValuesToSet(map[string]any{"age": "3", "tags": []any{2}, "junk": 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Record{"age": 3.0, "tags": []any{2.0}, "updatedAt": nowMS, "seenAt": "2017-01-27T20:05:32.315Z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ValuesToSet (-want +got):\n%s", diff)
	}
	got, err = user.ValuesToSet(map[string]any{"updatedAt": 1, "createdAt": "2"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got["updatedAt"] != 1.0 || got["createdAt"] != 2.0 {
		t.Errorf("ValuesToSet must honour supplied timestamps: %v", got)
	}
	for _, in := range []map[string]any{{"email": nil}, {"email": ""}, {"age": nil}, {"score": 11}} {
		_, err := user.ValuesToSet(in, now)
		if e, ok := model.AsError(err); !ok || e.Code != model.CodeInvalidValuesToSet || e.Kind != model.Invalid {
			t.Errorf("ValuesToSet(%v) error = %v, want E_INVALID_VALUES_TO_SET", in, err)
		}
	}
}

func TestNormalizePK(t *testing.T) {
	s := mustSchema(t, defs{"n": {"x": "string"}})
	num := s.Model("n")
	code := mustParse(t, "c", map[string]any{"primaryKey": "code", "attributes": map[string]any{"code": "string"}})
	tests := []struct {
		m    *model.Model
		in   any
		want any
	}{
		{num, 5, 5.0},
		{num, "5", 5.0},
		{num, uint64(5), 5.0},
		{num, 0, nil},
		{num, "5.0", nil},
		{num, " 5", nil},
		{num, 2.5, nil},
		{num, true, nil},
		{code, "abc", "abc"},
		{code, "", nil},
		{code, 5, nil},
	}
	for _, tt := range tests {
		got, err := tt.m.NormalizePK(tt.in)
		if tt.want == nil {
			if e, ok := model.AsError(err); !ok || e.Kind != model.Invalid || e.Code != model.CodeInvalidCriteria {
				t.Errorf("%s.NormalizePK(%#v) = %v, %v; want Invalid", tt.m.Identity, tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s.NormalizePK(%#v) = %v, %v; want %v", tt.m.Identity, tt.in, got, err, tt.want)
		}
	}
}

func TestTimestampTypes(t *testing.T) {
	m, err := model.Parse("ev", "", attrs(map[string]any{
		"id": "number",
		"n":  map[string]any{"type": "number", "autoCreatedAt": true},
		"s":  map[string]any{"type": "string", "autoCreatedAt": true},
		"r":  map[string]any{"type": "ref", "autoUpdatedAt": true},
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.NewRecord(nil, now.In(time.FixedZone("x", 3600)))
	if err != nil {
		t.Fatal(err)
	}
	want := model.Record{"n": nowMS, "s": "2017-01-27T20:05:32.315Z", "r": "2017-01-27T20:05:32.315Z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timestamps (-want +got):\n%s", diff)
	}
}

func TestRuleViolationMessage(t *testing.T) {
	user := writeSchema(t).Model("user")
	_, err := user.NewRecord(map[string]any{"email": "x"}, now)
	e, ok := model.AsError(err)
	// The text is what clients read in `details`, shaped as Waterline's.
	want := "Could not use specified `email`.  Violated one or more validation rules:\n  • Value ('x') was not a valid email address."
	if !ok || e.Msg != want {
		t.Errorf("NewRecord(bad email) message = %q, want %q", errMsg(err), want)
	}
}

func errMsg(err error) string {
	if e, ok := model.AsError(err); ok {
		return e.Msg
	}
	return ""
}

func TestCustomRules(t *testing.T) {
	m := mustParse(t, "x", attrs(map[string]any{"even": "number"}))
	errOdd := errors.New("Value was odd.")
	m.Attr("even").CustomRules = []func(any) error{func(v any) error {
		if int(v.(float64))%2 != 0 {
			return errOdd
		}
		return nil
	}}
	if _, err := m.NewRecord(map[string]any{"even": 2}, now); err != nil {
		t.Errorf("custom rule rejected 2: %v", err)
	}
	if _, err := m.NewRecord(map[string]any{"even": 3}, now); model.KindOf(err) != model.Invalid {
		t.Errorf("custom rule accepted 3: %v", err)
	}
}

func TestInputNotMutated(t *testing.T) {
	user := writeSchema(t).Model("user")
	prefs := map[string]any{"n": 1}
	in := map[string]any{"email": "a@b.co", "age": "3", "prefs": prefs}
	if _, err := user.NewRecord(in, now); err != nil {
		t.Fatal(err)
	}
	if in["age"] != "3" || prefs["n"] != 1 {
		t.Errorf("NewRecord mutated its input: %v", in)
	}
}

func TestValidKey(t *testing.T) {
	for _, k := range []string{"a", "_", "$", "camelCase", "snake_case", "x9", strings.Repeat("k", model.MaxKeyLength), "newish", "Null"} {
		if !model.ValidKey(k) {
			t.Errorf("ValidKey(%q) = false, want true", k)
		}
	}
	for _, k := range []string{"", "9x", "a-b", "a.b", "a b", `a"b`, `a\b`, "$[0]", "é", "new", "null", "toJSON", "TOOBJECT",
		strings.Repeat("k", model.MaxKeyLength+1)} {
		if model.ValidKey(k) {
			t.Errorf("ValidKey(%q) = true, want false", k)
		}
	}
	m, err := model.Parse("note", "", map[string]any{"schema": false, "attributes": map[string]any{"id": "number"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.ValuesToSet(map[string]any{"a.b": 1.0}, now); model.KindOf(err) != model.Invalid {
		t.Errorf("ValuesToSet(a.b) = %v, want Invalid", err)
	}
}

func TestSchemalessOmit(t *testing.T) {
	def := map[string]any{"schema": false, "customToJSON": map[string]any{"omit": []any{"secret"}},
		"attributes": map[string]any{"id": "number"}}
	m, err := model.Parse("note", "", def, nil)
	if err != nil {
		t.Fatalf("Parse(schemaless, omit an undeclared key) = %v", err)
	}
	got := m.Serialize(model.Record{"id": 1.0, "secret": "s", "shown": true})
	if diff := cmp.Diff(model.Record{"id": 1.0, "shown": true}, got); diff != "" {
		t.Errorf("Serialize (-want +got):\n%s", diff)
	}
	def["schema"] = true
	if _, err := model.Parse("note", "", def, nil); err == nil {
		t.Error("Parse(schemaful, omit an undeclared key) = nil error, want a definition error")
	}
	def["schema"], def["customToJSON"] = false, map[string]any{"omit": []any{"a.b"}}
	if _, err := model.Parse("note", "", def, nil); err == nil {
		t.Error("Parse(schemaless, omit an invalid key) = nil error, want a definition error")
	}
}
