package skiff_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/sockettest"
	"github.com/skiffhq/skiff/model"
)

// secServer is an app served by App.Serve on a real listener, sockets
// included: every security test talks to it over HTTP or over real
// socket.io connections (sockettest), never by calling its handler.
type secServer struct {
	app *skiff.App
	url string
}

// secApp starts the note app (a note model with a text attribute on an
// in-memory SQLite database, unless opts brings its own) with opts.
func secApp(t *testing.T, opts skiff.Options) *secServer {
	t.Helper()
	s, err := newSecApp(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newSecApp(t *testing.T, opts skiff.Options) (*secServer, error) {
	t.Helper()
	ctx := context.Background()
	if opts.Models == nil {
		note, err := model.Parse("note", "security_test.go", map[string]any{"attributes": map[string]any{
			"id":   map[string]any{"type": "number", "autoIncrement": true},
			"text": map[string]any{"type": "string"},
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts.Models = []*model.Model{note}
	}
	if opts.Datastores == nil {
		db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		opts.Datastores = map[string]datastore.Adapter{"default": db}
	}
	app, err := skiff.New(ctx, opts)
	if err != nil {
		for _, d := range opts.Datastores {
			d.Close()
		}
		return nil, err
	}
	return serveApp(t, app), nil
}

// serveApp serves app on a port of its own until the test ends, then
// closes it.
func serveApp(t *testing.T, app *skiff.App) *secServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := app.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &secServer{app: app, url: "http://" + ln.Addr().String()}
}

// count returns how many notes the database holds, read through the ORM
// rather than the API under test.
func (s *secServer) count(t *testing.T) int {
	t.Helper()
	for _, m := range s.app.Models() {
		if m.Identity == "note" {
			n, err := s.app.ORM().Count(context.Background(), m, nil)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
	}
	t.Fatal("no note model")
	return 0
}

// noteText returns the text of note id as stored, or "" when it is gone.
func (s *secServer) noteText(t *testing.T, id float64) string {
	t.Helper()
	for _, m := range s.app.Models() {
		if m.Identity == "note" {
			rec, err := s.app.ORM().FindByPK(context.Background(), m, id, nil)
			if model.KindOf(err) == model.NotFound {
				return ""
			}
			if err != nil {
				t.Fatal(err)
			}
			text, _ := rec["text"].(string)
			return text
		}
	}
	t.Fatal("no note model")
	return ""
}

// browser talks to a secServer as a browser page would: over HTTP,
// keeping the session cookie, or (socket) over one socket.io connection
// whose handshake carries the cookie and origin the browser had when it
// first sent a request.
type browser struct {
	t      *testing.T
	h      *secServer
	cookie string // "sails.sid=..." once set
	socket bool   // send requests as socket virtual requests
	// origin is the socket handshake's Origin; "" means https://a.example.
	origin string
	// handshake holds more handshake headers (nosession, ...).
	handshake http.Header
	conn      *sockettest.Client
}

type answer struct {
	status int
	body   string // text bodies as text, JSON as JSON
	header http.Header
}

// send issues method target with body (JSON unless ct says otherwise) and
// header pairs.
func (b *browser) send(method, target, ct, body string, header ...string) answer {
	b.t.Helper()
	if b.socket {
		return b.sendSocket(method, target, ct, body, header...)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, b.h.url+target, rd)
	if err != nil {
		b.t.Fatal(err)
	}
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
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatalf("%s %s: read body: %v", method, target, err)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "sails.sid" {
			b.cookie = c.Name + "=" + c.Value
			if c.MaxAge < 0 {
				b.cookie = ""
			}
		}
	}
	return answer{resp.StatusCode, strings.TrimSuffix(string(raw), "\n"), resp.Header}
}

// sendSocket sends a virtual request as sails.io.js does: the body as
// data, the header pairs as the envelope's headers.
func (b *browser) sendSocket(method, target, ct, body string, header ...string) answer {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if b.conn == nil {
		h := http.Header{}
		for k, v := range b.handshake {
			h[k] = v
		}
		h.Set("Origin", b.origin)
		if b.origin == "" {
			h.Set("Origin", "https://a.example")
		}
		if b.cookie != "" {
			h.Set("Cookie", b.cookie)
		}
		c, err := sockettest.Dial(ctx, b.h.url, sockettest.Options{EIO: 3, Header: h})
		if err != nil {
			b.t.Fatalf("dial: %v", err)
		}
		b.t.Cleanup(func() { c.Close() })
		b.conn = c
	}
	if ct != "" && ct != "application/json" {
		b.t.Fatalf("socket requests carry JSON data, not %s", ct)
	}
	headers := map[string]any{}
	for i := 0; i+1 < len(header); i += 2 {
		headers[strings.ToLower(header[i])] = header[i+1]
	}
	env := map[string]any{"method": strings.ToLower(method), "url": target, "headers": headers}
	if body != "" {
		env["data"] = json.RawMessage(body)
	}
	raw, err := b.conn.Ack(ctx, strings.ToLower(method), env)
	if err != nil {
		b.t.Fatalf("socket %s %s: %v", method, target, err)
	}
	var jwr sockettest.JWR
	if err := json.Unmarshal(raw, &jwr); err != nil {
		b.t.Fatalf("socket %s %s: JWR %s: %v", method, target, raw, err)
	}
	a := answer{status: jwr.StatusCode, body: string(jwr.Body), header: http.Header{}}
	var text string
	if json.Unmarshal(jwr.Body, &text) == nil {
		a.body = text
	}
	for k, v := range jwr.Headers {
		a.header.Set(k, v)
	}
	return a
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
	return b.h.count(b.t)
}

var csrfRoutes = []skiff.Route{
	{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token"},
	{Method: "POST", Path: "/open", Action: "note/create", Options: map[string]any{"csrf": false}},
	{Path: "/open-any", Action: "note/create", Options: map[string]any{"csrf": false}},
	{Method: "POST", Path: "/guarded", Action: "note/create", Options: map[string]any{"csrf": true}},
	{Method: "GET", Path: "/get-guarded", Action: "note/find", Options: map[string]any{"csrf": true}},
}

// transports are the two ways a browser reaches the app: every security
// matrix runs over both.
var transports = []struct {
	name   string
	socket bool
}{{"http", false}, {"socket", true}}

// createdID returns the id of the record a create answered.
func createdID(t *testing.T, a answer) float64 {
	t.Helper()
	var rec struct{ ID float64 }
	if a.status != 200 || json.Unmarshal([]byte(a.body), &rec) != nil || rec.ID == 0 {
		t.Fatalf("create = %d %s, want the created record", a.status, a.body)
	}
	return rec.ID
}

// TestCSRFMatrix sends missing, malformed, foreign and right tokens in
// every place Sails reads one (body, query, four headers), over HTTP and
// over a socket sharing the browser's session, and checks the database
// after every refusal.
func TestCSRFMatrix(t *testing.T) {
	h := secApp(t, skiff.Options{CSRF: true, Routes: csrfRoutes})
	web := &browser{t: t, h: h}
	if a := web.send("POST", "/note", "", `{"text":"x"}`); a.status != 403 || a.body != "Forbidden" {
		t.Errorf("POST /note without session or token = %d %q, want 403 Forbidden", a.status, a.body)
	}
	tok := web.token()
	if tok == "" || web.cookie == "" {
		t.Fatalf("GET /csrfToken gave token %q and cookie %q, want both", tok, web.cookie)
	}
	otherTok := (&browser{t: t, h: h}).token()

	// put places token ("" for none) in one of the places a token is read
	// from, for a create.
	type place struct {
		name string
		put  func(token string) (target, body string, header []string)
	}
	inHeader := func(name string) place {
		return place{"header " + name, func(tok string) (string, string, []string) {
			if tok == "" {
				return "/note", `{"text":"x"}`, nil
			}
			return "/note", `{"text":"x"}`, []string{name, tok}
		}}
	}
	places := []place{
		{"body _csrf", func(tok string) (string, string, []string) {
			if tok == "" {
				return "/note", `{"text":"x"}`, nil
			}
			return "/note", fmt.Sprintf(`{"text":"x","_csrf":%q}`, tok), nil
		}},
		{"query _csrf", func(tok string) (string, string, []string) {
			if tok == "" {
				return "/note", `{"text":"x"}`, nil
			}
			return "/note?_csrf=" + url.QueryEscape(tok), `{"text":"x"}`, nil
		}},
		inHeader("X-CSRF-Token"), inHeader("CSRF-Token"), inHeader("XSRF-Token"), inHeader("X-XSRF-Token"),
	}
	tokens := []struct {
		name, token string
		want        int
	}{
		{"missing", "", 403},
		{"malformed", "nope", 403},
		{"forged", "abcdefgh-" + strings.Repeat("A", 27), 403},
		{"another session's", otherTok, 403},
		{"right", tok, 200},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			b := &browser{t: t, h: h, cookie: web.cookie, socket: tr.socket}
			send := func(what string, want int, method, target, ct, body string, header ...string) answer {
				t.Helper()
				before := h.count(t)
				a := b.send(method, target, ct, body, header...)
				if a.status != want {
					t.Errorf("%s: %s %s = %d %s, want %d", what, method, target, a.status, a.body, want)
				}
				if a.status == 403 && a.body != "Forbidden" {
					t.Errorf("%s: refusal body %q, want Forbidden", what, a.body)
				}
				if after := h.count(t); want == 403 && after != before {
					t.Errorf("%s: the refused request changed the number of notes from %d to %d", what, before, after)
				}
				return a
			}
			for _, p := range places {
				for _, tk := range tokens {
					target, body, header := p.put(tk.token)
					send(p.name+", "+tk.name+" token", tk.want, "POST", target, "", body, header...)
				}
			}
			send("a second token of the session", 200, "POST", "/note", "", `{"text":"x"}`, "X-CSRF-Token", web.token())
			send("a wrong body token beats a right header", 403, "POST", "/note", "", `{"text":"x","_csrf":"nope"}`, "X-CSRF-Token", tok)

			// Updates and destroys: refused without a right token, and the
			// record stays as it was.
			id := createdID(t, send("create", 200, "POST", "/note", "", `{"text":"orig"}`, "X-CSRF-Token", tok))
			path := fmt.Sprintf("/note/%v", id)
			for _, m := range []string{"PUT", "PATCH", "DELETE"} {
				for _, tk := range tokens[:4] {
					var hdr []string
					if tk.token != "" {
						hdr = []string{"X-CSRF-Token", tk.token}
					}
					send(m+" with a "+tk.name+" token", 403, m, path, "", `{"text":"changed"}`, hdr...)
					if got := h.noteText(t, id); got != "orig" {
						t.Fatalf("%s with a %s token left the note as %q, want orig", m, tk.name, got)
					}
				}
			}
			send("PATCH with the token", 200, "PATCH", path, "", `{"text":"patched"}`, "X-CSRF-Token", tok)
			if got := h.noteText(t, id); got != "patched" {
				t.Errorf("after PATCH with the token the note is %q, want patched", got)
			}
			send("DELETE with the token", 200, "DELETE", path, "", "", "X-CSRF-Token", tok)
			if got := h.noteText(t, id); got != "" {
				t.Errorf("after DELETE with the token the note is still there (%q)", got)
			}

			send("GET needs no token", 200, "GET", "/note", "", "")
			// Shortcut routes write over GET, so CSRF does not guard them;
			// that is why production turns them off.
			send("a shortcut create in development", 200, "GET", "/note/create?text=shortcut", "", "")
			send("exempt route", 200, "POST", "/open", "", `{"text":"x"}`)
			send("exempt verb-less route", 200, "DELETE", "/open-any", "", `{"text":"x"}`)
			send("csrf: true while on anyway", 403, "POST", "/guarded", "", `{"text":"x"}`)
			send("unmatched POST", 403, "POST", "/nothing/here", "", "")
			if !tr.socket {
				send("form body, wrong token", 403, "POST", "/note", "application/x-www-form-urlencoded", "text=x&_csrf=nope")
				send("form body", 200, "POST", "/note", "application/x-www-form-urlencoded", "text=x&_csrf="+url.QueryEscape(tok))
			}

			// A token is no good without the cookie that binds it.
			stranger := &browser{t: t, h: h, socket: tr.socket}
			before := h.count(t)
			if a := stranger.send("POST", "/note", "", `{"text":"x"}`, "X-CSRF-Token", tok); a.status != 403 || h.count(t) != before {
				t.Errorf("POST /note with a token but not its cookie = %d (notes %d -> %d), want 403 and nothing created", a.status, before, h.count(t))
			}
		})
	}
	// A token is not granted over a socket (400 outside production).
	sock := &browser{t: t, h: h, cookie: web.cookie, socket: true}
	if a := sock.send("GET", "/csrfToken", "", ""); a.status != 400 || !strings.Contains(a.body, "Cannot access CSRF token via socket request") {
		t.Errorf("socket GET /csrfToken = %d %q, want 400 explaining", a.status, a.body)
	}
}

func TestCSRFOff(t *testing.T) {
	h := secApp(t, skiff.Options{Routes: csrfRoutes})
	for _, tr := range transports {
		b := &browser{t: t, h: h, socket: tr.socket}
		if !tr.socket {
			if tok := b.token(); tok != "" {
				t.Errorf("GET /csrfToken with csrf off = %q, want \"\" (as Sails' res.locals._csrf)", tok)
			}
		}
		before := h.count(t)
		if a := b.send("POST", "/note", "", `{"text":"x"}`); a.status != 200 {
			t.Errorf("%s: POST /note with csrf off = %d, want 200", tr.name, a.status)
		}
		if a := b.send("POST", "/guarded", "", `{"text":"x"}`); a.status != 403 {
			t.Errorf("%s: POST /guarded (csrf: true) without token = %d, want 403", tr.name, a.status)
		}
		if got := h.count(t); got != before+1 {
			t.Errorf("%s: notes %d -> %d, want one more (the refused create changed nothing)", tr.name, before, got)
		}
		if a := b.send("GET", "/get-guarded", "", ""); a.status != 200 {
			t.Errorf("%s: GET /get-guarded (csrf: true on GET is ignored) = %d, want 200", tr.name, a.status)
		}
		if !tr.socket && b.cookie == "" {
			t.Errorf("%s: the first requests set no session cookie, want one (saveUninitialized)", tr.name)
		}
	}
	// security.csrf needs sessions, as in Sails.
	if _, err := newSecApp(t, skiff.Options{CSRF: true, Session: skiff.SessionSettings{Disabled: true}}); err == nil || !strings.Contains(err.Error(), "security.csrf needs sessions") {
		t.Errorf("New with CSRF on and sessions off = %v, want an error", err)
	}
}

func TestGrantCSRFTokenOverSocketInProduction(t *testing.T) {
	h := secApp(t, skiff.Options{Env: "production", CSRF: true, Routes: csrfRoutes[:1],
		Session: skiff.SessionSettings{Secret: "x"}, Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://a.example"}}})
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
		{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token", Options: map[string]any{"cors": map[string]any{"allowOrigins": []any{"http://example.com"}, "allowCredentials": true}}},
		{Method: "POST", Path: "/custom", Handler: ok, Options: map[string]any{"cors": map[string]any{
			"allowOrigins": "http://example.com, http://other.com", "allowRequestMethods": "POST", "allowRequestHeaders": "", "allowResponseHeaders": "x-total"}, "csrf": false}},
	}
	const allMethods = "GET,HEAD,PUT,PATCH,POST,DELETE"
	type want map[string]string
	// Unless every origin is allowed with "*", an answer depends on Origin:
	// refused origins and requests without one get Vary: Origin too.
	vary := want{"Vary": "Origin"}
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
		{"PUT", "/origin", "http://evil.com", "", 200, vary},
		{"OPTIONS", "/origin", "http://example.com", "PUT", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"OPTIONS", "/origin", "http://evil.com", "PUT", 200, vary},
		{"DELETE", "/all-methods", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin"}},
		{"OPTIONS", "/all-methods", "http://example.com", "PATCH", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}},
		{"POST", "/credentials", "http://example.com", "", 200, want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}},
		{"POST", "/credentials", "http://evil.com", "", 200, vary},
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
		{"GET", "/note", "", "", 200, vary},
	}
	check := func(t *testing.T, h *secServer, socket bool, method, path, origin, reqMethod string, status int, w want) {
		t.Helper()
		b := &browser{t: t, h: h, socket: socket, origin: origin}
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
			if strings.HasPrefix(k, "Access-Control-") {
				got[k] = strings.Join(a.header.Values(k), ", ")
			}
			if k == "Vary" {
				// Only the CORS part: a response setting the session cookie
				// also varies by Cookie.
				var vary []string
				for _, v := range a.header.Values(k) {
					for f := range strings.SplitSeq(v, ",") {
						if f = strings.TrimSpace(f); f != "Cookie" {
							vary = append(vary, f)
						}
					}
				}
				if len(vary) > 0 {
					got[k] = strings.Join(vary, ", ")
				}
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
		h := secApp(t, skiff.Options{Routes: routes, CORS: skiff.CORS{
			AllRoutes: true, AllowCredentials: true, AllowAnyOriginWithCredentialsUnsafe: true}})
		for _, c := range allRoutes {
			check(t, h, false, c.method, c.path, c.origin, c.reqMethod, c.status, c.want)
		}
	})
	t.Run("token route and custom keys", func(t *testing.T) {
		h := secApp(t, skiff.Options{Routes: routes, CSRF: true})
		cred := want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true"}
		check(t, h, false, "GET", "/csrfToken", "http://example.com", "", 200, cred)
		check(t, h, false, "GET", "/csrfToken", "http://evil.com", "", 200, vary)
		check(t, h, false, "OPTIONS", "/csrfToken", "http://example.com", "GET", 200, want{
			"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"})
		check(t, h, false, "OPTIONS", "/csrfToken", "http://evil.com", "GET", 200, vary)
		// The token the cross-origin page got is good for a write with the
		// cookie the same response set.
		web := &browser{t: t, h: h}
		a := web.send("GET", "/csrfToken", "", "", "Origin", "http://example.com")
		var tok struct {
			CSRF string `json:"_csrf"`
		}
		if json.Unmarshal([]byte(a.body), &tok) != nil || tok.CSRF == "" {
			t.Fatalf("cross-origin GET /csrfToken = %d %s", a.status, a.body)
		}
		if a := web.send("POST", "/note", "", `{"text":"x"}`, "Origin", "http://example.com", "X-CSRF-Token", tok.CSRF); a.status != 200 {
			t.Errorf("POST /note with the cross-origin token = %d %s", a.status, a.body)
		}

		// An empty allowRequestHeaders echoes the request's; a comma
		// string of origins is split; allowResponseHeaders is exposed.
		b := &browser{t: t, h: h}
		pre := b.send("OPTIONS", "/custom", "", "", "Origin", "http://other.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "x-a, x-b")
		for k, v := range map[string]string{
			"Access-Control-Allow-Origin": "http://other.com", "Access-Control-Allow-Methods": "POST",
			"Access-Control-Allow-Headers": "x-a, x-b", "Access-Control-Expose-Headers": "x-total", "Vary": "Origin",
		} {
			if got := pre.header.Get(k); got != v {
				t.Errorf("preflight of POST /custom: %s = %q, want %q", k, got, v)
			}
		}
		check(t, h, false, "POST", "/custom", "http://other.com", "", 200, want{"Access-Control-Allow-Origin": "http://other.com", "Vary": "Origin", "Access-Control-Expose-Headers": "x-total"})
		check(t, h, false, "POST", "/custom", "http://evil.com", "", 200, vary)
		check(t, h, false, "POST", "/custom", "", "", 200, vary)
	})
	t.Run("allRoutes with a list", func(t *testing.T) {
		h := secApp(t, skiff.Options{CORS: skiff.CORS{AllRoutes: true, AllowOrigins: []string{"http://example.com"}}})
		ok := want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin"}
		pre := want{"Access-Control-Allow-Origin": "http://example.com", "Vary": "Origin", "Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "content-type"}
		check(t, h, false, "GET", "/note", "http://example.com", "", 200, ok)
		check(t, h, false, "GET", "/note", "http://evil.com", "", 200, vary)
		check(t, h, false, "POST", "/note", "http://evil.com", "", 200, vary) // served: the browser does the blocking
		check(t, h, false, "OPTIONS", "/note", "http://example.com", "POST", 200, pre)
		check(t, h, false, "OPTIONS", "/note", "http://evil.com", "POST", 200, vary)
		check(t, h, false, "OPTIONS", "/nothing/here", "http://example.com", "DELETE", 200, pre)
		check(t, h, true, "GET", "/note", "http://example.com", "", 200, want{})
	})
	t.Run("refused at start", func(t *testing.T) {
		for name, o := range map[string]skiff.Options{
			"star with credentials": {CORS: skiff.CORS{AllowCredentials: true}},
			"bad global origin":     {CORS: skiff.CORS{AllowOrigins: []string{"https://a.com/"}}},
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

// sessionActions are the Go actions the policy and session tests log in
// and out with, and read the session through.
func sessionActions(t *testing.T) map[string]http.Handler {
	return map[string]http.Handler{
		"auth/login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := skiff.SessionFrom(r.Context())
			// Renewed against session fixation, as a login should: the
			// socket must follow the session to its new token.
			if err := s.RenewToken(); err != nil {
				t.Error(err)
			}
			s.Put("userId", "ann")
			w.Write([]byte("welcome"))
		}),
		"auth/logout": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := skiff.SessionFrom(r.Context()).Destroy(); err != nil {
				t.Error(err)
			}
		}),
		"auth/me": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := skiff.SessionFrom(r.Context())
			if s == nil {
				w.Write([]byte("no session"))
				return
			}
			if v := r.URL.Query().Get("theme"); v != "" {
				s.Put("theme", v)
			}
			fmt.Fprintf(w, "user=%s theme=%s", s.GetString("userId"), s.GetString("theme"))
		}),
	}
}

// TestPolicies runs the same steps over HTTP and over a socket: refusals by
// '*', '<identity>/*' and '<identity>/<action>' keys, for blueprint
// actions (REST and shortcut routes) and Go actions, before and after a
// login, with the database checked after every refusal.
func TestPolicies(t *testing.T) {
	say := func(text string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(text)) })
	}
	actions := sessionActions(t)
	actions["note/secret"] = say("secret")
	actions["report/summary"] = say("summary")
	actions["report/public"] = say("public")
	actions["report/admin"] = say("admin")
	isAdmin := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s := skiff.SessionFrom(r.Context()); s == nil || s.GetString("role") != "admin" {
				skiff.Forbidden(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	var routes []skiff.Route
	for _, a := range []string{"auth/login", "auth/logout"} {
		routes = append(routes, skiff.Route{Method: "POST", Path: "/" + strings.TrimPrefix(a, "auth/"), Action: a})
	}
	for _, a := range []string{"note/secret", "report/summary", "report/public", "report/admin"} {
		routes = append(routes, skiff.Route{Method: "GET", Path: "/" + strings.TrimPrefix(a, "note/"), Action: a})
	}
	routes = append(routes, skiff.Route{Method: "GET", Path: "/secret-handler", Handler: say("no action, no policies")})
	h := secApp(t, skiff.Options{
		Actions:  actions,
		Routes:   routes,
		Policies: map[string]skiff.Policy{"isLoggedIn": isLoggedIn, "IsAdmin": isAdmin},
		PolicyRules: skiff.PolicyRules{
			"*": {Policies: []string{"isLoggedIn"}}, "auth/*": {}, "note/find": {}, "note/findone": {}, "note/destroy": {Deny: true},
			"report/*": {Deny: true}, "report/public": {}, "report/admin": {Policies: []string{"isLoggedIn", "isadmin"}},
		},
	})
	seed := &browser{t: t, h: h}
	seed.send("POST", "/login", "", "")
	kept := createdID(t, seed.send("POST", "/note", "", `{"text":"kept"}`))

	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			b := &browser{t: t, h: h, socket: tr.socket}
			var id float64
			for _, tc := range []struct {
				method, path, body string
				want               int
			}{
				{"GET", "/note", "", 200},
				{"POST", "/note", `{"text":"x"}`, 403},
				{"GET", "/note/create?text=sneaky", "", 403}, // a shortcut route: the same note/create policies
				{"PATCH", "/note/{kept}", `{"text":"changed"}`, 403},
				{"GET", "/secret", "", 403},
				{"GET", "/secret-handler", "", 200},
				{"GET", "/report/summary", "", 403},
				{"GET", "/report/public", "", 200},
				{"POST", "/login", "", 200},
				{"POST", "/note", `{"text":"mine"}`, 200},
				{"GET", "/note/create?text=shortcut", "", 200},
				{"GET", "/note/{id}", "", 200},
				{"GET", "/secret", "", 200},
				{"GET", "/report/summary", "", 403}, // nothing is inherited from '*'
				{"GET", "/report/admin", "", 403},   // isLoggedIn passes, isAdmin refuses
				{"DELETE", "/note/{id}", "", 403},
				{"DELETE", "/note/{kept}", "", 403},
				{"PATCH", "/note/{id}", `{"text":"edited"}`, 200},
				{"POST", "/logout", "", 200},
				{"POST", "/note", `{"text":"x"}`, 403},
				{"GET", "/secret", "", 403},
			} {
				path := strings.NewReplacer("{id}", fmt.Sprint(id), "{kept}", fmt.Sprint(kept)).Replace(tc.path)
				before := h.count(t)
				a := b.send(tc.method, path, "", tc.body)
				if a.status != tc.want {
					t.Errorf("%s %s = %d %s, want %d", tc.method, path, a.status, a.body, tc.want)
				}
				if tc.want == 403 && (a.body != "Forbidden" || h.count(t) != before) {
					t.Errorf("%s %s refused with %q, notes %d -> %d; want Forbidden and nothing changed", tc.method, path, a.body, before, h.count(t))
				}
				if tc.method == "POST" && tc.path == "/note" && a.status == 200 {
					id = createdID(t, a)
				}
			}
			if got := h.noteText(t, kept); got != "kept" {
				t.Errorf("note %v is %q after the refused updates and destroys, want kept", kept, got)
			}
			if got := h.noteText(t, id); got != "edited" {
				t.Errorf("note %v is %q after the refused destroy, want edited", id, got)
			}
		})
	}

	// A socket opened with the cookie of a browser logged in over HTTP
	// passes the same policies.
	sock := &browser{t: t, h: h, cookie: seed.cookie, socket: true}
	if a := sock.send("GET", "/secret", "", ""); a.status != 200 {
		t.Errorf("socket GET /secret with the login cookie = %d, want 200", a.status)
	}
	if _, err := newSecApp(t, skiff.Options{PolicyRules: skiff.PolicyRules{"*": {Policies: []string{"isAdmin"}}}}); err == nil || !strings.Contains(err.Error(), "isAdmin") {
		t.Errorf("New with an unknown policy = %v, want an error naming it", err)
	}
}

