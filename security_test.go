package skiff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/socketctx"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
)

// secApp starts the note app (see newNoteApp) with opts and returns its
// handler, for requests served in-process (so that socket virtual requests
// can be marked in their context).
func secApp(t *testing.T, opts skiff.Options) http.Handler {
	t.Helper()
	h, err := newSecApp(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func newSecApp(t *testing.T, opts skiff.Options) (http.Handler, error) {
	t.Helper()
	ctx := context.Background()
	note, err := model.Parse("note", "security_test.go", map[string]any{"attributes": map[string]any{
		"id":   map[string]any{"type": "number", "autoIncrement": true},
		"text": map[string]any{"type": "string"},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	opts.Models = []*model.Model{note}
	opts.Datastores = map[string]datastore.Adapter{"default": db}
	app, err := skiff.New(ctx, opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	t.Cleanup(func() { app.Close() })
	return app.Handler(), nil
}

// browser sends requests to an app handler, keeping the session cookie.
type browser struct {
	t      *testing.T
	h      http.Handler
	cookie string // "sails.sid=..." once set
	socket bool   // send requests as socket virtual requests
}

type answer struct {
	status int
	body   string
	header http.Header
}

// send issues method target with body (JSON unless ct says otherwise) and
// header pairs.
func (b *browser) send(method, target, ct, body string, header ...string) answer {
	b.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if body != "" {
		if ct == "" {
			ct = "application/json"
		}
		r.Header.Set("Content-Type", ct)
	}
	if b.cookie != "" {
		r.Header.Set("Cookie", b.cookie)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	if b.socket {
		r = r.WithContext(socketctx.NewContext(r.Context(), "socket-1"))
	}
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, r)
	for _, c := range w.Result().Cookies() {
		if c.Name == "sails.sid" {
			b.cookie = c.Name + "=" + c.Value
		}
	}
	return answer{w.Code, w.Body.String(), w.Header()}
}

// token fetches a CSRF token from GET /csrfToken.
func (b *browser) token() string {
	b.t.Helper()
	a := b.send("GET", "/csrfToken", "", "")
	var v struct {
		CSRF *string `json:"_csrf"`
	}
	if a.status != 200 || json.Unmarshal([]byte(a.body), &v) != nil || v.CSRF == nil {
		b.t.Fatalf("GET /csrfToken = %d %s, want {\"_csrf\": ...}", a.status, a.body)
	}
	return *v.CSRF
}

func (b *browser) count() int {
	b.t.Helper()
	a := b.send("GET", "/note", "", "")
	var recs []any
	if err := json.Unmarshal([]byte(a.body), &recs); err != nil {
		b.t.Fatalf("GET /note = %d %s", a.status, a.body)
	}
	return len(recs)
}

var csrfRoutes = []skiff.Route{
	{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token"},
	{Method: "POST", Path: "/open", Action: "note/create", Options: map[string]any{"csrf": false}},
	{Path: "/open-any", Action: "note/create", Options: map[string]any{"csrf": false}},
	{Method: "POST", Path: "/guarded", Action: "note/create", Options: map[string]any{"csrf": true}},
	{Method: "GET", Path: "/get-guarded", Action: "note/find", Options: map[string]any{"csrf": true}},
}

func TestCSRFMatrix(t *testing.T) {
	h := secApp(t, skiff.Options{CSRF: true, Routes: csrfRoutes})
	b := &browser{t: t, h: h}
	if a := b.send("POST", "/note", "", `{"text":"x"}`); a.status != 403 || a.body != "Forbidden" {
		t.Errorf("POST /note without session or token = %d %q, want 403 Forbidden", a.status, a.body)
	}
	tok := b.token()
	if tok == "" || b.cookie == "" {
		t.Fatalf("GET /csrfToken gave token %q and cookie %q, want both", tok, b.cookie)
	}
	other := &browser{t: t, h: h}
	otherTok := other.token()

	body := func(field string) string { return fmt.Sprintf(`{"text":"x","_csrf":%q}`, field) }
	for _, tc := range []struct {
		name, method, target, ct, body string
		header                         []string
		want                           int
	}{
		{"no token", "POST", "/note", "", `{"text":"x"}`, nil, 403},
		{"wrong header token", "POST", "/note", "", `{"text":"x"}`, []string{"X-CSRF-Token", "abc-def"}, 403},
		{"other session's token", "POST", "/note", "", `{"text":"x"}`, []string{"X-CSRF-Token", otherTok}, 403},
		{"wrong body token", "POST", "/note", "", body("nope"), nil, 403},
		{"wrong query token", "POST", "/note?_csrf=nope", "", `{"text":"x"}`, nil, 403},
		{"wrong body beats right header", "POST", "/note", "", body("nope"), []string{"X-CSRF-Token", tok}, 403},
		{"no token on PUT", "PUT", "/note/1", "", `{"text":"y"}`, nil, 403},
		{"no token on PATCH", "PATCH", "/note/1", "", `{"text":"y"}`, nil, 403},
		{"no token on DELETE", "DELETE", "/note/1", "", "", nil, 403},
		{"x-csrf-token", "POST", "/note", "", `{"text":"x"}`, []string{"X-CSRF-Token", tok}, 200},
		{"csrf-token", "POST", "/note", "", `{"text":"x"}`, []string{"CSRF-Token", tok}, 200},
		{"xsrf-token", "POST", "/note", "", `{"text":"x"}`, []string{"XSRF-Token", tok}, 200},
		{"x-xsrf-token", "POST", "/note", "", `{"text":"x"}`, []string{"X-XSRF-Token", tok}, 200},
		{"json body", "POST", "/note", "", body(tok), nil, 200},
		{"form body", "POST", "/note", "application/x-www-form-urlencoded", "text=x&_csrf=" + url.QueryEscape(tok), nil, 200},
		{"query", "POST", "/note?_csrf=" + url.QueryEscape(tok), "", `{"text":"x"}`, nil, 200},
		{"token on PATCH", "PATCH", "/note/1", "", `{"text":"y"}`, []string{"X-CSRF-Token", tok}, 200},
		{"GET needs none", "GET", "/note", "", "", nil, 200},
		{"exempt route", "POST", "/open", "", `{"text":"x"}`, nil, 200},
		{"exempt verb-less route", "DELETE", "/open-any", "", `{"text":"x"}`, nil, 200},
		{"a second token of the session", "POST", "/note", "", `{"text":"x"}`, []string{"X-CSRF-Token", b.token()}, 200},
		{"unmatched POST", "POST", "/nothing/here", "", "", nil, 403},
	} {
		before := b.count()
		a := b.send(tc.method, tc.target, tc.ct, tc.body, tc.header...)
		if a.status != tc.want {
			t.Errorf("%s: %s %s = %d %s, want %d", tc.name, tc.method, tc.target, a.status, a.body, tc.want)
		}
		if tc.want == 403 && b.count() != before {
			t.Errorf("%s: the refused request changed the records", tc.name)
		}
	}
	// A token is no good without the cookie that binds it.
	stranger := &browser{t: t, h: h}
	if a := stranger.send("POST", "/note", "", `{"text":"x"}`, "X-CSRF-Token", tok); a.status != 403 {
		t.Errorf("POST /note with a token but no cookie = %d, want 403", a.status)
	}

	// Socket virtual requests share the session of their handshake cookie
	// and go through the same check; a token is not granted over a socket.
	sock := &browser{t: t, h: h, cookie: b.cookie, socket: true}
	if a := sock.send("POST", "/note", "", `{"text":"s"}`); a.status != 403 {
		t.Errorf("socket POST /note without token = %d, want 403", a.status)
	}
	if a := sock.send("POST", "/note", "", body(tok)); a.status != 200 {
		t.Errorf("socket POST /note with data._csrf = %d %s, want 200", a.status, a.body)
	}
	if a := sock.send("POST", "/note", "", `{"text":"s"}`, "x-csrf-token", tok); a.status != 200 {
		t.Errorf("socket POST /note with x-csrf-token = %d %s, want 200", a.status, a.body)
	}
	if a := sock.send("GET", "/csrfToken", "", ""); a.status != 400 || !strings.Contains(a.body, "Cannot access CSRF token via socket request") {
		t.Errorf("socket GET /csrfToken = %d %q, want 400 explaining", a.status, a.body)
	}
}

func TestCSRFOff(t *testing.T) {
	h := secApp(t, skiff.Options{Routes: csrfRoutes})
	b := &browser{t: t, h: h}
	if tok := b.token(); tok != "" {
		t.Errorf("GET /csrfToken with csrf off = %q, want \"\" (as Sails' res.locals._csrf)", tok)
	}
	if a := b.send("POST", "/note", "", `{"text":"x"}`); a.status != 200 {
		t.Errorf("POST /note with csrf off = %d, want 200", a.status)
	}
	if a := b.send("POST", "/guarded", "", `{"text":"x"}`); a.status != 403 {
		t.Errorf("POST /guarded (csrf: true) without token = %d, want 403", a.status)
	}
	if a := b.send("GET", "/get-guarded", "", ""); a.status != 200 {
		t.Errorf("GET /get-guarded (csrf: true on GET is ignored) = %d, want 200", a.status)
	}
	if b.cookie != "" {
		t.Errorf("requests that stored nothing set the cookie %q, want none", b.cookie)
	}
}

func TestGrantCSRFTokenOverSocketInProduction(t *testing.T) {
	h := secApp(t, skiff.Options{Env: "production", CSRF: true, Routes: csrfRoutes[:1],
		Session: skiff.SessionOptions{Secret: "x"}, Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://a.example"}}})
	sock := &browser{t: t, h: h, socket: true}
	if a := sock.send("GET", "/csrfToken", "", ""); a.status != 404 || a.body != "Not Found" {
		t.Errorf("socket GET /csrfToken in production = %d %q, want 404 Not Found", a.status, a.body)
	}
}

func TestCORSMatrix(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	routes := []skiff.Route{
		{Method: "PUT", Path: "/no-cors-config", Handler: ok},
		{Method: "PUT", Path: "/cors-true", Handler: ok, Options: map[string]any{"cors": true}},
		{Method: "PUT", Path: "/origin", Handler: ok, Options: map[string]any{"cors": map[string]any{"allowOrigins": []any{"http://example.com"}}}},
		{Path: "/all-methods", Handler: ok, Options: map[string]any{"cors": "http://example.com"}},
		{Path: "/credentials", Handler: ok, Options: map[string]any{"cors": map[string]any{"allowOrigins": []any{"http://example.com"}, "allowCredentials": true}}},
		{Method: "PUT", Path: "/no-cors", Handler: ok, Options: map[string]any{"cors": false}},
	}
	const allMethods = "GET,HEAD,PUT,PATCH,POST,DELETE"
	type want map[string]string
	cases := []struct {
		method, path, origin, reqMethod string
		status                          int
		want                            want
	}{
		{"PUT", "/no-cors-config", "http://example.com", "", 200, want{}},
		{"OPTIONS", "/no-cors-config", "http://example.com", "PUT", 200, want{}},
		{"PUT", "/cors-true", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "*"}},
		{"OPTIONS", "/cors-true", "http://example.com", "PUT", 200, want{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"OPTIONS", "/cors-true", "http://example.com", "POST", 200, want{}},
		{"PUT", "/origin", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin"}},
		{"PUT", "/origin", "http://evil.com", "", 200, want{}},
		{"OPTIONS", "/origin", "http://example.com", "PUT", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"OPTIONS", "/origin", "http://evil.com", "PUT", 200, want{}},
		{"DELETE", "/all-methods", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin"}},
		{"OPTIONS", "/all-methods", "http://example.com", "PATCH", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"POST", "/credentials", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}},
		{"POST", "/credentials", "http://evil.com", "", 200, want{}},
		{"PUT", "/no-cors", "http://example.com", "", 200, want{}},
		{"GET", "/note", "http://example.com", "", 200, want{}},
	}
	allRoutes := []struct {
		method, path, origin, reqMethod string
		status                          int
		want                            want
	}{
		{"PUT", "/no-cors-config", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}},
		{"OPTIONS", "/no-cors-config", "http://example.com", "PUT", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"GET", "/note", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}},
		{"GET", "/nothing", "http://example.com", "", 404, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}},
		{"PUT", "/no-cors", "http://example.com", "", 200, want{}},
		{"GET", "/note", "", "", 200, want{}},
	}
	check := func(t *testing.T, h http.Handler, socket bool, method, path, origin, reqMethod string, status int, w want) {
		t.Helper()
		b := &browser{t: t, h: h, socket: socket}
		hdr := []string{}
		if origin != "" {
			hdr = append(hdr, "Origin", origin)
		}
		if reqMethod != "" {
			hdr = append(hdr, "Access-Control-Request-Method", reqMethod)
		}
		a := b.send(method, path, "", "", hdr...)
		if a.status != status {
			t.Errorf("%s %s from %s = %d, want %d", method, path, origin, a.status, status)
		}
		if method == "OPTIONS" && a.body != "" {
			t.Errorf("%s %s body = %q, want empty", method, path, a.body)
		}
		got := want{}
		for k := range a.header {
			if strings.HasPrefix(k, "Access-Control-") || k == "Vary" {
				got[k] = strings.Join(a.header.Values(k), ", ")
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s %s from %q (preflight %s) CORS headers = %v, want %v", method, path, origin, reqMethod, got, w)
		}
	}
	t.Run("default", func(t *testing.T) {
		h := secApp(t, skiff.Options{Routes: routes})
		for _, c := range cases {
			check(t, h, false, c.method, c.path, c.origin, c.reqMethod, c.status, c.want)
		}
		// Sockets are not subject to CORS.
		check(t, h, true, "PUT", "/cors-true", "http://example.com", "", 200, want{})
	})
	t.Run("allRoutes with credentials", func(t *testing.T) {
		h := secApp(t, skiff.Options{Routes: routes, CORS: map[string]any{
			"allRoutes": true, "allowCredentials": true, "allowAnyOriginWithCredentialsUnsafe": true}})
		for _, c := range allRoutes {
			check(t, h, false, c.method, c.path, c.origin, c.reqMethod, c.status, c.want)
		}
	})
	t.Run("refused at start", func(t *testing.T) {
		for name, o := range map[string]skiff.Options{
			"star with credentials": {CORS: map[string]any{"allowCredentials": true}},
			"bad global origin":     {CORS: map[string]any{"allowOrigins": []any{"https://a.com/"}}},
			"bad route origin":      {Routes: []skiff.Route{{Path: "/x", Handler: ok, Options: map[string]any{"cors": map[string]any{"allowOrigins": []any{"a.com"}}}}}},
			"unsafe route":          {Routes: []skiff.Route{{Path: "/x", Handler: ok, Options: map[string]any{"cors": map[string]any{"allowCredentials": true}}}}},
			"bad csrf option":       {Routes: []skiff.Route{{Method: "POST", Path: "/x", Handler: ok, Options: map[string]any{"csrf": "no"}}}},
			"bad socket origin":     {Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"example.com"}}},
		} {
			if _, err := newSecApp(t, o); err == nil {
				t.Errorf("New with %s succeeded, want an error", name)
			}
		}
	})
}

// isLoggedIn is the policy of the tests: the session must hold a userId.
func isLoggedIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := skiff.SessionFrom(r.Context()); s == nil || !s.Exists("userId") {
			skiff.Forbidden(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestPolicies(t *testing.T) {
	opts := skiff.Options{
		Actions: map[string]http.Handler{
			"auth/login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				s := skiff.SessionFrom(r.Context())
				if err := s.RenewToken(); err != nil {
					t.Error(err)
				}
				s.Put("userId", 1)
				w.Write([]byte("welcome"))
			}),
			"note/secret": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }),
		},
		Routes: []skiff.Route{
			{Method: "POST", Path: "/login", Action: "auth/login"},
			{Method: "GET", Path: "/secret", Action: "note/secret"},
			{Method: "GET", Path: "/secret-handler", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})},
		},
		Policies:    map[string]skiff.Policy{"isLoggedIn": isLoggedIn},
		PolicyRules: map[string]any{"*": "isLoggedIn", "auth/*": true, "note/find": true, "note/destroy": false},
	}
	for _, store := range []struct {
		name    string
		session skiff.SessionOptions
	}{
		{"memory", skiff.SessionOptions{}},
		{"datastore", skiff.SessionOptions{Adapter: "datastore"}},
		{"redis", skiff.SessionOptions{Adapter: "redis", Prefix: "skiff_test_policies:"}},
	} {
		t.Run(store.name, func(t *testing.T) {
			o := opts
			o.Session = store.session
			if store.name == "redis" {
				o.Session.URL = "redis://" + testenv.Redis(t)
			}
			h := secApp(t, o)
			b := &browser{t: t, h: h}
			for _, tc := range []struct {
				method, path, body string
				want               int
			}{
				{"GET", "/note", "", 200},
				{"POST", "/note", `{"text":"x"}`, 403},
				{"GET", "/secret", "", 403},
				{"GET", "/secret-handler", "", 200},
				{"POST", "/login", "", 200},
				{"POST", "/note", `{"text":"x"}`, 200},
				{"GET", "/note/1", "", 200},
				{"GET", "/secret", "", 200},
				{"DELETE", "/note/1", "", 403},
			} {
				if a := b.send(tc.method, tc.path, "", tc.body); a.status != tc.want {
					t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, a.status, a.body, tc.want)
				}
			}
			if n := b.count(); n != 1 {
				t.Errorf("records after the refused destroy = %d, want 1", n)
			}
			// Over a socket with the same cookie, the same policies and session.
			sock := &browser{t: t, h: h, cookie: b.cookie, socket: true}
			if a := sock.send("GET", "/secret", "", ""); a.status != 200 {
				t.Errorf("socket GET /secret with the login cookie = %d, want 200", a.status)
			}
			anon := &browser{t: t, h: h, socket: true}
			if a := anon.send("GET", "/secret", "", ""); a.status != 403 {
				t.Errorf("socket GET /secret without a cookie = %d, want 403", a.status)
			}
		})
	}
	if _, err := newSecApp(t, skiff.Options{PolicyRules: map[string]any{"*": "isAdmin"}}); err == nil || !strings.Contains(err.Error(), "isAdmin") {
		t.Errorf("New with an unknown policy = %v, want an error naming it", err)
	}
}

func TestProductionRefusals(t *testing.T) {
	good := func() skiff.Options {
		return skiff.Options{Env: "production", Session: skiff.SessionOptions{Secret: "s"},
			Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://app.example"}}}
	}
	withMigrate := func(o skiff.Options, migrate model.Migrate) (http.Handler, error) {
		note, _ := model.Parse("note", "x", map[string]any{"attributes": map[string]any{
			"id": map[string]any{"type": "number", "autoIncrement": true}}}, nil)
		note.Migrate = migrate
		db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		o.Models = []*model.Model{note}
		o.Datastores = map[string]datastore.Adapter{"default": db}
		app, err := skiff.New(context.Background(), o)
		if err != nil {
			db.Close()
			return nil, err
		}
		t.Cleanup(func() { app.Close() })
		return app.Handler(), nil
	}
	withSafe := func(o skiff.Options) (http.Handler, error) { return withMigrate(o, model.MigrateSafe) }
	if _, err := withSafe(good()); err != nil {
		t.Fatalf("New in production with everything set: %v", err)
	}
	hook := good()
	hook.Sockets.OnlyAllowOrigins = nil
	hook.Sockets.BeforeConnect = func(*http.Request) error { return nil }
	if _, err := withSafe(hook); err != nil {
		t.Errorf("New in production with BeforeConnect instead of origins: %v", err)
	}
	noSecret := good()
	noSecret.Session.Secret = ""
	noOrigins := good()
	noOrigins.Sockets.OnlyAllowOrigins = nil
	for name, tc := range map[string]struct {
		opts    skiff.Options
		migrate model.Migrate
		want    string
	}{
		"no session secret":  {noSecret, model.MigrateSafe, "session secret"},
		"no socket origins":  {noOrigins, model.MigrateSafe, "sockets.onlyAllowOrigins"},
		"migrate alter":      {good(), model.MigrateAlter, "note (alter)"},
		"migrate drop":       {good(), model.MigrateDrop, "note (drop)"},
		"everything missing": {skiff.Options{Env: "production"}, model.MigrateAlter, "session secret"},
	} {
		_, err := withMigrate(tc.opts, tc.migrate)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New in production with %s = %v, want an error mentioning %q", name, err, tc.want)
		}
	}
}

func TestLoadedAppRefusesProduction(t *testing.T) {
	ctx := context.Background()
	opts, err := skiff.LoadApp(ctx, "testdata/apps/basic", "production",
		[]string{"SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/p.db"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range opts.Datastores {
			d.Close()
		}
	}()
	_, err = skiff.New(ctx, *opts)
	for _, want := range []string{"refusing to start in production", "session.secret", "sockets.onlyAllowOrigins", "models.migrate: safe"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(basic app in production) = %v, want it to mention %q", err, want)
		}
	}
}

// failingFind is the SQLite adapter with a Find that fails the way a
// broken database does, with SQL in its message.
type failingFind struct{ datastore.Adapter }

func (failingFind) Find(context.Context, *datastore.Query) ([]datastore.Record, error) {
	return nil, fmt.Errorf(`query "SELECT secret FROM note": no such column`)
}

func TestServerErrorsHideTheirCause(t *testing.T) {
	for _, env := range []string{"development", "production"} {
		note, _ := model.Parse("note", "x", map[string]any{"attributes": map[string]any{
			"id": map[string]any{"type": "number", "autoIncrement": true}}}, nil)
		note.Migrate = model.MigrateSafe
		db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		app, err := skiff.New(context.Background(), skiff.Options{
			Env: env, Models: []*model.Model{note}, Datastores: map[string]datastore.Adapter{"default": failingFind{db}},
			Session: skiff.SessionOptions{Secret: "s"}, Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://a.example"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer app.Close()
		b := &browser{t: t, h: app.Handler()}
		if a := b.send("GET", "/note", "", ""); a.status != 500 || a.body != "Internal Server Error" {
			t.Errorf("%s: GET /note with a failing database = %d %q, want 500 Internal Server Error and nothing else", env, a.status, a.body)
		}
	}
}

// BenchmarkSecurityLayer measures GET /note (a find answering 10 records)
// through the whole handler with the security layer off (the reference),
// with the defaults (memory sessions, no cookie sent) and with CSRF and
// CORS on every route plus a session cookie.
func BenchmarkSecurityLayer(b *testing.B) {
	for _, bc := range []struct {
		name   string
		opts   skiff.Options
		cookie bool
	}{
		{"off", skiff.Options{Session: skiff.SessionOptions{Disabled: true}}, false},
		{"defaults", skiff.Options{}, false},
		{"csrf+cors+cookie", skiff.Options{CSRF: true, CORS: map[string]any{"allRoutes": true}, Routes: csrfRoutes[:1]}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			note, _ := model.Parse("note", "x", map[string]any{"attributes": map[string]any{
				"id": map[string]any{"type": "number", "autoIncrement": true}, "text": map[string]any{"type": "string"}}}, nil)
			db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
			if err != nil {
				b.Fatal(err)
			}
			bc.opts.Models = []*model.Model{note}
			bc.opts.Datastores = map[string]datastore.Adapter{"default": db}
			app, err := skiff.New(ctx, bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer app.Close()
			h := app.Handler()
			for range 10 {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/note", strings.NewReader(`{"text":"x"}`)))
			}
			cookie := ""
			if bc.cookie {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", "/csrfToken", nil))
				cookie = w.Header().Get("Set-Cookie")
				cookie = cookie[:strings.IndexByte(cookie, ';')]
			}
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("GET", "/note", nil)
				r.Header.Set("Origin", "http://a.example")
				if cookie != "" {
					r.Header.Set("Cookie", cookie)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("GET /note = %d", w.Code)
				}
			}
		})
	}
}
