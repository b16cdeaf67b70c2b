package params_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/internal/params"
)

type m = map[string]any
type a = []any

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw  string
		want m
	}{
		{"", m{}},
		{"a=b", m{"a": "b"}},
		{"a", m{"a": ""}},
		{"a=", m{"a": ""}},
		{"a=b&a=c", m{"a": a{"b", "c"}}},
		{"a=b&a=c&a=d", m{"a": a{"b", "c", "d"}}},
		{"a+b=c+d", m{"a b": "c d"}},
		{"a=%20%2B", m{"a": " +"}},
		{"a=%E0%A4%A", m{"a": "%E0%A4%A"}},          // malformed escape kept
		{"a=%C3&b=%C3%A9", m{"a": "%C3", "b": "é"}}, // not UTF-8 kept
		{"a=100%", m{"a": "100%"}},
		{"=x&&b=1&", m{"b": "1"}},
		{"a[b]=c", m{"a": m{"b": "c"}}},
		{"a%5Bb%5D=c", m{"a": m{"b": "c"}}},
		{"a[b][c]=d", m{"a": m{"b": m{"c": "d"}}}},
		{"a[b]=c&a[d]=e", m{"a": m{"b": "c", "d": "e"}}},
		{"a[b=c]=d", m{"a": m{"b=c": "d"}}},
		{"a[]=b&a[]=c", m{"a": a{"b", "c"}}},
		{"a[]=", m{"a": a{""}}},
		{"a[0]=b&a[1]=c", m{"a": a{"b", "c"}}},
		{"a[1]=c&a[0]=b", m{"a": a{"b", "c"}}},
		{"a[1]=b", m{"a": a{"b"}}},
		{"a[20]=b", m{"a": a{"b"}}},
		{"a[21]=b", m{"a": m{"21": "b"}}},
		{"a[01]=b", m{"a": m{"01": "b"}}},
		{"a[-1]=b", m{"a": m{"-1": "b"}}},
		{"a[0]=b&a[x]=c", m{"a": m{"0": "b", "x": "c"}}},
		{"a[]=b&a=c", m{"a": a{"b", "c"}}},
		{"a=b&a[]=c", m{"a": a{"b", "c"}}},
		{"a[b]=1&a=2", m{"a": m{"b": "1", "2": true}}},
		{"a=1&a[b]=2", m{"a": a{"1", m{"b": "2"}}}},
		{"a[b]=&a[b]=x", m{"a": m{"b": a{"", "x"}}}},
		{"a[][b]=1&a[][c]=2", m{"a": a{m{"b": "1", "c": "2"}}}},
		{"a[0][b]=1&a[1][b]=2", m{"a": a{m{"b": "1"}, m{"b": "2"}}}},
		{"a[b][]=1&a[b][]=2", m{"a": m{"b": a{"1", "2"}}}},
		{"0=a&1=b", m{"0": "a", "1": "b"}},
		{"1[x]=a&1=b", m{"1": a{"b", m{"x": "a"}}}},
		{"[a]=b", m{"a": "b"}},
		{"[]=b", m{"0": "b"}},
		{"a[[b]]=c", m{"a[": m{"b": "c"}}},
		{"a]=b", m{"a]": "b"}},
		{"a[b=c", m{"a[b": "c"}},
		{"a[b]c[d]=e", m{"a": m{"b": m{"d": "e"}}}},
		{"__proto__=x&b=1", m{"b": "1"}},
		{"a[__proto__]=x", m{"a": m{}}},
		{"hasOwnProperty=1", m{"hasOwnProperty": "1"}},
		// Depth 5: the sixth bracket and what follows stay one key.
		{"a[b][c][d][e][f][g][h][i]=j", m{"a": m{"b": m{"c": m{"d": m{"e": m{"f": m{"[g][h][i]": "j"}}}}}}}},
		{"a[b][c][d][e][f]=g", m{"a": m{"b": m{"c": m{"d": m{"e": m{"f": "g"}}}}}}},
		{"where=%7B%22age%22%3A%7B%22%3E%22%3A30%7D%7D&limit=10", m{"where": `{"age":{">":30}}`, "limit": "10"}},
		{"sort=createdAt%20DESC", m{"sort": "createdAt DESC"}},
	}
	for _, tt := range tests {
		got, err := params.ParseQuery(tt.raw)
		if err != nil {
			t.Errorf("ParseQuery(%q) error %v", tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseQuery(%q) (-want +got):\n%s", tt.raw, diff)
		}
	}
}

