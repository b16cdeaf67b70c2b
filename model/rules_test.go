package model_test

import (
	"testing"

	"github.com/skiffhq/skiff/model"
)

func TestRules(t *testing.T) {
	type check struct {
		v  any
		ok bool
	}
	tests := []struct {
		rule   string
		typ    string
		arg    any
		checks []check
	}{
		{"isEmail", "string", true, []check{
			{"a@b.co", true}, {"first.last+tag@sub.example.org", true}, {"", true}, {"üser@exämple.de", true},
			{"x", false}, {"a@b", false}, {"a@localhost", false}, {"a..b@c.com", false}, {"a@b.c", false},
			{"a b@c.com", false}, {"@c.com", false}, {"a@-c.com", false}, {"a@c_d.com", false}, {`"a b"@c.com`, true},
		}},
		{"isURL", "string", true, []check{
			{"http://example.com", true}, {"example.com/path?q=1#f", true}, {"https://user:pw@ex.com:8080/", true},
			{"http://localhost:1337/x", true}, {"http://127.0.0.1/", true}, {"http://[::1]:80/", true},
			{"ftp://ex.com", true}, {"mailto:a@b.co", false}, {"http://", false}, {"http://ex", false},
			{"gopher://ex.com", false}, {"http://ex.com:99999", false}, {"http://ex .com", false}, {"//ex.com", false},
		}},
		{"isUUID", "string", true, []check{
			{"A987FBC9-4BED-3078-CF07-9141BA07C9F3", true}, {"a987fbc9-4bed-4078-8f07-9141ba07c9f3", true},
			{"a987fbc94bed4078-8f07-9141ba07c9f3", false}, {"xxxxxxxx-4bed-4078-8f07-9141ba07c9f3", false},
		}},
		{"isIP", "string", true, []check{
			{"127.0.0.1", true}, {"255.255.255.255", true}, {"::1", true}, {"2001:db8::ff00:42:8329", true},
			{"::ffff:127.0.0.1", true}, {"256.0.0.1", false}, {"1.2.3", false}, {"01.2.3.4", false}, {"abc", false},
		}},
		{"isCreditCard", "string", true, []check{
			{"4111111111111111", true}, {"4111-1111-1111-1111", true}, {"5500 0000 0000 0004", true},
			{"4111111111111112", false}, {"1234", false},
		}},
		{"isHexColor", "string", true, []check{
			{"#fff", true}, {"ff00aa", true}, {"#ff00aa80", true}, {"#ggg", false}, {"#ff00a", false},
		}},
		{"isIn", "number", []any{1, 2}, []check{{"1", true}, {3, false}}},
		{"isNotIn", "string", []any{"a", "b"}, []check{{"c", true}, {"a", false}, {"", true}}},
		{"minLength", "string", 3, []check{{"abc", true}, {"ab", false}, {"", true}, {"äöü", true}}},
		{"maxLength", "string", 2, []check{{"ab", true}, {"abc", false}, {"日本", true}}},
		{"regex", "string", "^[a-z]+$", []check{{"abc", true}, {"aBc", false}, {"", true}}},
		{"regex", "string", "/^[a-z]+$/i", []check{{"aBc", true}, {"a1", false}}},
		{"isAfter", "string", "2020-01-01", []check{{"2020-01-02T00:00:00Z", true}, {"2019-12-31", false}, {"junk", false}}},
		{"isBefore", "number", "2020-01-01T00:00:00.000Z", []check{{1577836799999.0, true}, {1577836800000.0, false}}},
		{"isInteger", "number", true, []check{{3, true}, {"3.5", false}}},
		{"isNotEmptyString", "string", true, []check{{"a", true}, {"", false}}},
		{"isNumber", "json", true, []check{{1, true}, {"1", false}}},
		{"isString", "json", true, []check{{"1", true}, {1, false}}},
		{"isBoolean", "ref", true, []check{{false, true}, {"false", false}}},
		{"min", "json", -1, []check{{-1, true}, {-2, false}, {"x", false}}},
	}
	for _, tt := range tests {
		m, err := model.Parse("x", "", attrs(map[string]any{
			"id": "number",
			"a":  map[string]any{"type": tt.typ, tt.rule: tt.arg},
		}), nil)
		if err != nil {
			t.Fatalf("Parse(%s: %v): %v", tt.rule, tt.arg, err)
		}
		for _, c := range tt.checks {
			_, err := m.NewRecord(map[string]any{"a": c.v}, now)
			if ok := err == nil; ok != c.ok {
				t.Errorf("%s(%v) on %#v: passed = %v, want %v (%v)", tt.rule, tt.arg, c.v, ok, c.ok, err)
			}
		}
	}
}
