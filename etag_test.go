package skiff_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/sockettest"
)

// expressETag is the etag package's weak tag of body, written out here
// rather than taken from Skiff's code.
func expressETag(body []byte) string {
	sum := sha1.Sum(body)
	return fmt.Sprintf(`W/"%x-%s"`, len(body), base64.StdEncoding.EncodeToString(sum[:])[:27])
}

type etagAnswer struct {
	status            int
	etag, ctype, body string
}

func etagDo(t *testing.T, srv *httptest.Server, method, path string, header map[string]string, body string) etagAnswer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return etagAnswer{res.StatusCode, res.Header.Get("ETag"), res.Header.Get("Content-Type"), string(b)}
}

// TestETag checks Express's ETag handling of blueprint answers: a weak tag
// of the body on 2xx answers to GET and HEAD, and 304 without a body when
// the request's If-None-Match names it, as the fresh package decides.
func TestETag(t *testing.T) {
	srv := newNoteApp(t, skiff.Options{})
	if a := etagDo(t, srv, "POST", "/note", map[string]string{"If-None-Match": "*"}, `{"text":"a"}`); a.status != 200 || a.etag != "" {
		t.Fatalf("POST /note = %d, ETag %q; want 200 without an ETag", a.status, a.etag)
	}
	list := etagDo(t, srv, "GET", "/note", nil, "")
	if list.status != 200 || list.etag != expressETag([]byte(list.body)) {
		t.Fatalf("GET /note = %d, ETag %q; want 200 with %s", list.status, list.etag, expressETag([]byte(list.body)))
	}
	one := etagDo(t, srv, "GET", "/note/1", nil, "")
	if one.status != 200 || one.etag != expressETag([]byte(one.body)) {
		t.Fatalf("GET /note/1 = %d, ETag %q; want 200 with %s", one.status, one.etag, expressETag([]byte(one.body)))
	}
	if head := etagDo(t, srv, "HEAD", "/note", nil, ""); head.status != 200 || head.etag != list.etag || head.body != "" {
		t.Errorf("HEAD /note = %d, ETag %q, body %q; want 200 with GET's ETag %s and no body", head.status, head.etag, head.body, list.etag)
	}

	strong := strings.TrimPrefix(list.etag, "W/")
	tests := []struct {
		name     string
		method   string
		header   map[string]string
		wantCode int
	}{
		{"exact", "GET", map[string]string{"If-None-Match": list.etag}, 304},
		{"HEAD", "HEAD", map[string]string{"If-None-Match": list.etag}, 304},
		{"strong form", "GET", map[string]string{"If-None-Match": strong}, 304},
		{"star", "GET", map[string]string{"If-None-Match": "*"}, 304},
		{"in a list", "GET", map[string]string{"If-None-Match": `"x", ` + list.etag}, 304},
		{"other", "GET", map[string]string{"If-None-Match": `W/"2-abc"`}, 200},
		{"no-cache", "GET", map[string]string{"If-None-Match": list.etag, "Cache-Control": "no-cache"}, 200},
		{"if-modified-since", "GET", map[string]string{"If-None-Match": list.etag, "If-Modified-Since": time.Now().UTC().Format(http.TimeFormat)}, 200},
	}
	for _, tt := range tests {
		a := etagDo(t, srv, tt.method, "/note", tt.header, "")
		if a.status != tt.wantCode || a.etag != list.etag {
			t.Errorf("%s: %s /note %v = %d, ETag %q; want %d, ETag %s", tt.name, tt.method, tt.header, a.status, a.etag, tt.wantCode, list.etag)
		}
		switch {
		case a.status == 304 && (a.body != "" || a.ctype != ""):
			t.Errorf("%s: 304 with body %q, Content-Type %q; want neither", tt.name, a.body, a.ctype)
		case a.status == 200 && tt.method == "GET" && a.body != list.body:
			t.Errorf("%s: body %q, want %q", tt.name, a.body, list.body)
		}
	}

	// The answer changes with the data, and so does its tag.
	etagDo(t, srv, "POST", "/note", nil, `{"text":"b"}`)
	if a := etagDo(t, srv, "GET", "/note", map[string]string{"If-None-Match": list.etag}, ""); a.status != 200 || a.etag == list.etag {
		t.Errorf("GET /note after a create, with the old tag = %d, ETag %q; want 200 with a new tag", a.status, a.etag)
	}

	// Answers that are not 2xx to GET or HEAD have none, and never 304.
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/note/99", ""},
		{"GET", "/note?where={bad", ""},
		{"PATCH", "/note/1", `{"rank":2}`},
		{"DELETE", "/note/2", ""},
	} {
		a := etagDo(t, srv, tt.method, tt.path, map[string]string{"If-None-Match": "*"}, tt.body)
		if a.etag != "" || a.status == 304 {
			t.Errorf("%s %s = %d, ETag %q; want no ETag and no 304", tt.method, tt.path, a.status, a.etag)
		}
	}

	// Virtual requests over a socket: no ETag, no 304, as Sails' response
	// shim does.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sockettest.Dial(ctx, srv.URL, sockettest.Options{EIO: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.Ack(ctx, "get", map[string]any{"method": "get", "url": "/note/1", "headers": map[string]any{"if-none-match": "*"}})
	if err != nil {
		t.Fatal(err)
	}
	var jwr sockettest.JWR
	if err := json.Unmarshal(raw, &jwr); err != nil {
		t.Fatal(err)
	}
	if jwr.StatusCode != 200 || len(jwr.Body) == 0 {
		t.Errorf("socket GET /note/1 with If-None-Match: * = %d %s; want 200 with the record", jwr.StatusCode, jwr.Body)
	}
	for k := range jwr.Headers {
		if strings.EqualFold(k, "etag") {
			t.Errorf("socket GET /note/1 headers %v; want no ETag", jwr.Headers)
		}
	}
}

