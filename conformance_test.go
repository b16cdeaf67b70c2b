package skiff_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// backend opens the basic test app on one datastore engine.
type backend struct {
	name string
	env  func(t *testing.T) map[string]string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) map[string]string {
		return map[string]string{"SKIFF_DATASTORES__DEFAULT__URL": filepath.Join(t.TempDir(), "test.db")}
	}},
	{"postgres", func(t *testing.T) map[string]string {
		return map[string]string{
			"SKIFF_DATASTORES__DEFAULT__ADAPTER": "postgres",
			"SKIFF_DATASTORES__DEFAULT__URL":     testenv.Postgres(t),
		}
	}},
	{"mysql", func(t *testing.T) map[string]string {
		return map[string]string{
			"SKIFF_DATASTORES__DEFAULT__ADAPTER": "mysql",
			"SKIFF_DATASTORES__DEFAULT__URL":     testenv.MySQLDatabase(t),
		}
	}},
}

// startApp serves dir (an app folder) with env overrides on an httptest server.
func startApp(t testing.TB, dir, envName string, env map[string]string) *httptest.Server {
	t.Helper()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	_, srv := skifftest.Serve(t, *skifftest.Load(t, dir, envName, environ...))
	return srv
}

// step is one request of a conformance scenario and what it must answer.
type step struct {
	method, path string
	body         string
	contentType  string // default application/json when body is set
	status       int
	check        func(t *testing.T, body any, raw string)
	// save records the answer's id under this name; later steps write {name}
	// in path or body (PostgreSQL sequences skip ids after failed inserts).
	save string
}

func do(t *testing.T, srv *httptest.Server, s step) (any, string) {
	t.Helper()
	var rd io.Reader
	if s.body != "" {
		rd = strings.NewReader(s.body)
	}
	req, err := http.NewRequest(s.method, srv.URL+s.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if s.body != "" {
		ct := s.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", s.method, s.path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != s.status {
		t.Fatalf("%s %s %s: status %d, want %d; body %s", s.method, s.path, s.body, resp.StatusCode, s.status, raw)
	}
	var v any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %s", s.method, s.path, err, raw)
		}
	}
	return v, string(raw)
}

// ids holds the ids saved by steps, by name.
type ids map[string]string

func run(t *testing.T, srv *httptest.Server, vars ids, steps []step) {
	t.Helper()
	for _, s := range steps {
		for name, id := range vars {
			s.path = strings.ReplaceAll(s.path, "{"+name+"}", id)
			s.body = strings.ReplaceAll(s.body, "{"+name+"}", id)
		}
		body, raw := do(t, srv, s)
		if s.check != nil {
			s.check(t, body, raw)
		}
		if s.save != "" {
			id, _ := field(t, body, "id").(float64)
			vars[s.save] = fmt.Sprint(id)
		}
	}
}

// field returns v[key] of a JSON object, failing the test when v is not one.
func field(t *testing.T, v any, key string) any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("want a JSON object, got %#v", v)
	}
	return m[key]
}

func wantField(key string, want any) func(*testing.T, any, string) {
	return func(t *testing.T, v any, _ string) {
		t.Helper()
		if got := field(t, v, key); !jsonEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", key, got, want)
		}
	}
}

func wantCode(code string) func(*testing.T, any, string) { return wantField("code", code) }

func wantLen(n int) func(*testing.T, any, string) {
	return func(t *testing.T, v any, raw string) {
		t.Helper()
		list, ok := v.([]any)
		if !ok || len(list) != n {
			t.Errorf("want a list of %d, got %s", n, raw)
		}
	}
}

func wantText(s string) func(*testing.T, any, string) {
	return func(t *testing.T, _ any, raw string) {
		t.Helper()
		if raw != s {
			t.Errorf("body = %q, want %q", raw, s)
		}
	}
}

func all(checks ...func(*testing.T, any, string)) func(*testing.T, any, string) {
	return func(t *testing.T, v any, raw string) {
		t.Helper()
		for _, c := range checks {
			c(t, v, raw)
		}
	}
}

