package params_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/internal/params"
	"github.com/skiffhq/skiff/model"
)

const (
	jsonCT = "application/json"
	formCT = "application/x-www-form-urlencoded"
)

func request(ct string, body []byte) *http.Request {
	r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

// wantErr is the model.Kind a case expects, or noErr.
const noErr = model.Kind(255)

func TestReadBody(t *testing.T) {
	tests := []struct {
		name string
		ct   string
		body string
		want any
		kind model.Kind
	}{
		{"json object", jsonCT, `{"name":"bob","age":30,"tags":["a"],"org":null,"ok":true}`,
			m{"name": "bob", "age": 30.0, "tags": a{"a"}, "org": nil, "ok": true}, noErr},
		{"json array", jsonCT, `[1, {"id": 2}]`, a{1.0, m{"id": 2.0}}, noErr},
		{"json number", jsonCT, `42`, 42.0, noErr},
		{"json string", jsonCT, `"hi"`, "hi", noErr},
		{"json null", jsonCT, `null`, nil, noErr},
		{"json empty", jsonCT, ``, nil, noErr},
		{"json blank", jsonCT, " \n\t", nil, noErr},
		{"json charset", "application/json; charset=utf-8", `{"a":"é"}`, m{"a": "é"}, noErr},
		{"json charset upper", "Application/JSON; Charset=UTF-8", `{"a":1}`, m{"a": 1.0}, noErr},
		{"json suffix type", "application/vnd.api+json", `{"a":1}`, m{"a": 1.0}, noErr},
		{"json duplicate key, last wins", jsonCT, `{"a":1,"a":2}`, m{"a": 2.0}, noErr},
		{"json largest exact integer", jsonCT, `{"id":9007199254740992}`, m{"id": 9007199254740992.0}, noErr},
		{"json exact large power", jsonCT, `1000000000000000000000`, 1e21, noErr},
		{"json decimal", jsonCT, `{"x":0.1,"y":-2.5e3}`, m{"x": 0.1, "y": -2500.0}, noErr},
		{"json integer that would round", jsonCT, `{"id":9007199254740993}`, nil, model.Invalid},
		{"json out of range", jsonCT, `[1e400]`, nil, model.Invalid},
		{"json syntax error", jsonCT, `{"a":`, nil, model.Invalid},
		{"json bad token", jsonCT, `{a:1}`, nil, model.Invalid},
		{"json trailing data", jsonCT, `{} {}`, nil, model.Invalid},
		{"json trailing garbage", jsonCT, `[1]x`, nil, model.Invalid},
		{"json unsupported charset", "application/json; charset=utf-16", `{}`, nil, model.Invalid},
		{"form", formCT, "name=bob&age=30", m{"name": "bob", "age": "30"}, noErr},
		{"form nested", formCT, "user[name]=bob&user[pets][]=1&user[pets][]=2&x[0]=a&x[1]=b",
			m{"user": m{"name": "bob", "pets": a{"1", "2"}}, "x": a{"a", "b"}}, noErr},
		{"form repeated", formCT, "a=1&a=2", m{"a": a{"1", "2"}}, noErr},
		{"form array limit is 100", formCT, "a[100]=x&b[101]=y", m{"a": a{"x"}, "b": m{"101": "y"}}, noErr},
		{"form deep", formCT, "a[b][c][d][e][f][g]=1", m{"a": m{"b": m{"c": m{"d": m{"e": m{"f": m{"g": "1"}}}}}}}, noErr},
		{"form charset", formCT + "; charset=UTF-8", "a=%C3%A9", m{"a": "é"}, noErr},
		{"form latin1", formCT + "; charset=ISO-8859-1", "a=\xe9", m{"a": "é"}, noErr},
		{"form empty", formCT, "", nil, noErr},
		{"form plus", formCT, "q=a+b", m{"q": "a b"}, noErr},
		{"text ignored", "text/plain", "hello", nil, noErr},
		{"html ignored", "text/html; charset=utf-8", "<p>", nil, noErr},
		{"octets ignored", "application/octet-stream", "\x00\x01", nil, noErr},
		{"no content type ignored", "", `{"a":1}`, nil, noErr},
		{"malformed content type params", "application/json; charset", `{"a":1}`, m{"a": 1.0}, noErr},
		{"multipart without boundary", "multipart/form-data", "x", nil, model.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := params.ReadBody(request(tt.ct, []byte(tt.body)), 1<<20)
			checkBody(t, tt.body, got, err, tt.want, tt.kind)
		})
	}
}

