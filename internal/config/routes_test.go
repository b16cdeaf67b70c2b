package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/settings"
)

func TestRoutes(t *testing.T) {
	files := map[string]string{
		"config/routes.yaml": `
routes:
  GET /user/:id: user/find
  post /user: UserController.create
  /anything: {action: Thing/Do}
  ALL /legacy: {controller: LegacyController, action: Run}
  PUT /pet/:id: {controller: pet, action: update, csrf: false, cors: {allowOrigins: [https://a.com]}, skipAssets: true}
  GET /csrfToken: {action: security/grant-csrf-token}
  GET /old: {redirect: /new}
  GET /gone: {response: notFound}
  /go: /elsewhere
  /ext: https://example.com/x
  r|^/num/(\d+)$|id: {action: num/show, autoWatch: false, mirror: true, locals: {title: T}}
  DELETE /admin/thing: admin/thing/destroy
`,
	}
	a := mustLoad(t, files, "", nil)
	want := []settings.Route{
		{Method: "GET", Path: "/user/:id", Action: "user/find"},
		{Method: "POST", Path: "/user", Action: "user/create"},
		{Path: "/anything", Action: "thing/do"},
		{Path: "/legacy", Action: "legacy/run"},
		{Method: "PUT", Path: "/pet/:id", Action: "pet/update", Options: map[string]any{
			"csrf": false, "cors": map[string]any{"allowOrigins": []any{"https://a.com"}}, "skipAssets": true,
		}},
		{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token"},
		{Method: "GET", Path: "/old", Redirect: "/new"},
		{Method: "GET", Path: "/gone", Response: "notFound"},
		{Path: "/go", Redirect: "/elsewhere"},
		{Path: "/ext", Redirect: "https://example.com/x"},
		{Path: `r|^/num/(\d+)$|id`, Action: "num/show", Options: map[string]any{
			"autoWatch": false, "mirror": true, "locals": map[string]any{"title": "T"},
		}},
		{Method: "DELETE", Path: "/admin/thing", Action: "admin/thing/destroy"},
	}
	if diff := cmp.Diff(want, a.Routes); diff != "" {
		t.Errorf("Routes mismatch (-want +got):\n%s", diff)
	}
}

// Routes keep the order they were first written in across files; a later
// file replaces a target in place and appends new addresses.
func TestRouteOrderAcrossFiles(t *testing.T) {
	files := map[string]string{
		"config/a.yaml":     "routes:\n  GET /z: z/a\n  GET /a: a/a\n  GET /m: m/a\n",
		"config/b.yaml":     "routes:\n  GET /a: a/b\n  GET /b: b/b\n",
		"config/local.yaml": "routes:\n  GET /m: ~\n  GET /0: zero/local\n",
	}
	a := mustLoad(t, files, "", nil)
	var got [][2]string
	for _, r := range a.Routes {
		got = append(got, [2]string{r.Method + " " + r.Path, r.Action})
	}
	want := [][2]string{{"GET /z", "z/a"}, {"GET /a", "a/b"}, {"GET /b", "b/b"}, {"GET /0", "zero/local"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("route order mismatch (-want +got):\n%s", diff)
	}
}

// Many routes in one file come out exactly in written order (a map would
// scramble them).
func TestRouteOrderManyRoutes(t *testing.T) {
	src := "routes:\n"
	var want []string
	for _, w := range []string{"q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "a", "s", "d", "f", "g", "h"} {
		src += "  GET /" + w + ": " + w + "/x\n"
		want = append(want, "/"+w)
	}
	a := mustLoad(t, map[string]string{"config/routes.json.yaml": src}, "", nil)
	var got []string
	for _, r := range a.Routes {
		got = append(got, r.Path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("route order mismatch (-want +got):\n%s", diff)
	}
}
