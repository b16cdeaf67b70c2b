package skiff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/sockettest"
	"github.com/skiffhq/skiff/skifftest"
)

// liveApp is an app served over HTTP with its sockets, for realtime tests.
type liveApp struct {
	*skiff.App
	srv *httptest.Server
}

func startLive(t *testing.T, dir string, env map[string]string) *liveApp {
	t.Helper()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	app, srv := skifftest.Serve(t, *skifftest.Load(t, dir, "development", environ...))
	return &liveApp{App: app, srv: srv}
}

func (a *liveApp) dial(t *testing.T, eio int) *sockettest.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sockettest.Dial(ctx, a.srv.URL, sockettest.Options{EIO: eio})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// request sends a virtual request and fails the test unless it answers want.
func request(t *testing.T, c *sockettest.Client, want int, method, path string, data any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	jwr, err := c.Request(ctx, method, path, data)
	if err != nil {
		t.Fatalf("%s %s over a socket: %v", method, path, err)
	}
	if jwr.StatusCode != want {
		t.Fatalf("%s %s over a socket: status %d, want %d: %s", method, path, jwr.StatusCode, want, jwr.Body)
	}
	var v any
	if err := json.Unmarshal(jwr.Body, &v); err != nil {
		t.Fatalf("%s %s over a socket: body %s is not JSON: %v", method, path, jwr.Body, err)
	}
	body, _ := v.(map[string]any)
	return body
}

// events returns what c received since the last call, rendered by
// canonical: the app sends c a sentinel through its own room and
// everything queued before it arrives first.
func (a *liveApp) events(t *testing.T, c *sockettest.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Realtime().Broadcast(ctx, []string{c.ID}, "sentinel", true, ""); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for events: %v (got %q)", err, got)
		}
		if ev.Name == "sentinel" {
			return got
		}
		got = append(got, ev.Name+" "+canonical(t, ev.Data))
	}
}

// canonical re-encodes JSON with sorted keys and without timestamps.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("event data %s: %v", raw, err)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "createdAt")
			delete(x, "updatedAt")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("event data %s: %v", raw, err)
	}
	return string(b)
}

func wantEvents(t *testing.T, who string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s received:\n  %s\nwant:\n  %s", who, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestRealtimeNotifications walks the seed's emission table with a
// watcher W, a socket requester S and plain HTTP requests.
func TestRealtimeNotifications(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			testRealtimeNotifications(t, startLive(t, "testdata/apps/basic", b.env(t)))
		})
	}
}

// rig is where the realtime walk runs: one app, or several instances of
// one app linked by a bus.
type rig interface {
	// server is where plain HTTP requests go.
	server() *httptest.Server
	// dialTo connects a socket to instance i.
	dialTo(t *testing.T, i, eio int) *sockettest.Client
	// events returns what c received since the last call.
	events(t *testing.T, c *sockettest.Client) []string
	// members returns the sockets in room, on every instance.
	members(room string) []string
}

func (a *liveApp) server() *httptest.Server { return a.srv }
func (a *liveApp) dialTo(t *testing.T, _, eio int) *sockettest.Client {
	return registered(t, a.dial(t, eio))
}

// registered returns c once the app has registered it with its hub: the
// connect packet reaches the client just before the server registers the
// socket, and a request is answered only after.
func registered(t *testing.T, c *sockettest.Client) *sockettest.Client {
	t.Helper()
	request(t, c, 200, "GET", "/__getcookie", nil)
	return c
}
func (a *liveApp) members(room string) []string { return a.Realtime().Members(room) }