func checkBody(t *testing.T, body string, got any, err error, want any, kind model.Kind) {
	t.Helper()
	if kind != noErr {
		if err == nil {
			t.Fatalf("ReadBody(%q) = %#v, want a %v error", body, got, kind)
		}
		e, ok := model.AsError(err)
		if !ok || e.Kind != kind {
			t.Fatalf("ReadBody(%q) error %v: kind %v, want %v", body, err, model.KindOf(err), kind)
		}
		if kind == model.Invalid && (e.Code != model.CodeInvalidBody || e.Msg == "") {
			t.Errorf("ReadBody(%q) error code %q msg %q, want %s and a reason", body, e.Code, e.Msg, model.CodeInvalidBody)
		}
		return
	}
	if err != nil {
		t.Fatalf("ReadBody(%q) error %v", body, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadBody(%q) (-want +got):\n%s", body, diff)
	}
}

// multipartBody builds a multipart/form-data body from fields and files
// (written in argument order, fields first).
func multipartBody(t *testing.T, fields [][2]string, files map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		fw, err := w.CreateFormFile(name, name+".txt")
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, content)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}

func TestReadBodyMultipart(t *testing.T) {
	ct, body := multipartBody(t, [][2]string{
		{"name", "bob"}, {"pets[]", "1"}, {"pets[]", "2"}, {"org[name]", "acme"}, {"tag", "a"}, {"tag", "b"}, {"empty", ""},
	}, map[string]string{"avatar": strings.Repeat("x", 5000)})
	got, err := params.ReadBody(request(ct, body), 1<<20)
	want := m{"name": "bob", "pets": a{"1", "2"}, "org": m{"name": "acme"}, "tag": a{"a", "b"}, "empty": ""}
	checkBody(t, "multipart", got, err, want, noErr)

	ct, body = multipartBody(t, nil, map[string]string{"f": "data"})
	got, err = params.ReadBody(request(ct, body), 1<<20)
	checkBody(t, "files only", got, err, nil, noErr)

	got, err = params.ReadBody(request(ct, body[:len(body)/2]), 1<<20)
	checkBody(t, "truncated multipart", got, err, nil, model.Invalid)

	got, err = params.ReadBody(request(ct+"; charset=utf-8", nil), 1<<20)
	checkBody(t, "empty multipart", got, err, nil, noErr)
}

// hideLength makes a request whose body length is unknown until read, so
// that the limit is enforced while streaming rather than from the header.
func hideLength(r *http.Request) *http.Request {
	r.ContentLength = -1
	r.Body = io.NopCloser(io.MultiReader(r.Body))
	return r
}

func TestReadBodyLimit(t *testing.T) {
	const limit = 64
	pad := func(n int) string { // a JSON string literal n bytes long
		return `"` + strings.Repeat("x", n-2) + `"`
	}
	form := func(n int) string { return "a=" + strings.Repeat("x", n-2) }
	mpCT, mpBody := multipartBody(t, [][2]string{{"a", strings.Repeat("x", 200)}}, nil)
	tests := []struct {
		name   string
		ct     string
		body   string
		stream bool
		kind   model.Kind
	}{
		{"json at limit", jsonCT, pad(limit), false, noErr},
		{"json at limit streamed", jsonCT, pad(limit), true, noErr},
		{"json limit+1", jsonCT, pad(limit + 1), false, model.TooLarge},
		{"json limit+1 streamed", jsonCT, pad(limit + 1), true, model.TooLarge},
		{"form at limit streamed", formCT, form(limit), true, noErr},
		{"form limit+1 streamed", formCT, form(limit + 1), true, model.TooLarge},
		{"multipart over limit streamed", mpCT, string(mpBody), true, model.TooLarge},
		{"multipart over limit", mpCT, string(mpBody), false, model.TooLarge},
		{"ignored type over limit", "text/plain", strings.Repeat("x", 1000), true, noErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(tt.ct, []byte(tt.body))
			if tt.stream {
				r = hideLength(r)
			}
			_, err := params.ReadBody(r, limit)
			if tt.kind == noErr {
				if err != nil {
					t.Fatalf("ReadBody(%d bytes, limit %d) error %v", len(tt.body), limit, err)
				}
				return
			}
			if got := model.KindOf(err); got != tt.kind {
				t.Fatalf("ReadBody(%d bytes, limit %d) error %v (kind %v), want kind %v", len(tt.body), limit, err, got, tt.kind)
			}
		})
	}
}

func TestReadBodyTooManyParameters(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "k%d=1&", i)
	}
	ok := strings.TrimSuffix(b.String(), "&")
	if _, err := params.ReadBody(request(formCT, []byte(ok)), 1<<20); err != nil {
		t.Errorf("ReadBody(1000 parameters) error %v", err)
	}
	if _, err := params.ReadBody(request(formCT, []byte(ok+"&x=1")), 1<<20); model.KindOf(err) != model.TooLarge {
		t.Errorf("ReadBody(1001 parameters) error %v, want kind TooLarge", err)
	}
}

func TestReadBodyNoBody(t *testing.T) {
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("Content-Type", jsonCT)
	if got, err := params.ReadBody(r, 10); got != nil || err != nil {
		t.Errorf("ReadBody(no body) = %v, %v; want nil, nil", got, err)
	}
}
