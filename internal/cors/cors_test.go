package cors_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/internal/cors"
)

func TestCheckOrigin(t *testing.T) {
	for origin, ok := range map[string]bool{
		"http://a.com": true, "https://a.com:8443": true, "http://localhost:1337": true, "file://x": true,
		"a.com": false, "http://a.com/": false, "http://a.com/x": false, "https://a.com:443": false,
		"http://a.com:80": false, "http://a.com?x": false, "": false, "ftp://a.com": false, "http://": false,
	} {
		if err := cors.CheckOrigin(origin); (err == nil) != ok {
			t.Errorf("CheckOrigin(%q) = %v, want ok=%v", origin, err, ok)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for name, section := range map[string]map[string]any{
		"star with credentials":  {"allowCredentials": true},
		"bad origin":             {"allowOrigins": []any{"http://a.com/"}},
		"origins of wrong type":  {"allowOrigins": 5.0},
		"origin list of numbers": {"allowOrigins": []any{5.0}},
		"securityLevel":          {"securityLevel": 1.0},
		"unknown key":            {"allowOrigin": "*"},
		"flag not a bool":        {"allowCredentials": "yes"},
		"legacy star with creds": {"origin": "*", "credentials": true},
	} {
		if _, err := parse(section); err == nil {
			t.Errorf("Parse(%s: %v) succeeded, want an error", name, section)
		}
	}
	s, err := parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]any{
		"unsafe route":   map[string]any{"allowCredentials": true},
		"bad route":      map[string]any{"allowOrigins": "http://a.com/x"},
		"bad string":     "a.com",
		"number":         3.0,
		"unknown in map": map[string]any{"allowOrigin": "x"},
	} {
		if _, err := s.Route(opt, "GET /x"); err == nil {
			t.Errorf("Route(%s: %v) succeeded, want an error", name, opt)
		}
	}
}

func headers(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return out
}

// The cases of Sails' test/integration/hook.cors.test.js, on Config alone.
func TestHeaders(t *testing.T) {
	def, err := parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	unsafe, err := parse(map[string]any{"allRoutes": true, "allowCredentials": true, "allowAnyOriginWithCredentialsUnsafe": true})
	if err != nil {
		t.Fatal(err)
	}
	custom, err := parse(map[string]any{"allowRequestMethods": "PUT,POST", "allowRequestHeaders": []any{"x-foo-bar"}, "exposeHeaders": "x-owl-hoot"})
	if err != nil {
		t.Fatal(err)
	}
	route := func(s *cors.Settings, opt any) *cors.Config {
		c, err := s.Route(opt, "route")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name      string
		c         *cors.Config
		preflight bool
		origin    string
		reqHdrs   string
		want      map[string]string
	}{
		{"no config", route(def, nil), false, "http://example.com", "", map[string]string{}},
		{"cors: true", route(def, true), false, "http://example.com", "", map[string]string{"access-control-allow-origin": "*"}},
		{"cors: true, no Origin", route(def, true), false, "", "", map[string]string{"access-control-allow-origin": "*"}},
		{"cors: true preflight", route(def, true), true, "http://example.com", "", map[string]string{
			"access-control-allow-origin": "*", "access-control-allow-methods": "GET,HEAD,PUT,PATCH,POST,DELETE",
			"access-control-allow-headers": "content-type"}},
		{"one origin, allowed", route(def, map[string]any{"allowOrigins": "http://example.com"}), false, "http://example.com", "",
			map[string]string{"access-control-allow-origin": "http://example.com", "vary": "Origin"}},
		{"one origin, refused", route(def, map[string]any{"allowOrigins": "http://example.com"}), false, "http://somewhere.com", "", map[string]string{"vary": "Origin"}},
		{"one origin, refused preflight", route(def, map[string]any{"allowOrigins": "http://example.com"}), true, "http://somewhere.com", "", map[string]string{"vary": "Origin"}},
		{"comma list", route(def, map[string]any{"allowOrigins": "http://example.com, http://somewhere.com"}), false, "http://somewhere.com", "",
			map[string]string{"access-control-allow-origin": "http://somewhere.com", "vary": "Origin"}},
		{"string option", route(def, "http://a.com"), true, "http://a.com", "x-y",
			map[string]string{"access-control-allow-origin": "http://a.com", "vary": "Origin",
				"access-control-allow-methods": "GET,HEAD,PUT,PATCH,POST,DELETE", "access-control-allow-headers": "content-type"}},
		{"route unsafe", route(def, map[string]any{"allowOrigins": "*", "allowCredentials": true, "allowAnyOriginWithCredentialsUnsafe": true}), true, "http://foobar.com", "",
			map[string]string{"access-control-allow-origin": "http://foobar.com", "vary": "Origin", "access-control-allow-credentials": "true",
				"access-control-allow-methods": "GET,HEAD,PUT,PATCH,POST,DELETE", "access-control-allow-headers": "content-type"}},
		{"allRoutes unsafe", route(unsafe, nil), false, "http://example.com", "",
			map[string]string{"access-control-allow-origin": "http://example.com", "vary": "Origin", "access-control-allow-credentials": "true"}},
		{"allRoutes unsafe, no Origin", route(unsafe, nil), false, "", "", map[string]string{"vary": "Origin"}},
		{"custom global", route(custom, true), true, "http://example.com", "",
			map[string]string{"access-control-allow-origin": "*", "access-control-allow-methods": "PUT,POST",
				"access-control-allow-headers": "x-foo-bar", "access-control-expose-headers": "x-owl-hoot"}},
		{"custom global, route origin", route(custom, map[string]any{"allowOrigins": []any{"http://example.com"}}), true, "http://example.com", "",
			map[string]string{"access-control-allow-origin": "http://example.com", "vary": "Origin", "access-control-allow-methods": "PUT,POST",
				"access-control-allow-headers": "x-foo-bar", "access-control-expose-headers": "x-owl-hoot"}},
		{"reflect request headers", route(def, map[string]any{"allowRequestHeaders": ""}), true, "http://a.com", "x-a, x-b",
			map[string]string{"access-control-allow-origin": "*", "access-control-allow-methods": "GET,HEAD,PUT,PATCH,POST,DELETE",
				"access-control-allow-headers": "x-a, x-b"}},
		{"cors: false", route(unsafe, false), false, "http://example.com", "", map[string]string{}},
	} {
		h := http.Header{}
		if tc.preflight {
			tc.c.Preflight(h, tc.origin, tc.reqHdrs)
		} else {
			tc.c.Actual(h, tc.origin)
		}
		if diff := cmp.Diff(tc.want, headers(h)); diff != "" {
			t.Errorf("%s: headers (-want +got):\n%s", tc.name, diff)
		}
	}
}

// parse is the security.cors section as written, decoded and resolved.
func parse(section map[string]any) (*cors.Settings, error) {
	c, err := cors.Decode(section)
	if err != nil {
		return nil, err
	}
	return cors.Parse(c)
}