func TestParseQueryParameterLimit(t *testing.T) {
	var b strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&b, "k%d=%d&", i, i)
	}
	got, _ := params.ParseQuery(b.String())
	if len(got) != 1000 {
		t.Errorf("ParseQuery(1001 pairs) has %d keys, want 1000", len(got))
	}
	if _, ok := got["k1000"]; ok {
		t.Errorf("ParseQuery(1001 pairs) kept the 1001st pair")
	}
}

func TestParseFlatQuery(t *testing.T) {
	tests := []struct {
		raw  string
		want m
	}{
		{"", m{}},
		{"a=b", m{"a": "b"}},
		{"a", m{"a": ""}},
		{"a=b&a=c&a=d", m{"a": a{"b", "c", "d"}}},
		{"a[b]=c&a[]=d", m{"a[b]": "c", "a[]": "d"}},
		{"a+b=c+d%20e", m{"a b": "c d e"}},
		{"a=%ZZ%41", m{"a": "%ZZA"}},
		{"a=%C3", m{"a": "\uFFFD"}},
		{"=x", m{"": "x"}},
		{"&&a=1&", m{"a": "1"}},
		{"a=1=2", m{"a": "1=2"}},
		{"where=%7B%22id%22%3A1%7D", m{"where": `{"id":1}`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, params.ParseFlatQuery(tt.raw)); diff != "" {
			t.Errorf("ParseFlatQuery(%q) (-want +got):\n%s", tt.raw, diff)
		}
	}
	var b strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&b, "k%d=1&", i)
	}
	if got := params.ParseFlatQuery(b.String()); len(got) != 1000 {
		t.Errorf("ParseFlatQuery(1001 pairs) has %d keys, want 1000", len(got))
	}
}

func TestMergeAndParam(t *testing.T) {
	query := m{"a": "q", "b": "q", "c": "q", "only": "q"}
	path := map[string]string{"a": "p"}
	tests := []struct {
		name  string
		body  any
		merge m
		param map[string]any // name → want; absent names are checked for ok=false
	}{
		{"map body", m{"a": "b", "b": "b", "n": nil},
			m{"a": "p", "b": "b", "c": "q", "only": "q", "n": nil},
			map[string]any{"a": "p", "b": "b", "c": "q", "n": nil}},
		{"nil body", nil,
			m{"a": "p", "b": "q", "c": "q", "only": "q"},
			map[string]any{"a": "p", "b": "q"}},
		{"array body", a{"x", 2.0},
			m{"a": "p", "b": "q", "c": "q", "only": "q", "0": "x", "1": 2.0},
			map[string]any{"0": "x", "1": 2.0, "b": "q"}},
		{"scalar body", "text",
			m{"a": "p", "b": "q", "c": "q", "only": "q"},
			map[string]any{"b": "q"}},
	}
	for _, tt := range tests {
		got := params.Merge(query, tt.body, path)
		if diff := cmp.Diff(tt.merge, got); diff != "" {
			t.Errorf("%s: Merge (-want +got):\n%s", tt.name, diff)
		}
		for name, want := range tt.param {
			v, ok := params.Param(name, query, tt.body, path)
			if !ok || !cmp.Equal(v, want) {
				t.Errorf("%s: Param(%q) = %v, %v; want %v, true", tt.name, name, v, ok, want)
			}
		}
		if v, ok := params.Param("missing", query, tt.body, path); ok {
			t.Errorf("%s: Param(missing) = %v, true; want ok false", tt.name, v)
		}
	}
	if _, ok := query["0"]; ok || len(query) != 4 {
		t.Errorf("Merge modified its query argument: %v", query)
	}
	if got := params.Merge(nil, nil, nil); got == nil || len(got) != 0 {
		t.Errorf("Merge(nil, nil, nil) = %#v, want an empty map", got)
	}
}
