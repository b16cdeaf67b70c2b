package openapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/skiffhq/skiff/model"
)

// recordSchema is the schema of a record of m as clients receive it:
// omitted attributes (customToJSON.omit) left out, nothing required (select
// and omit shorten records). With populated set, a singular association is
// its key, its record or null and a collection an array of records (or of
// keys); without it (a record populated inside another), associations are
// keys, which keeps the schemas from referring to themselves.
func recordSchema(m *model.Model, populated bool) obj {
	s := obj{"type": "object", "title": m.Identity}
	if m.ToJSON != nil {
		s["description"] = "A " + m.Identity + " record, as the model's ToJSON function shapes it."
		return s
	}
	props := obj{}
	for _, name := range m.Order {
		a := m.Attributes[name]
		if containsString(m.Omit, name) {
			continue
		}
		switch {
		case a.IsSingular():
			key := keyOf(a)
			if populated {
				props[name] = obj{"oneOf": []any{key, ref(schemaName(a.Assoc.Target) + "Plain"), obj{"type": "null"}},
					"description": "The key of the `" + a.Model + "` record, the record when populated, or null."}
			} else {
				props[name] = obj{"oneOf": []any{key, obj{"type": "null"}}}
			}
		case a.IsPlural():
			if populated {
				props[name] = obj{"type": "array", "description": "The `" + a.Collection + "` records (when populated).",
					"items": obj{"oneOf": []any{keyOf(a), ref(schemaName(a.Assoc.Target) + "Plain")}}}
			} else {
				props[name] = obj{"type": "array", "items": keyOf(a)}
			}
		default:
			props[name] = typeSchema(a, a.AllowNull)
		}
	}
	s["properties"] = props
	return s
}

// keyOf is the schema of the primary key of a's target.
func keyOf(a *model.Attribute) obj {
	if a.Assoc != nil && a.Assoc.Target != nil {
		return keySchema(a.Assoc.Target)
	}
	return obj{"type": []any{"string", "number"}}
}

// typeSchema is the JSON type of a plain attribute; json and ref hold any
// value.
func typeSchema(a *model.Attribute, nullable bool) obj {
	var t string
	switch a.Type {
	case model.String:
		t = "string"
	case model.Number:
		t = "number"
	case model.Boolean:
		t = "boolean"
	default:
		// Any JSON value. Spelled out rather than {} because kin-openapi's
		// validator, which the tests use, reads {} as not nullable.
		return obj{"type": []any{"string", "number", "boolean", "object", "array", "null"}}
	}
	if nullable {
		return obj{"type": []any{t, "null"}}
	}
	return obj{"type": t}
}

// inputSchema is the schema of the body of a create (create set: required
// attributes required, defaults given) or of an update.
func inputSchema(m *model.Model, create bool) obj {
	props := obj{}
	var required []any
	for _, name := range m.Order {
		a := m.Attributes[name]
		var p obj
		switch {
		case a.IsSingular():
			if a.Required {
				p = keyOf(a)
			} else {
				p = obj{"oneOf": []any{keyOf(a), obj{"type": "null"}}}
			}
			p["description"] = "The key of a `" + a.Model + "` record."
		case a.IsPlural():
			p = obj{"type": "array", "items": keyOf(a), "description": "The keys of `" + a.Collection + "` records."}
		default:
			p = valueSchema(a)
		}
		if create && a.HasDefault {
			p["default"] = a.DefaultsTo
		}
		if create && a.Required {
			required = append(required, name)
		}
		props[name] = p
	}
	s := obj{"type": "object", "properties": props}
	if create {
		s["title"] = "New " + m.Identity
	} else {
		s["title"] = m.Identity + " changes"
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// valueSchema is the schema of a value written to a plain attribute: its
// type and validations. The string rules of anchor accept the empty string
// for attributes that are not required (and required ones refuse it).
func valueSchema(a *model.Attribute) obj {
	nullable := !a.Required && (a.AllowNull || a.Type == model.JSON || a.Type == model.Ref)
	base := typeSchema(a, nullable && a.Type != model.JSON && a.Type != model.Ref)
	if a.Type != model.String && a.Type != model.Number {
		return base
	}
	rules := obj{}
	var notes []string
	emptyOK := false // a rule that lets "" through applies
	for _, r := range a.Rules {
		switch r.Name {
		case "isIn":
			rules["enum"] = r.Arg
			emptyOK = true
		case "isNotIn":
			rules["not"] = obj{"enum": r.Arg}
			emptyOK = true
		case "minLength":
			rules["minLength"] = r.Arg
			emptyOK = true
		case "maxLength":
			rules["maxLength"] = r.Arg
			emptyOK = true
		case "isNotEmptyString":
			rules["minLength"] = 1
		case "min":
			rules["minimum"] = r.Arg
		case "max":
			rules["maximum"] = r.Arg
		case "isInteger":
			base["type"] = replaceType(base["type"], "number", "integer")
		case "isEmail":
			rules["format"] = "email"
			emptyOK = true
		case "isURL":
			rules["format"] = "uri"
			emptyOK = true
		case "isUUID":
			rules["format"] = "uuid"
			emptyOK = true
		case "isHexColor":
			rules["pattern"] = `^#?([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$`
			emptyOK = true
		case "regex":
			if p, ok := ecmaPattern(r.Arg); ok {
				rules["pattern"] = p
			} else {
				notes = append(notes, fmt.Sprintf("matches %v", r.Arg))
			}
			emptyOK = true
		case "isIP":
			notes = append(notes, "an IP address")
			emptyOK = true
		case "isCreditCard":
			notes = append(notes, "a credit card number")
			emptyOK = true
		case "isAfter", "isBefore":
			notes = append(notes, fmt.Sprintf("%s %v", r.Name, r.Arg))
		}
	}
	if a.Required && a.Type == model.String {
		if _, ok := rules["minLength"]; !ok {
			rules["minLength"] = 1
		}
	}
	if len(notes) > 0 {
		base["description"] = "Must be " + strings.Join(notes, "; ") + "."
	}
	if len(rules) == 0 {
		return base
	}
	if a.Type == model.String && emptyOK && !a.Required {
		// anchor skips these rules for "", so an optional attribute takes it.
		base["anyOf"] = []any{obj{"const": ""}, rules}
		return base
	}
	for k, v := range rules {
		base[k] = v
	}
	return base
}

func replaceType(t any, from, to string) any {
	switch x := t.(type) {
	case string:
		if x == from {
			return to
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
			if e == from {
				out[i] = to
			}
		}
		return out
	}
	return t
}

// ecmaPattern gives a regex rule as an ECMA-262 pattern, which OpenAPI
// patterns are; a "/pattern/flags" source with flags has no equivalent.
func ecmaPattern(arg any) (string, bool) {
	switch x := arg.(type) {
	case *regexp.Regexp:
		return x.String(), !strings.HasPrefix(x.String(), "(?")
	case string:
		if len(x) >= 2 && x[0] == '/' {
			end := strings.LastIndexByte(x, '/')
			if end > 0 && strings.Trim(x[end+1:], "gimsuy") == "" {
				return x[1:end], strings.Trim(x[end+1:], "gu") == ""
			}
		}
		return x, !strings.HasPrefix(x, "(?")
	}
	return "", false
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
