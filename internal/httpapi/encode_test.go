package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/skiffhq/skiff/model"
)

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, 0.0, -0.0, 1.0, 42.0, 1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789012345.0, 1.7e308, -3.25e-10,
		"", "plain", "quote\" back\\ slash", "ctl\x00\x01\x1f\n\r\t\b\f", "<html>&", "é ü 日本", "bad\xffutf8", "\u2028\u2029",
		[]any{1.0, "a", nil, []any{}, map[string]any{}},
		map[string]any{"b": 1.0, "a": map[string]any{"z": true, "y": []any{"x"}}},
		model.Record{"id": 1.0, "name": "Ann", "pets": []model.Record{{"id": 2.0}}, "owner": model.Record{"id": 3.0}},
		[]model.Record{{"k": "v"}, {}},
		map[string]any{"n": json.Number("12")},
	}
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := appendJSON(nil, v)
		if err != nil {
			t.Fatalf("appendJSON(%#v): %v", v, err)
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("appendJSON(%#v) = %s, want %s", v, got, want.String())
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "日本\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := appendString(nil, s); string(got)+"\n" != want.String() {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want.String())
		}
	})
}