func testRealtimeNotifications(t *testing.T, a rig) {
	srv := a.server()
	vars := ids{}
	run(t, srv, vars, []step{
		{method: "POST", path: "/user", body: `{"name":"ann","email":"ann@x.io","password":"secret"}`, status: 200, save: "u1"},
		{method: "POST", path: "/user", body: `{"name":"bob","email":"bob@x.io"}`, status: 200, save: "u2"},
		{method: "POST", path: "/pet", body: `{"name":"rex","owner":{u1}}`, status: 200, save: "p1"},
		{method: "POST", path: "/pet", body: `{"name":"fido","owner":{u2}}`, status: 200, save: "p2"},
		{method: "POST", path: "/pet", body: `{"name":"tom"}`, status: 200, save: "p3"},
		{method: "POST", path: "/tag", body: `{"label":"red"}`, status: 200, save: "t1"},
	})
	v := func(s string) string {
		for name, id := range vars {
			s = strings.ReplaceAll(s, "{"+name+"}", id)
		}
		return s
	}
	w := a.dialTo(t, 0, 4) // a watcher, as socket.io-client 4 connects
	s := a.dialTo(t, 1, 3) // a requester, as sails.io.js connects
	// With several instances, what the creates above sent crosses to W's
	// instance asynchronously: let it arrive before W watches anything.
	wantEvents(t, "W on connecting", a.events(t, w))

	// W watches users (and, since pets were populated, pets) and is
	// subscribed to every user and pet it read.
	found := request(t, w, 200, "GET", "/user", nil)
	_ = found
	wantEvents(t, "W after find", a.events(t, w))

	// Create over a socket: created to the watchers, not to the requester.
	created := request(t, s, 200, "POST", "/user", map[string]any{"name": "cy", "email": "cy@x.io", "password": "pw"})
	vars["u3"] = fmt.Sprint(created["id"])
	wantEvents(t, "W after S creates a user", a.events(t, w),
		v(`user {"data":{"active":true,"age":null,"email":"cy@x.io","id":{u3},"meta":null,"name":"cy"},"id":{u3},"verb":"created"}`))
	wantEvents(t, "S after its own create", a.events(t, s))

	// W was introduced to the new record: an HTTP update reaches W and S
	// (S is subscribed to what it created); no password leaks. previous is
	// the record as it was, populated.
	run(t, srv, vars, []step{{method: "PATCH", path: "/user/{u3}", body: `{"age":5}`, status: 200}})
	upd := v(`user {"data":{"age":5,"id":{u3}},"id":{u3},"previous":{"active":true,"age":null,"email":"cy@x.io","id":{u3},"meta":null,"name":"cy","pets":[]},"verb":"updated"}`)
	wantEvents(t, "W after an HTTP update", a.events(t, w), upd)
	wantEvents(t, "S after an HTTP update", a.events(t, s), upd)

	// A singular key on create: the parent's subscribers get addedTo, the
	// pet watchers created.
	p4 := request(t, s, 200, "POST", "/pet", map[string]any{"name": "max", "owner": vars["u1"]})
	vars["p4"] = fmt.Sprint(p4["id"])
	wantEvents(t, "W after S creates a pet", a.events(t, w),
		v(`user {"addedIds":[{p4}],"attribute":"pets","id":{u1},"verb":"addedTo"}`),
		v(`pet {"data":{"id":{p4},"name":"max","owner":{u1}},"id":{p4},"verb":"created"}`))
	wantEvents(t, "S after its own create", a.events(t, s))

	// Replace: one addedTo and one removedFrom for the parent, updated for
	// each child W is subscribed to (p3 was created before W watched), and
	// removedFrom for the parent p2 was taken from.
	request(t, s, 200, "PUT", v("/user/{u1}/pets"), []any{vars["p2"], vars["p3"]})
	wantEvents(t, "W after S replaces", a.events(t, w),
		v(`user {"addedIds":[{p2},{p3}],"attribute":"pets","id":{u1},"verb":"addedTo"}`),
		v(`user {"attribute":"pets","id":{u1},"removedIds":[{p1},{p4}],"verb":"removedFrom"}`),
		v(`pet {"data":{"owner":{u1}},"id":{p2},"verb":"updated"}`),
		v(`pet {"data":{"owner":null},"id":{p1},"verb":"updated"}`),
		v(`pet {"data":{"owner":null},"id":{p4},"verb":"updated"}`),
		v(`user {"attribute":"pets","id":{u2},"removedIds":[{p2}],"verb":"removedFrom"}`))
	wantEvents(t, "S after its own replace", a.events(t, s))

	// S is now subscribed to the parent and the children it linked: an HTTP
	// remove reaches it on both sides; W only on the parent.
	run(t, srv, vars, []step{{method: "DELETE", path: "/user/{u1}/pets/{p3}", status: 200}})
	wantEvents(t, "W after an HTTP remove", a.events(t, w),
		v(`user {"attribute":"pets","id":{u1},"removedIds":[{p3}],"verb":"removedFrom"}`))
	wantEvents(t, "S after an HTTP remove", a.events(t, s),
		v(`user {"attribute":"pets","id":{u1},"removedIds":[{p3}],"verb":"removedFrom"}`),
		v(`pet {"data":{"owner":null},"id":{p3},"verb":"updated"}`))

	// Nothing changed, nothing sent.
	request(t, s, 200, "DELETE", v("/user/{u1}/pets/{p3}"), nil)
	run(t, srv, vars, []step{
		{method: "DELETE", path: "/user/{u1}/pets/{p3}", status: 200},
		{method: "PUT", path: "/user/{u1}/pets/{p2}", status: 200},
	})
	wantEvents(t, "W after removes and adds that change nothing", a.events(t, w))
	wantEvents(t, "S after removes and adds that change nothing", a.events(t, s))

	// Many-to-many: both sides get addedTo.
	request(t, w, 200, "GET", v("/tag/{t1}"), nil)
	request(t, s, 200, "PUT", v("/pet/{p2}/tags/{t1}"), nil)
	wantEvents(t, "W after S adds a tag", a.events(t, w),
		v(`pet {"addedIds":[{t1}],"attribute":"tags","id":{p2},"verb":"addedTo"}`),
		v(`tag {"addedIds":[{p2}],"attribute":"pets","id":{t1},"verb":"addedTo"}`))

	// Destroy: destroyed to the record's room, which is then emptied, and
	// removedFrom to the tags the pet was in.
	request(t, s, 200, "DELETE", v("/pet/{p2}"), nil)
	wantEvents(t, "W after S destroys a pet", a.events(t, w),
		v(`pet {"id":{p2},"previous":{"id":{p2},"name":"fido","owner":{"active":true,"age":null,"email":"ann@x.io","id":{u1},"meta":null,"name":"ann"},"tags":[{"id":{t1},"label":"red"}]},"verb":"destroyed"}`),
		v(`user {"attribute":"pets","id":{u1},"removedIds":[{p2}],"verb":"removedFrom"}`),
		v(`tag {"attribute":"pets","id":{t1},"removedIds":[{p2}],"verb":"removedFrom"}`))
	wantEvents(t, "S after its own destroy", a.events(t, s))
	for _, room := range []string{"sails_model_pet_" + vars["p2"] + ":pet"} {
		if m := a.members(room); len(m) != 0 {
			t.Errorf("room %s still has %v", room, m)
		}
	}
}