// TestSecurityFromYAML reads the security settings an app folder gives:
// policies true and false, security.csrf, and the csrf and cors route
// options, over HTTP and sockets.
func TestSecurityFromYAML(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"models/note.yaml":     "attributes:\n  text: {type: string}\n",
		"config/policies.yaml": "policies:\n  '*': false\n  note/find: true\n  note/create: true\n  security/*: true\n",
		"config/security.yaml": "security:\n  csrf: true\n",
		"config/routes.yaml": "routes:\n  GET /csrfToken: security/grant-csrf-token\n" +
			"  POST /open: {action: note/create, csrf: false, cors: {allowOrigins: ['http://example.com']}}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	opts, err := app.Load(ctx, dir, "development", []string{"SKIFF_DATASTORES__DEFAULT__URL=" + filepath.Join(dir, "db")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		t.Fatal(err)
	}
	h := serveApp(t, app)
	web := &browser{t: t, h: h}
	tok := web.token()
	for _, tr := range transports {
		b := &browser{t: t, h: h, cookie: web.cookie, socket: tr.socket}
		before := h.count(t)
		if a := b.send("POST", "/note", "", `{"text":"a"}`); a.status != 403 || h.count(t) != before {
			t.Errorf("%s: POST /note without a token = %d (notes %d -> %d), want 403 and nothing created", tr.name, a.status, before, h.count(t))
		}
		open := b.send("POST", "/open", "", `{"text":"a"}`, "Origin", "http://example.com")
		if open.status != 200 {
			t.Errorf("%s: POST /open (csrf: false) = %d %s, want 200", tr.name, open.status, open.body)
		}
		if got := open.header.Get("Access-Control-Allow-Origin"); (got == "http://example.com") == tr.socket {
			t.Errorf("%s: POST /open Access-Control-Allow-Origin = %q (sockets get no CORS headers)", tr.name, got)
		}
		id := createdID(t, b.send("POST", "/note", "", `{"text":"a"}`, "X-CSRF-Token", tok))
		for _, tc := range []struct {
			method, path string
			want         int
		}{
			{"GET", "/note", 200},
			{"GET", fmt.Sprintf("/note/%v", id), 403},
			{"PATCH", fmt.Sprintf("/note/%v", id), 403},
			{"DELETE", fmt.Sprintf("/note/%v", id), 403},
		} {
			if a := b.send(tc.method, tc.path, "", `{"text":"b"}`, "X-CSRF-Token", tok); a.status != tc.want {
				t.Errorf("%s: %s %s = %d %s, want %d", tr.name, tc.method, tc.path, a.status, a.body, tc.want)
			}
		}
		if got := h.noteText(t, id); got != "a" {
			t.Errorf("%s: note is %q after refused writes, want a", tr.name, got)
		}
	}
}