// TestNoETag checks http.etag: false (Options.NoETag): no tags, no 304,
// for blueprint answers and static files alike.
func TestNoETag(t *testing.T) {
	files := fstest.MapFS{"app.js": {Data: []byte("console.log(1)"), ModTime: time.UnixMilli(1700000000123)}}
	srv := newNoteApp(t, skiff.Options{NoETag: true, Assets: files})
	// The tag the file would have; a "*" gets 304 from a static file either
	// way (If-None-Match: * asks whether the file exists, in send as in
	// http.ServeContent).
	wouldBe := fmt.Sprintf(`W/"%x-%x"`, len("console.log(1)"), int64(1700000000123))
	for path, inm := range map[string]string{"/note": "*", "/app.js": wouldBe} {
		if a := etagDo(t, srv, "GET", path, map[string]string{"If-None-Match": inm}, ""); a.status != 200 || a.etag != "" {
			t.Errorf("GET %s with NoETag = %d, ETag %q; want 200 without one", path, a.status, a.etag)
		}
	}
}

// TestAssetsETag checks static files' tags: serve-static's weak
// W/"<size>-<mtime in ms>", in hex, and 304 for a matching If-None-Match.
func TestAssetsETag(t *testing.T) {
	files := fstest.MapFS{
		"app.js":    {Data: []byte("console.log(1)"), ModTime: time.UnixMilli(1700000000123)},
		"notime.js": {Data: []byte("x")},
	}
	srv := newNoteApp(t, skiff.Options{Assets: files})
	want := fmt.Sprintf(`W/"%x-%x"`, len("console.log(1)"), int64(1700000000123))
	if a := etagDo(t, srv, "GET", "/app.js", nil, ""); a.status != 200 || a.etag != want {
		t.Fatalf("GET /app.js = %d, ETag %q; want 200, %s", a.status, a.etag, want)
	}
	for _, tt := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{"If-None-Match": want}, 304},
		{map[string]string{"If-None-Match": strings.TrimPrefix(want, "W/")}, 304},
		{map[string]string{"If-None-Match": `W/"e-1"`}, 200},
		{map[string]string{"If-None-Match": want, "Cache-Control": "no-cache"}, 200},
		{map[string]string{"If-Modified-Since": time.UnixMilli(1800000000000).UTC().Format(http.TimeFormat), "Cache-Control": "max-age=0, no-cache"}, 200},
	} {
		if a := etagDo(t, srv, "GET", "/app.js", tt.header, ""); a.status != tt.want {
			t.Errorf("GET /app.js %v = %d, want %d", tt.header, a.status, tt.want)
		}
	}
	// Without a modification time (embed.FS), the size alone would call a
	// changed file of the same size unchanged: no tag.
	if a := etagDo(t, srv, "GET", "/notime.js", nil, ""); a.status != 200 || a.etag != "" {
		t.Errorf("GET /notime.js = %d, ETag %q; want 200 without one", a.status, a.etag)
	}
}

// BenchmarkETag measures what ETags cost: the same GET requests through the
// handler of two identical petshop apps (SQLite), one with ETags and one
// without (Options.NoETag), taken in turns of 50 requests so that the
// machine's drift falls on both alike. It reports each side's ns per
// request and their ratio:
//
//	go test -run '^$' -bench ETag -count 5 .
func BenchmarkETag(b *testing.B) {
	on := seedPetshop(b, petshopTuned(b, nil, nil))
	off := seedPetshop(b, petshopTuned(b, nil, func(o *skiff.Options) { o.NoETag = true }))
	for _, path := range []string{"/pet/42", "/pet?limit=30", "/product?limit=30"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			const turn = 50
			var tOn, tOff time.Duration
			n := 0
			for b.Loop() {
				for _, side := range []struct {
					h http.Handler
					t *time.Duration
				}{{on, &tOn}, {off, &tOff}} {
					start := time.Now()
					for range turn {
						serveOK(b, side.h, http.MethodGet, path, "")
					}
					*side.t += time.Since(start)
				}
				n += turn
			}
			b.ReportMetric(float64(tOn.Nanoseconds())/float64(n), "ns-on/req")
			b.ReportMetric(float64(tOff.Nanoseconds())/float64(n), "ns-off/req")
			b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
		})
	}
}