func TestSocketHandshakeOrigins(t *testing.T) {
	ctx := context.Background()
	opts, err := app.Load(ctx, "testdata/apps/basic", "development",
		[]string{"SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/db"})
	if err != nil {
		t.Fatal(err)
	}
	opts.Sockets.OnlyAllowOrigins = []string{"https://app.example"}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	defer app.Close()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for origin, ok := range map[string]bool{"https://app.example": true, "https://evil.example": false, "": false} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		c, err := sockettest.Dial(dctx, srv.URL, sockettest.Options{Header: h})
		if ok != (err == nil) {
			t.Errorf("origin %q: admitted %v (%v)", origin, err == nil, err)
		}
		if err == nil {
			c.Close()
		} else if !strings.Contains(err.Error(), "403") {
			t.Errorf("origin %q refused without a 403: %v", origin, err)
		}
	}
}

func TestGetCookieRoute(t *testing.T) {
	srv := startApp(t, "testdata/apps/basic", "development", map[string]string{
		"SKIFF_DATASTORES__DEFAULT__URL": t.TempDir() + "/db"})
	run(t, srv, ids{}, []step{{method: "GET", path: "/__getcookie", status: 200, check: func(t *testing.T, _ any, raw string) {
		if raw != "_sailsIoJSConnect();" {
			t.Errorf("body %q", raw)
		}
	}}})
}