func TestProductionRefusals(t *testing.T) {
	good := func() skiff.Options {
		return skiff.Options{Env: "production", Session: skiff.SessionSettings{Secret: "s"},
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
	noSockets := good()
	noSockets.Sockets = skiff.Sockets{Disabled: true}
	if _, err := withSafe(noSockets); err != nil {
		t.Errorf("New in production without sockets (so without origins): %v", err)
	}
	noSessions := good()
	noSessions.Session = skiff.SessionSettings{Disabled: true}
	if _, err := withSafe(noSessions); err != nil {
		t.Errorf("New in production without sessions (so without a secret): %v", err)
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
	// Any spelling of production is production (issue 19).
	for _, env := range []string{"production", "PRODUCTION", "Production"} {
		opts, err := app.Load(ctx, "testdata/apps/basic", env,
			[]string{"SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/p.db"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = skiff.New(ctx, *opts)
		for _, d := range opts.Datastores {
			d.Close()
		}
		for _, want := range []string{"refusing to start in production", "session.secret", "sockets.onlyAllowOrigins", "models.migrate: safe"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("New(basic app in %s) = %v, want it to mention %q", env, err, want)
			}
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
			Session: skiff.SessionSettings{Secret: "s"}, Sockets: skiff.Sockets{OnlyAllowOrigins: []string{"https://a.example"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		b := &browser{t: t, h: serveApp(t, app)}
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
		{"off", skiff.Options{Session: skiff.SessionSettings{Disabled: true}}, false},
		{"defaults", skiff.Options{}, false},
		{"csrf+cors+cookie", skiff.Options{CSRF: true, CORS: skiff.CORS{AllRoutes: true}, Routes: csrfRoutes[:1]}, true},
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

// TestServerLimits checks the limits Serve and New put on clients: the
// body limit (blueprint and Go actions alike), the header limit, the
// header-read and idle timeouts, and the cap on sockets per IP.
func TestServerLimits(t *testing.T) {
	h := secApp(t, skiff.Options{
		BodyLimit: 1024,
		Actions: map[string]http.Handler{"upload/size": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, err := io.Copy(io.Discard, r.Body)
			if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
				http.Error(w, "too large", http.StatusRequestEntityTooLarge)
				return
			}
			fmt.Fprint(w, n)
		})},
		Routes:  []skiff.Route{{Method: "POST", Path: "/size", Action: "upload/size"}},
		Server:  skiff.ServerSettings{MaxHeaderBytes: 4 << 10, ReadHeaderTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond},
		Sockets: skiff.Sockets{MaxConnectionsPerIP: 2},
	})
	b := &browser{t: t, h: h}
	if a := b.send("POST", "/size", "text/plain", strings.Repeat("x", 1000)); a.status != 200 || a.body != "1000" {
		t.Errorf("POST /size with 1000 bytes = %d %q, want 200 1000", a.status, a.body)
	}
	if a := b.send("POST", "/size", "text/plain", strings.Repeat("x", 2000)); a.status != 413 {
		t.Errorf("a Go action reading 2000 bytes past a 1024-byte limit = %d %q, want 413", a.status, a.body)
	}
	if a := b.send("POST", "/note", "", `{"text":"`+strings.Repeat("x", 2000)+`"}`); a.status != 413 || h.count(t) != 0 {
		t.Errorf("POST /note with 2000 bytes = %d %q (notes %d), want 413 and nothing created", a.status, a.body, h.count(t))
	}
	if a := b.send("GET", "/note", "", "", "X-Big", strings.Repeat("x", 16<<10)); a.status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("GET /note with 16 KiB of headers past a 4 KiB limit = %d, want 431", a.status)
	}

	// A connection that never finishes its headers, and a keep-alive
	// connection left idle, are closed by the server (the deadline only
	// keeps a broken server from hanging the test).
	addr := strings.TrimPrefix(h.url, "http://")
	for name, send := range map[string]string{
		"unfinished headers":    "GET /note HTTP/1.1\r\nHost: x\r\n",
		"idle after a response": "GET /note HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(conn, send); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(conn)
		if err != nil {
			t.Errorf("%s: the server did not close the connection: %v", name, err)
		}
		if wantResponse := strings.HasSuffix(send, "\r\n\r\n"); wantResponse != strings.HasPrefix(string(got), "HTTP/1.1 200") {
			t.Errorf("%s: read %q before the server closed", name, got)
		}
		conn.Close()
	}

	// sockets.maxConnectionsPerIP: the third socket from this address is
	// refused at the handshake.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 3 {
		c, err := sockettest.Dial(ctx, h.url, sockettest.Options{})
		if i < 2 {
			if err != nil {
				t.Fatalf("socket %d: %v", i+1, err)
			}
			t.Cleanup(func() { c.Close() })
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("third socket from one IP with a cap of 2: %v, want a 403", err)
		}
	}
}
