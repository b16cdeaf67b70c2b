package virtualreq_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/internal/sockettest"
	"github.com/skiffhq/skiff/internal/virtualreq"
	"github.com/skiffhq/skiff/realtime"
)

// echo answers what it saw of the request.
func echo(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/panic":
		panic("boom")
	case "/missing":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "Not Found")
		return
	case "/login":
		http.SetCookie(w, &http.Cookie{Name: "sails.sid", Value: "s%3Aabc", Path: "/", HttpOnly: true})
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Seen", "yes")
	json.NewEncoder(w).Encode(map[string]any{
		"method": r.Method, "uri": r.RequestURI, "body": json.RawMessage(body),
		"cookie": r.Header.Get("Cookie"), "origin": r.Header.Get("Origin"), "custom": r.Header.Get("X-Custom"),
		"socket": realtime.SocketID(r.Context()), "type": r.Header.Get("Content-Type"),
	})
}

func serve(t *testing.T) string {
	t.Helper()
	vr := virtualreq.New(http.HandlerFunc(echo), nil)
	sio := socketio.NewServer(socketio.Options{
		OnConnect: vr.Connect, OnEvent: vr.Serve, OnDisconnect: func(s *socketio.Socket, _ string) { vr.Disconnect(s) },
	})
	srv := httptest.NewServer(sio)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sio.Close(ctx)
		vr.Wait(ctx)
		srv.Close()
	})
	return srv.URL
}

func dial(t *testing.T, url string, o sockettest.Options) *sockettest.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sockettest.Dial(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	return m
}

func TestRequestBecomesHTTP(t *testing.T) {
	url := serve(t)
	h := http.Header{"Origin": {"https://app.example"}}
	for _, eio := range []int{3, 4} {
		c := dial(t, url, sockettest.Options{EIO: eio, Header: h})
		raw, err := c.Ack(ctx(t), "post", map[string]any{
			"method": "post", "url": "/user?x=1 ", "data": map[string]any{"name": "joe"}, "params": map[string]any{"name": "x", "age": 3},
			"headers": map[string]any{"x-custom": 5, "origin": "https://evil.example", "nothing": nil},
		})
		if err != nil {
			t.Fatal(err)
		}
		var jwr struct {
			Body       map[string]any    `json:"body"`
			Headers    map[string]string `json:"headers"`
			StatusCode int               `json:"statusCode"`
		}
		if err := json.Unmarshal(raw, &jwr); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if jwr.StatusCode != 200 || jwr.Headers["x-seen"] != "yes" || jwr.Headers["content-type"] != "" {
			t.Errorf("EIO=%d: JWR %s", eio, raw)
		}
		b := jwr.Body
		body, _ := json.Marshal(b["body"])
		if b["method"] != "POST" || b["uri"] != "/user?x=1" || string(body) != `{"age":3,"name":"joe"}` ||
			b["custom"] != "5" || b["origin"] != "https://app.example" || b["socket"] != c.ID || b["type"] != "application/json" {
			t.Errorf("EIO=%d: the handler saw %v", eio, b)
		}
	}
}

func TestResponses(t *testing.T) {
	c := dial(t, serve(t), sockettest.Options{})
	jwr, err := c.Request(ctx(t), "get", "/missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	if jwr.StatusCode != 404 || string(jwr.Body) != `"Not Found"` {
		t.Errorf("404: %+v %s", jwr, jwr.Body)
	}
	// A replace body: an array stays an array.
	jwr, _ = c.Request(ctx(t), "put", "/user/1/pets", []int{1, 2})
	if b := decode(t, jwr.Body); jwr.StatusCode != 200 || len(b["body"].([]any)) != 2 {
		t.Errorf("array body: %s", jwr.Body)
	}
	// A panic answers 500 and the socket lives on.
	jwr, err = c.Request(ctx(t), "get", "/panic", nil)
	if err != nil || jwr.StatusCode != 500 {
		t.Fatalf("panic: %+v, %v", jwr, err)
	}
	if jwr, err = c.Request(ctx(t), "get", "/after", nil); err != nil || jwr.StatusCode != 200 {
		t.Fatalf("after a panic: %+v, %v", jwr, err)
	}
}