// TestBlueprintRealtimeOptions: blueprints.deepWatch and
// blueprints.notificationFormat come from the config (and its
// environment variables), and New refuses a format it does not know.
func TestBlueprintRealtimeOptions(t *testing.T) {
	ctx := context.Background()
	load := func(env ...string) *skiff.Options {
		return skifftest.Load(t, "testdata/apps/basic", "", append(env, "SKIFF_DATASTORES__DEFAULT__URL="+t.TempDir()+"/db")...)
	}
	if bp := load().Blueprints; !bp.DeepWatch || bp.NotificationFormat != blueprint.FormatSeed {
		t.Errorf("defaults: DeepWatch %v, NotificationFormat %q; want true, seed", bp.DeepWatch, bp.NotificationFormat)
	}
	if bp := skiff.DefaultBlueprints("production"); !bp.DeepWatch || bp.NotificationFormat != "" {
		t.Errorf("DefaultBlueprints: DeepWatch %v, NotificationFormat %q; want true, \"\"", bp.DeepWatch, bp.NotificationFormat)
	}
	bp := load("SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT=sails", "SKIFF_BLUEPRINTS__DEEPWATCH=false").Blueprints
	if bp.DeepWatch || bp.NotificationFormat != blueprint.FormatSails {
		t.Errorf("from the environment: DeepWatch %v, NotificationFormat %q; want false, sails", bp.DeepWatch, bp.NotificationFormat)
	}
	if _, err := app.Load(ctx, "testdata/apps/basic", "", []string{"SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT=sails1.5"}); err == nil ||
		!strings.Contains(err.Error(), "blueprints.notificationFormat must be seed or sails") {
		t.Errorf("app.Load with notificationFormat sails1.5: error %v, want one naming the setting and its values", err)
	}
	opts := load()
	opts.Blueprints.NotificationFormat = "Sails"
	if app, err := skiff.New(ctx, *opts); err == nil || !strings.Contains(err.Error(), "blueprints.notificationFormat") {
		if app != nil {
			app.Close()
		}
		t.Errorf("New with NotificationFormat %q: error %v, want one naming the setting", "Sails", err)
	}
}

// TestDeepWatchRouteOption: a route's deepWatch option overrides the
// setting, as autoWatch does; the setting off leaves only the records read.
func TestDeepWatchRouteOption(t *testing.T) {
	for _, deep := range []bool{true, false} {
		t.Run(fmt.Sprint("deepWatch=", deep), func(t *testing.T) {
			opts := skifftest.Load(t, "testdata/apps/basic", "",
				"SKIFF_DATASTORES__DEFAULT__URL="+t.TempDir()+"/db", fmt.Sprint("SKIFF_BLUEPRINTS__DEEPWATCH=", deep))
			opts.Routes = append(opts.Routes,
				skiff.Route{Method: "GET", Path: "/shallow/:id", Action: "user/findOne", Options: map[string]any{"deepWatch": false}},
				skiff.Route{Method: "GET", Path: "/deep/:id", Action: "user/findOne", Options: map[string]any{"deepWatch": true}})
			app, srv := skifftest.Serve(t, *opts)
			a := &liveApp{App: app, srv: srv}
			u := request(t, a.dial(t, 4), 200, "POST", "/user", map[string]any{"name": "ann", "email": "ann@x.io"})
			id := fmt.Sprint(u["id"])
			user := "sails_model_user_" + id + ":user"
			for _, tt := range []struct {
				path string
				want []string
			}{
				{"/user/" + id + "?populate=false", map[bool][]string{true: {"sails_model_create_pet", user}, false: {user}}[deep]},
				{"/shallow/" + id, []string{user}},
				{"/deep/" + id, []string{"sails_model_create_pet", user}},
			} {
				c := a.dial(t, 3)
				request(t, c, 200, "GET", tt.path, nil)
				got := slices.DeleteFunc(a.Realtime().Rooms(c.ID), func(r string) bool { return r == c.ID })
				slices.Sort(got)
				if !slices.Equal(got, tt.want) {
					t.Errorf("GET %s: rooms %v, want %v", tt.path, got, tt.want)
				}
			}
		})
	}
}
