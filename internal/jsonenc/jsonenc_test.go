package jsonenc

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
		json.RawMessage(`[{"a":1,"b":"x"},null]`), []any{json.RawMessage(`{}`), json.RawMessage(`"s"`)},
		[]any{-1.0, -42.0, 1e15, -1e15, 9007199254740991.0, 9007199254740992.0, -9007199254740993.0, 1763938000123.0, 5e-324},
		// Lists of records whose key sets repeat, differ at equal length, grow
		// past the remembered shapes, and nest.
		[]model.Record{
			{"a": 1.0, "b": 2.0}, {"a": 1.0, "c": 2.0}, {"a": 3.0, "b": 4.0}, {"b": 5.0, "c": 6.0},
			{"d": 1.0}, {"e": 1.0}, {"f": 1.0}, {"g": 1.0}, {"a": 7.0, "b": 8.0}, {},
			{"id": 1.0, "pets": []model.Record{{"id": 2.0, "n": "x"}, {"id": 3.0, "m": "y"}}, "z": nil},
			{"id": 4.0, "pets": []model.Record{{"id": 5.0, "n": "x"}}, "z": map[string]any{"id": 6.0, "pets": "p", "z": 1.0}},
		},
	}
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := Append(nil, v, nil)
		if err != nil {
			t.Fatalf("Append(%#v): %v", v, err)
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("Append(%#v) = %s, want %s", v, got, want.String())
		}
		// Known shapes: some matching the objects above, some of the same
		// sizes that do not.
		known := &Shapes{}
		for _, keys := range [][]string{{"id", "name", "owner", "pets"}, {"id", "name", "owner", "zzz"}, {"a", "b"}, {"a", "z"},
			{"id"}, {"k"}, {"x"}, {"id", "n"}, {"id", "pets", "z"}} {
			known.add(keys)
		}
		got, err = Append(nil, v, known)
		if err != nil {
			t.Fatalf("Append(%#v): %v", v, err)
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("Append(%#v) = %s, want %s", v, got, want.String())
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
		if got := AppendString(nil, s); string(got)+"\n" != want.String() {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want.String())
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1, 1.5, 1e21, 1e-7, 9007199254740992, -9007199254740993, 1763938000123} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		want, wantErr := json.Marshal(x)
		got, err := AppendFloat(nil, x)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, %v; want %s, %v", x, got, err, want, wantErr)
		}
	})
}

func TestAppendFloatWholeNumbers(t *testing.T) {
	var ns []float64
	for p := 1.0; p < 1<<53; p *= 10 {
		ns = append(ns, p-1, p, p+1, -p, -p+1, 2*p, 99*p)
	}
	ns = append(ns, 1<<53-1, -(1<<53 - 1), 1<<53, -(1 << 53), 1763938000123, 42, 7)
	for _, f := range ns {
		want, _ := json.Marshal(f)
		if got, err := AppendFloat(nil, f); err != nil || string(got) != string(want) {
			t.Errorf("AppendFloat(%v) = %s, %v; want %s", f, got, err, want)
		}
	}
}