func TestParseErrors(t *testing.T) {
	url := serve(t)
	c := dial(t, url, sockettest.Options{})
	for name, env := range map[string]any{
		"no url":     map[string]any{"method": "get", "data": map[string]any{}},
		"empty url":  map[string]any{"method": "get", "url": " "},
		"not a map":  "hello",
		"bad url":    map[string]any{"url": "http://other.example/x"},
		"net path":   map[string]any{"url": "//evil.example/pet/1"},
		"net path 3": map[string]any{"url": "///evil.example/pet/1"},
	} {
		raw, err := c.Ack(ctx(t), "get", env)
		if err != nil {
			t.Fatal(err)
		}
		var jwr sockettest.JWR
		json.Unmarshal(raw, &jwr)
		if jwr.StatusCode != 400 || decode(t, jwr.Body)["code"] != "SAILS:HOOK:SOCKETS:PARSE_VIRTUAL_REQ" {
			t.Errorf("%s: %s", name, raw)
		}
	}
	// Without the sails.io.js SDK version, Sails refuses requests.
	old := dial(t, url, sockettest.Options{NoSDK: true})
	jwr, err := old.Request(ctx(t), "get", "/x", nil)
	if err != nil || jwr.StatusCode != 400 || !strings.Contains(string(jwr.Body), "0.11.0") {
		t.Errorf("no SDK version: %+v %s, %v", jwr, jwr.Body, err)
	}
}

func TestCookieSetOverTheSocketSticks(t *testing.T) {
	url := serve(t)
	c := dial(t, url, sockettest.Options{})
	jwr, err := c.Request(ctx(t), "post", "/login", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, leaked := jwr.Headers["set-cookie"]; leaked {
		t.Errorf("set-cookie reached the client: %v", jwr.Headers)
	}
	jwr, _ = c.Request(ctx(t), "get", "/me", nil)
	if got := decode(t, jwr.Body)["cookie"]; got != "sails.sid=s%3Aabc" {
		t.Errorf("later request carried cookie %q", got)
	}
	// A response's cookie replaces the handshake's of the same name and
	// keeps the others (a session renewed at login stays with the socket).
	h := http.Header{"Cookie": {"theme=dark; sails.sid=mine"}}
	d := dial(t, url, sockettest.Options{Header: h})
	jwr, _ = d.Request(ctx(t), "get", "/me", nil)
	if got := decode(t, jwr.Body)["cookie"]; got != "theme=dark; sails.sid=mine" {
		t.Errorf("first request carried cookie %q, want the handshake's", got)
	}
	d.Request(ctx(t), "post", "/login", nil)
	jwr, _ = d.Request(ctx(t), "get", "/me", nil)
	if got := decode(t, jwr.Body)["cookie"]; got != "theme=dark; sails.sid=s%3Aabc" {
		t.Errorf("after login the socket carried cookie %q, want the new session cookie", got)
	}
}

func TestNosessionInTheHandshakeQuery(t *testing.T) {
	vr := virtualreq.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(r.Header.Get("nosession"))
	}), nil)
	sio := socketio.NewServer(socketio.Options{
		OnConnect: vr.Connect, OnEvent: vr.Serve, OnDisconnect: func(s *socketio.Socket, _ string) { vr.Disconnect(s) },
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.RawQuery += "&nosession=true" // as sails.io.js sends io.sails.query
		sio.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { sio.Close(context.Background()) })
	c := dial(t, srv.URL, sockettest.Options{})
	jwr, err := c.Request(ctx(t), "get", "/x", nil)
	if err != nil || string(jwr.Body) != `"true"` {
		t.Errorf("nosession in the handshake query: request saw %s, %v; want \"true\"", jwr.Body, err)
	}
}