func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func TestBlueprintConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv := startApp(t, "testdata/apps/basic", "development", b.env(t))
			vars := ids{}
			t.Run("create", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "POST", path: "/user", body: `{"name":"Ann","email":"ann@example.com","age":"42","password":"secret"}`, status: 200, save: "ann",
						check: all(wantField("id", 1), wantField("name", "Ann"), wantField("age", 42), wantField("active", true),
							wantField("meta", nil), wantField("pets", []any{}),
							func(t *testing.T, v any, raw string) {
								if strings.Contains(raw, "password") || strings.Contains(raw, "secret") {
									t.Errorf("customToJSON omit leaked the password: %s", raw)
								}
								if c, _ := field(t, v, "createdAt").(float64); c < 1e12 {
									t.Errorf("createdAt = %v, want ms since epoch", c)
								}
							})},
					{method: "POST", path: "/user", body: `{"email":"x@example.com"}`, status: 400,
						check: all(wantCode("E_INVALID_NEW_RECORD"), func(t *testing.T, v any, _ string) {
							if d, _ := field(t, v, "details").(string); !strings.Contains(d, "name") {
								t.Errorf("details %q does not name the attribute", d)
							}
						})},
					{method: "POST", path: "/user", body: `{"name":"Dup","email":"ann@example.com"}`, status: 400,
						check: all(wantCode("E_UNIQUE"), wantField("modelIdentity", "user"), wantField("attrNames", []any{"email"}))},
					{method: "POST", path: "/user", body: `{"name":"Bad","email":"not-an-email"}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
					{method: "POST", path: "/user", body: `{"name":"Bad","email":"b@example.com","age":"old"}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
					{method: "POST", path: "/user", body: `name=Bo&email=bo%40example.com&age=7&meta[x]=1`, contentType: "application/x-www-form-urlencoded", status: 200, save: "bo",
						check: all(wantField("age", 7), wantField("meta", map[string]any{"x": "1"}))},
					{method: "POST", path: "/user", body: `{"name":`, status: 400, check: wantCode("E_INVALID_BODY")},
					{method: "POST", path: "/user", body: `{"name":"` + strings.Repeat("x", 4096) + `"}`, status: 413},
					{method: "POST", path: "/pet", body: `{"name":"Rex","owner":99}`, status: 400,
						check: all(wantCode("E_INVALID_NEW_RECORD"), func(t *testing.T, v any, _ string) {
							if d, _ := field(t, v, "details").(string); !strings.Contains(d, "owner") {
								t.Errorf("details %q does not name owner", d)
							}
						})},
				})
			})
			t.Run("find", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "GET", path: "/user", status: 200, check: wantLen(2)},
					{method: "GET", path: "/USER/", status: 200, check: wantLen(2)},
					{method: "GET", path: "/user?name=Ann", status: 200, check: wantLen(1)},
					{method: "GET", path: "/user?age=42", status: 200, check: wantLen(1)},
					{method: "GET", path: `/user?where={"age":{">":10}}`, status: 200, check: wantLen(1)},
					{method: "GET", path: `/user?where[name][startsWith]=B`, status: 200, check: wantLen(1)},
					{method: "GET", path: `/user?where={"age":`, status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/user?limit=0", status: 200, check: wantLen(0)},
					{method: "GET", path: "/user?limit=1", status: 200, check: wantLen(1)},
					{method: "GET", path: "/user?limit=-1", status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/user?skip=-1", status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/user?skip=abc", status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/user?skip=1", status: 200, check: wantLen(1)},
					{method: "GET", path: "/user?sort=name%20DESC&limit=1", status: 200, check: func(t *testing.T, v any, raw string) {
						if !strings.Contains(raw, `"name":"Bo"`) {
							t.Errorf("sort name DESC first = %s, want Bo", raw)
						}
					}},
					{method: "GET", path: `/user?sort=[{"age":"ASC"}]&limit=1`, status: 200, check: func(t *testing.T, v any, raw string) {
						if !strings.Contains(raw, `"name":"Bo"`) {
							t.Errorf("sort age ASC first = %s, want Bo", raw)
						}
					}},
					{method: "GET", path: `/user?sort=[{"name":"DESC"}]&limit=1`, status: 200, check: func(t *testing.T, v any, raw string) {
						if !strings.Contains(raw, `"name":"Bo"`) {
							t.Errorf("sort [{name: DESC}] first = %s, want Bo", raw)
						}
					}},
					{method: "GET", path: `/user?sort={"name":-1}&limit=1`, status: 200, check: func(t *testing.T, v any, raw string) {
						if !strings.Contains(raw, `"name":"Bo"`) {
							t.Errorf("sort {name: -1} first = %s, want Bo", raw)
						}
					}},
					// A bare {"name": "DESC"} was meant for an array: Waterline says so.
					{method: "GET", path: `/user?sort={"name":"DESC"}`, status: 400, check: all(wantCode("E_INVALID_CRITERIA"), func(t *testing.T, v any, _ string) {
						if d, _ := field(t, v, "details").(string); !strings.Contains(d, "you might need to wrap this in an array, because instead, got: { name: 'DESC' }") {
							t.Errorf("details %q do not give Waterline's hint", d)
						}
					})},
					{method: "GET", path: "/user?select=name&populate=false", status: 200, check: func(t *testing.T, v any, raw string) {
						rec := v.([]any)[0]
						if n := len(rec.(map[string]any)); n != 2 {
							t.Errorf("select=name gave %d keys, want id and name: %s", n, raw)
						}
					}},
					{method: "GET", path: "/user?omit=email&populate=false&limit=1", status: 200, check: func(t *testing.T, v any, raw string) {
						if strings.Contains(raw, "email") {
							t.Errorf("omit=email still has email: %s", raw)
						}
					}},
					{method: "GET", path: "/user?foo=bar", status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/user?_=12345&callback=x", status: 200, check: wantLen(2)},
					{method: "GET", path: "/user/1", status: 200, check: wantField("name", "Ann")},
					{method: "GET", path: "/user/999", status: 404, check: wantText("Not Found")},
					{method: "GET", path: "/user/abc", status: 400, check: wantCode("E_INVALID_CRITERIA")},
					{method: "GET", path: "/owners", status: 200, check: wantLen(2)},
					{method: "GET", path: "/people/{bo}", status: 200, check: wantField("name", "Bo")},
					{method: "GET", path: "/nothing/here", status: 404},
				})
			})
			t.Run("update", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "PATCH", path: "/user/1", body: `{"age":43}`, status: 200, check: wantField("age", 43)},
					{method: "PUT", path: "/user/1", body: `{"name":"Anne"}`, status: 200, check: all(wantField("name", "Anne"), wantField("age", 43))},
					{method: "PATCH", path: "/user/1", body: `{"email":"bo@example.com"}`, status: 400, check: wantCode("E_UNIQUE")},
					{method: "GET", path: "/user/1", status: 200, check: wantField("email", "ann@example.com")},
					{method: "PATCH", path: "/user/1", body: `{"pets":[1]}`, status: 400, check: wantCode("E_INVALID_VALUES_TO_SET")},
					{method: "PATCH", path: "/user/1", body: `{"age":"x"}`, status: 400, check: wantCode("E_INVALID_VALUES_TO_SET")},
					{method: "PATCH", path: "/user/1", body: `{"id":77,"age":44}`, status: 200, check: all(wantField("id", 1), wantField("age", 44))},
					{method: "PATCH", path: "/user/999", body: `{"age":1}`, status: 404},
				})
			})
			t.Run("shortcuts", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "GET", path: "/user/create?name=Cy&email=cy@example.com", status: 200, save: "cy"},
					{method: "GET", path: "/user/find/{cy}", status: 200, check: wantField("name", "Cy")},
					{method: "GET", path: "/user/find?name=Cy", status: 200, check: wantLen(1)},
					{method: "GET", path: "/user/update/{cy}?age=9", status: 200, check: wantField("age", 9)},
					{method: "GET", path: "/user/destroy/{cy}", status: 200, check: wantField("name", "Cy")},
					{method: "GET", path: "/user/find/{cy}", status: 404},
				})
			})
			t.Run("associations stored", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "POST", path: "/pet", body: `{"name":"Rex","owner":1}`, status: 200,
						check: func(t *testing.T, v any, _ string) {
							if owner, _ := field(t, v, "owner").(map[string]any); owner["name"] != "Anne" {
								t.Errorf("owner = %#v, want Anne populated", field(t, v, "owner"))
							}
						}},
					{method: "GET", path: "/user/1", status: 200, check: func(t *testing.T, v any, _ string) {
						if pets, _ := field(t, v, "pets").([]any); len(pets) != 1 {
							t.Errorf("pets = %#v, want one", field(t, v, "pets"))
						}
					}},
					{method: "GET", path: "/pet?populate=false", status: 200, check: func(t *testing.T, v any, raw string) {
						if !strings.Contains(raw, `"owner":1`) {
							t.Errorf("unpopulated owner should read as its id: %s", raw)
						}
					}},
					// select without the foreign key still populates it, as
					// Waterline selects the key of every populated singular
					// association; collections are populated too.
					{method: "GET", path: "/pet?select=name", status: 200, check: func(t *testing.T, v any, raw string) {
						rec, _ := v.([]any)[0].(map[string]any)
						if owner, _ := rec["owner"].(map[string]any); owner["name"] != "Anne" || rec["createdAt"] != nil || rec["tags"] == nil {
							t.Errorf("select=name = %s, want id, name, owner populated (Anne) and tags", raw)
						}
					}},
					{method: "GET", path: "/pet/1?select=name", status: 200, check: func(t *testing.T, v any, raw string) {
						if owner, _ := field(t, v, "owner").(map[string]any); owner["name"] != "Anne" {
							t.Errorf("findOne select=name = %s, want owner populated (Anne)", raw)
						}
					}},
					{method: "GET", path: "/pet?select=name&populate=owner", status: 200, check: func(t *testing.T, v any, raw string) {
						rec, _ := v.([]any)[0].(map[string]any)
						if owner, _ := rec["owner"].(map[string]any); owner["name"] != "Anne" || len(rec) != 3 {
							t.Errorf("select=name&populate=owner = %s, want id, name and owner populated (Anne)", raw)
						}
					}},
					{method: "GET", path: "/pet?select=name&populate=false", status: 200, check: func(t *testing.T, v any, raw string) {
						if rec, _ := v.([]any)[0].(map[string]any); len(rec) != 2 {
							t.Errorf("select=name&populate=false = %s, want id and name only", raw)
						}
					}},
					{method: "GET", path: "/user/1/pets", status: 200, check: wantLen(1)},
					{method: "GET", path: "/user/999/pets", status: 404},
					{method: "PATCH", path: "/pet/1", body: `{"owner":null}`, status: 200, check: wantField("owner", nil)},
				})
			})
			t.Run("collections", func(t *testing.T) {
				pets := func(n int) func(*testing.T, any, string) {
					return func(t *testing.T, v any, raw string) {
						t.Helper()
						if list, _ := field(t, v, "pets").([]any); len(list) != n {
							t.Errorf("pets = %s, want %d members", raw, n)
						}
					}
				}
				tags := func(n int) func(*testing.T, any, string) {
					return func(t *testing.T, v any, raw string) {
						t.Helper()
						if list, _ := field(t, v, "tags").([]any); len(list) != n {
							t.Errorf("tags = %s, want %d members", raw, n)
						}
					}
				}
				run(t, srv, vars, []step{
					{method: "GET", path: "/pet?name=Rex", status: 200, check: wantLen(1)},
					{method: "POST", path: "/pet", body: `{"name":"Tom"}`, status: 200, save: "tom"},
					{method: "POST", path: "/pet", body: `{"name":"Max","owner":1}`, status: 200, save: "max"},
					{method: "POST", path: "/tag", body: `{"label":"red"}`, status: 200, save: "red"},
					{method: "POST", path: "/tag", body: `{"label":"blue"}`, status: 200, save: "blue"},
					{method: "GET", path: "/user/1", status: 200, check: pets(1)},
					// add (one-to-many)
					{method: "PUT", path: "/user/1/pets/{tom}", status: 200, check: pets(2)},
					{method: "PUT", path: "/user/1/pets/{tom}", status: 200, check: pets(2)},
					{method: "PUT", path: "/user/1/pets/999", status: 404},
					{method: "PUT", path: "/user/999/pets/{tom}", status: 404},
					{method: "PUT", path: "/user/abc/pets/{tom}", status: 400},
					{method: "PUT", path: "/user/1/pets/abc", status: 400, check: wantCode("E_INVALID_ASSOCIATED_IDS")},
					{method: "GET", path: "/pet/{tom}", status: 200, check: func(t *testing.T, v any, raw string) {
						if o, _ := field(t, v, "owner").(map[string]any); o["id"] != 1.0 {
							t.Errorf("Tom's owner = %s, want user 1 (the other side follows)", raw)
						}
					}},
					// replace (one-to-many)
					{method: "PUT", path: "/user/1/pets", body: `[{tom}]`, status: 200, check: pets(1)},
					{method: "GET", path: "/pet/{max}", status: 200, check: wantField("owner", nil)},
					{method: "PUT", path: "/user/1/pets", body: `{"fks":[{tom},{max}]}`, status: 200, check: pets(2)},
					// A url-encoded body is no array: Sails refuses it (its ids
					// come from an array body or the query string only).
					{method: "PUT", path: "/user/1/pets", body: `pets=[{tom}]`, contentType: "application/x-www-form-urlencoded", status: 400,
						check: all(wantCode("E_INVALID_ASSOCIATED_IDS"), func(t *testing.T, v any, _ string) {
							if d, _ := field(t, v, "details").(string); !strings.Contains(d, "JSON array") {
								t.Errorf("details %q do not say how to send the members", d)
							}
						})},
					{method: "PUT", path: "/user/1/pets", body: `fks=[{tom}]`, contentType: "application/x-www-form-urlencoded", status: 400, check: wantCode("E_INVALID_ASSOCIATED_IDS")},
					{method: "GET", path: "/user/1", status: 200, check: pets(2)},
					{method: "PUT", path: "/user/1/pets?pets=[{max}]", body: `x=1`, contentType: "application/x-www-form-urlencoded", status: 200, check: pets(1)},
					{method: "PUT", path: "/user/1/pets?pets=[{tom},{max}]", status: 200, check: pets(2)},
					{method: "PUT", path: "/user/1/pets", body: `[{tom},999]`, status: 400, check: wantCode("E_INVALID_ASSOCIATED_IDS")},
					{method: "GET", path: "/user/1", status: 200, check: pets(2)},
					{method: "PUT", path: "/user/999/pets", body: `[]`, status: 404},
					{method: "PUT", path: "/user/1/pets", body: `{"name":"x"}`, status: 400},
					// remove (one-to-many)
					{method: "DELETE", path: "/user/1/pets/{max}", status: 200, check: pets(1)},
					{method: "DELETE", path: "/user/1/pets/{max}", status: 200, check: pets(1)},
					{method: "DELETE", path: "/user/1/pets/999", status: 404},
					{method: "DELETE", path: "/user/999/pets/{max}", status: 404},
					// singular associations change through update
					{method: "PUT", path: "/pet/{max}/owner/1", status: 400},
					// many-to-many, seen from both sides
					{method: "PUT", path: "/pet/{tom}/tags/{red}", status: 200, check: tags(1)},
					{method: "PUT", path: "/pet/{tom}/tags/{red}", status: 200, check: tags(1)},
					{method: "GET", path: "/tag/{red}", status: 200, check: pets(1)},
					{method: "PUT", path: "/pet/{tom}/tags", body: `[{red},{blue},{blue}]`, status: 200, check: tags(2)},
					{method: "GET", path: "/tag/{blue}/pets", status: 200, check: wantLen(1)},
					{method: "GET", path: "/pet/{tom}/tags/replace?tags=[{blue}]", status: 200, check: tags(1)},
					{method: "GET", path: "/tag/{red}", status: 200, check: pets(0)},
					{method: "GET", path: "/pet/{tom}/tags/add/{red}", status: 200, check: tags(2)},
					{method: "DELETE", path: "/pet/{tom}/tags/{blue}", status: 200, check: tags(1)},
					{method: "GET", path: "/pet/{tom}/tags/remove/{red}", status: 200, check: tags(0)},
				})
			})
			t.Run("destroy", func(t *testing.T) {
				run(t, srv, vars, []step{
					{method: "DELETE", path: "/user/{bo}", status: 200, check: wantField("name", "Bo")},
					{method: "GET", path: "/user/{bo}", status: 404},
					{method: "DELETE", path: "/user/{bo}", status: 404},
					{method: "DELETE", path: "/user", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				})
			})
		})
	}
}
