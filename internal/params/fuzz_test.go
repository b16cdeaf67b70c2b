package params

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/skiffhq/skiff/model"
)

var fuzzTypes = []string{
	"application/json",
	"application/x-www-form-urlencoded; charset=utf-8",
	"multipart/form-data; boundary=B",
}

// FuzzReadBody: for any body under any of the three parsed types, ReadBody
// must not panic and must return either a classified error or a value made
// only of the project's value types, without array holes.
func FuzzReadBody(f *testing.F) {
	f.Add(uint8(0), []byte(`{"a":[1,2,{"b":null}],"c":"d"}`))
	f.Add(uint8(0), []byte(`9007199254740993`))
	f.Add(uint8(1), []byte(`a[b][]=1&a[b][]=2&c[3]=x&c[x]=y`))
	f.Add(uint8(1), []byte(`a=%ZZ&b=%C3&[]=1&1[x]=a&1=b`))
	f.Add(uint8(2), []byte("--B\r\nContent-Disposition: form-data; name=\"a[b]\"\r\n\r\nv\r\n--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\ndata\r\n--B--\r\n"))
	f.Add(uint8(2), []byte("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv"))
	f.Fuzz(func(t *testing.T, typ uint8, body []byte) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", fuzzTypes[int(typ)%len(fuzzTypes)])
		v, err := ReadBody(r, 1<<16)
		if err != nil {
			if k := model.KindOf(err); k != model.Invalid && k != model.TooLarge {
				t.Fatalf("ReadBody error %v has kind %v", err, k)
			}
			if v != nil {
				t.Fatalf("ReadBody returned both %v and error %v", v, err)
			}
			return
		}
		checkValue(t, v)
	})
}

// FuzzParseQuery: ParseQuery and ParseFlatQuery never panic and return
// non-nil maps of strings (qs may also produce true), arrays and maps.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"a=b&a=c", "a[b][c]=d&a[b][]=e", "a[1]=b&a[0]=c&a[21]=d", "a[b]=1&a=2&a[]=3",
		"a[b][c][d][e][f][g][h]=i", "%5B%5D=1&[[x]]=2&a]=3", "a=%E0%A4%A&b=+%2B", "__proto__[x]=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseQuery(raw)
		if err != nil || q == nil {
			t.Fatalf("ParseQuery(%q) = %v, %v", raw, q, err)
		}
		checkValue(t, q)
		flat := ParseFlatQuery(raw)
		if flat == nil {
			t.Fatalf("ParseFlatQuery(%q) = nil", raw)
		}
		for k, v := range flat {
			switch x := v.(type) {
			case string:
			case []any:
				for _, e := range x {
					if _, ok := e.(string); !ok {
						t.Fatalf("ParseFlatQuery(%q)[%q] holds %T", raw, k, e)
					}
				}
			default:
				t.Fatalf("ParseFlatQuery(%q)[%q] is %T", raw, k, v)
			}
		}
	})
}

func checkValue(t *testing.T, v any) {
	t.Helper()
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case nil, bool, float64, string:
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		default:
			t.Fatalf("value holds %T (%v)", v, v)
		}
	}
	walk(v)
	if _, err := json.Marshal(v); err != nil {
		t.Fatalf("value does not marshal: %v", err)
	}
}

// FuzzDecodeJSON: decodeJSON's shortcut (json.Unmarshal) returns what the
// decoder with json.Numbers (decodeJSONStream) returns, values and errors,
// for any body.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, `{}`, `[]`, `{"name":"Rex","owner":7}`, `{"a":[1,2.5,-0,1e3,{"b":null}],"c":"d\u00e9\n"}`,
		`123456789012345`, `1234567890123456`, `9007199254740993`, `-9007199254740992`, `1e400`, `-1e400`, `1e-400`,
		`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":1}  `, `{"a":1,}`, `{"a"}`, `"\ud800"`, "\"\xff\"", `[1,2`, `{"a":1,"a":2}`,
		`0.1234567890123456789`, `{"n":12345678901234567890}`, `"12345678901234567890"`, `tru`, `true false`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gerr := decodeJSON(body)
		want, werr := decodeJSONStream(body)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("decodeJSON(%q) error %v, want %v", body, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeJSON(%q) = %#v, want %#v", body, got, want)
		}
	})
}