func TestSetCookies(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		set    []string
		want   string
	}{
		{"", nil, ""},
		{"", []string{"sails.sid=s%3Aa.b; Path=/; HttpOnly"}, "sails.sid=s%3Aa.b"},
		{"a=1; sails.sid=old", []string{"sails.sid=new; Path=/"}, "a=1; sails.sid=new"},
		{"a=1;sails.sid=old ;b=2", []string{"sails.sid=; Path=/; Max-Age=0"}, "a=1; b=2"},
		{"sails.sid=old", []string{"sails.sid=x; Expires=Thu, 01 Jan 1970 00:00:01 GMT"}, ""},
		{"sails.sid=old", []string{"sails.sid=x; Expires=Fri, 01 Jan 2027 00:00:00 GMT"}, "sails.sid=x"},
		{"a=1", []string{"not a cookie", "=x", "b=2"}, "a=1; b=2"},
		{"a=1", []string{`q="v w"`}, `a=1; q="v w"`},
		{"odd", []string{"a=2"}, "odd; a=2"},
	} {
		if got := virtualreq.SetCookies(tc.header, tc.set, now); got != tc.want {
			t.Errorf("SetCookies(%q, %q) = %q, want %q", tc.header, tc.set, got, tc.want)
		}
	}
}

// FuzzSetCookies checks that applying any Set-Cookie to any Cookie header
// never panics, never grows a cookie it was not given, and that the cookie
// set is then the one carried.
func FuzzSetCookies(f *testing.F) {
	f.Add("a=1; sails.sid=old", "sails.sid=s%3Anew.sig; Path=/; HttpOnly")
	f.Add("", "sails.sid=; Max-Age=0")
	f.Add(";;=;", "x=\"y\"; Expires=Thu, 01 Jan 1970 00:00:01 GMT")
	f.Fuzz(func(t *testing.T, header, setCookie string) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		got := virtualreq.SetCookies(header, []string{setCookie}, now)
		c, err := http.ParseSetCookie(setCookie)
		if err != nil {
			return
		}
		live := c.MaxAge >= 0 && (c.Expires.IsZero() || !c.Expires.Before(now))
		v := c.Value
		if c.Quoted {
			v = `"` + v + `"`
		}
		has := false
		for p := range strings.SplitSeq(got, "; ") {
			if name, val, _ := strings.Cut(p, "="); name == c.Name {
				if has || val != v {
					t.Errorf("SetCookies(%q, %q) = %q: cookie %s twice or with another value", header, setCookie, got, c.Name)
				}
				has = true
			}
		}
		if has != live {
			t.Errorf("SetCookies(%q, %q) = %q: carries %s = %v, want %v", header, setCookie, got, c.Name, has, live)
		}
	})
}

func TestHandshakeCookie(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	vr := virtualreq.New(http.HandlerFunc(echo), nil, virtualreq.HandshakeCookie(func(hs *http.Request) string {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, hs.Header.Get("Cookie"))
		return "a=1; sails.sid=fresh"
	}))
	sio := socketio.NewServer(socketio.Options{
		OnConnect: vr.Connect, OnEvent: vr.Serve, OnDisconnect: func(s *socketio.Socket, _ string) { vr.Disconnect(s) },
	})
	srv := httptest.NewServer(sio)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { sio.Close(context.Background()) })
	c := dial(t, srv.URL, sockettest.Options{Header: http.Header{"Cookie": {"a=1"}}})
	for range 2 {
		jwr, err := c.Request(ctx(t), "get", "/me", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := decode(t, jwr.Body)["cookie"]; got != "a=1; sails.sid=fresh" {
			t.Errorf("request carried cookie %q, want the one HandshakeCookie gave", got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "a=1" {
		t.Errorf("HandshakeCookie saw %q, want the handshake's cookie once", seen)
	}
}
