package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestWeakETagMatchesExpress checks the tags against those Express's own
// tests expect (test/res.send.js, test/utils.js of Express 4).
func TestWeakETagMatchesExpress(t *testing.T) {
	tests := []struct{ body, want string }{
		{strings.Repeat("-", 999), `W/"3e7-qPnkJ3CVdVhFJQvUBfF10TmVA7g"`},
		{"kajdslfkasdf", `W/"c-IgR/L5SF7CJQff4wxKGF/vfPuZ0"`},
		{"", `W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"`},
		{"hello, world!", `W/"d-HwnTDHB9U/PRbFMN1z1wps51lqk"`},
		{"express!", `W/"8-O2uVAFaQ1rZvlKLT14RnuvjPIdg"`},
		{"express❤", `W/"a-JBiXf7GyzxwcrxY4hVXUwa7tmks"`},
	}
	for _, tt := range tests {
		if got := weakETag([]byte(tt.body)); got != tt.want {
			t.Errorf("weakETag(%q) = %s, want %s", tt.body, got, tt.want)
		}
	}
}

// TestFreshMatchesFreshPackage follows the fresh package's (0.5.2) own
// cases, with a JSON answer's ETag and no Last-Modified.
func TestFreshMatchesFreshPackage(t *testing.T) {
	const weak, strong = `W/"foo"`, `"foo"`
	tests := []struct {
		name string
		req  map[string][]string
		etag string
		want bool
	}{
		{"unconditional", nil, weak, false},
		{"match", map[string][]string{"If-None-Match": {`"foo"`}}, strong, true},
		{"mismatch", map[string][]string{"If-None-Match": {`"foo"`}}, `"bar"`, false},
		{"one of a list", map[string][]string{"If-None-Match": {` "bar" , "foo"`}}, strong, true},
		{"weak exact", map[string][]string{"If-None-Match": {`W/"foo"`}}, weak, true},
		{"weak against strong", map[string][]string{"If-None-Match": {`W/"foo"`}}, strong, true},
		{"strong against weak", map[string][]string{"If-None-Match": {`"foo"`}}, weak, true},
		{"star", map[string][]string{"If-None-Match": {"*"}}, weak, true},
		{"star in a list is a token", map[string][]string{"If-None-Match": {`*, "bar"`}}, weak, false},
		{"repeated lines joined", map[string][]string{"If-None-Match": {`"bar"`, `W/"foo"`}}, weak, true},
		{"empty header", map[string][]string{"If-None-Match": {""}}, weak, false},
		{"no-cache", map[string][]string{"If-None-Match": {weak}, "Cache-Control": {"no-cache"}}, weak, false},
		{"no-cache in a list", map[string][]string{"If-None-Match": {weak}, "Cache-Control": {"max-age=0 , no-cache"}}, weak, false},
		{"other cache-control", map[string][]string{"If-None-Match": {weak}, "Cache-Control": {"max-age=0"}}, weak, true},
		{"no-cache as a prefix only", map[string][]string{"If-None-Match": {weak}, "Cache-Control": {"no-cache-x"}}, weak, true},
		{"if-modified-since without last-modified", map[string][]string{"If-Modified-Since": {"Sat, 01 Jan 2000 00:00:00 GMT"}}, weak, false},
		{"match and if-modified-since", map[string][]string{"If-None-Match": {weak}, "If-Modified-Since": {"Sat, 01 Jan 2000 00:00:00 GMT"}}, weak, false},
	}
	for _, tt := range tests {
		if got := fresh(http.Header(tt.req), tt.etag); got != tt.want {
			t.Errorf("%s: fresh(%v, %s) = %v, want %v", tt.name, tt.req, tt.etag, got, tt.want)
		}
	}
}

func BenchmarkWeakETag(b *testing.B) {
	body := []byte(strings.Repeat(`{"id":1,"name":"Pet 1","owner":{"id":1,"name":"User 1"}},`, 100))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_ = weakETag(body)
	}
}
