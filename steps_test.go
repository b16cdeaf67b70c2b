package skiff_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/skifftest"
)

// Steps written as Go tables, for the tests whose checks are not a
// request and its answer; request/answer cases belong in
// testdata/conformance (see skifftest.RunCorpus).

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
