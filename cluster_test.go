package skiff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/internal/sockettest"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/realtime"
	"github.com/skiffhq/skiff/skifftest"
)

// buses are the cross-instance buses, each on a channel or subject of the
// test's own.
var buses = []struct {
	name string
	env  func(t *testing.T) map[string]string
}{
	{"redis", func(t *testing.T) map[string]string {
		return map[string]string{"SKIFF_SOCKETS__ADAPTER": "redis",
			"SKIFF_SOCKETS__URL": "redis://" + testenv.Redis(t), "SKIFF_SOCKETS__KEY": testenv.Prefix()}
	}},
	{"nats", func(t *testing.T) map[string]string {
		return map[string]string{"SKIFF_SOCKETS__ADAPTER": "nats",
			"SKIFF_SOCKETS__URL": testenv.NATS(t), "SKIFF_SOCKETS__KEY": testenv.Prefix()}
	}},
}

// cluster is several instances of the basic app on one database, linked
// by a bus. Plain HTTP requests go to the last one.
type cluster struct{ apps []*liveApp }

func startCluster(t *testing.T, n int, env map[string]string, logs ...*syncBuffer) *cluster {
	t.Helper()
	c := &cluster{}
	for i := range n {
		log := &syncBuffer{}
		if i < len(logs) {
			log = logs[i]
		}
		c.apps = append(c.apps, startInstance(t, env, log))
	}
	c.waitReady(t)
	return c
}

// startInstance serves the basic app with env, logging to log (shown
// when the test fails).
func startInstance(t *testing.T, env map[string]string, log *syncBuffer) *liveApp {
	t.Helper()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	opts := skifftest.Load(t, "testdata/apps/basic", "development", environ...)
	opts.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("an instance's log:\n%s", log.String())
		}
	})
	app, srv := skifftest.Serve(t, *opts)
	return &liveApp{App: app, srv: srv}
}

// waitReady waits until every instance receives what the others publish.
func (c *cluster) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for i, a := range c.apps {
		for !a.Realtime().BusReady() {
			if time.Now().After(deadline) {
				t.Fatalf("instance %d: the bus never became ready", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (c *cluster) server() *httptest.Server { return c.apps[len(c.apps)-1].srv }

func (c *cluster) dialTo(t *testing.T, i, eio int) *sockettest.Client {
	return registered(t, c.apps[i%len(c.apps)].dial(t, eio))
}

// events sends a sentinel to cl from every instance: each instance's
// messages cross in order, so once every sentinel is in, so is everything
// sent before.
func (c *cluster) events(t *testing.T, cl *sockettest.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, a := range c.apps {
		if err := a.Realtime().Broadcast(ctx, []string{cl.ID}, "sentinel", i, ""); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	var from []string
	for len(from) < len(c.apps) {
		ev, err := cl.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for events: %v (got %q, sentinels from instances %v of %d)", err, got, from, len(c.apps))
		}
		if ev.Name == "sentinel" {
			from = append(from, string(ev.Data))
			continue
		}
		got = append(got, ev.Name+" "+canonical(t, ev.Data))
	}
	return got
}

func (c *cluster) members(room string) []string {
	var out []string
	for _, a := range c.apps {
		out = append(out, a.Realtime().Members(room)...)
	}
	return out
}

// TestClusterNotifications walks the emission table with the watcher, the
// socket requester and the HTTP requests on three instances: every
// notification reaches its sockets exactly once, the requester is left
// out wherever it is, and a destroyed record's room is emptied everywhere.
func TestClusterNotifications(t *testing.T) {
	for _, bus := range buses {
		for _, b := range backends {
			t.Run(bus.name+"/"+b.name, func(t *testing.T) {
				env := b.env(t)
				for k, v := range bus.env(t) {
					env[k] = v
				}
				testRealtimeNotifications(t, startCluster(t, 3, env))
			})
		}
	}
}

// TestClusterGoAPI: Publish, Broadcast and Blast from Go on one instance
// reach the sockets of the others once each, minus the omitted socket.
func TestClusterGoAPI(t *testing.T) {
	for _, bus := range buses {
		t.Run(bus.name, func(t *testing.T) {
			env := bus.env(t)
			env["SKIFF_DATASTORES__DEFAULT__URL"] = t.TempDir() + "/db"
			c := startCluster(t, 3, env)
			a, b := c.dialTo(t, 0, 4), c.dialTo(t, 1, 3)
			u := request(t, a, 200, "POST", "/user", map[string]any{"name": "ann", "email": "ann@x.io"})
			id := u["id"]
			request(t, b, 200, "GET", fmt.Sprint("/user/", id), nil)
			for _, cl := range []*sockettest.Client{a, b} {
				c.events(t, cl) // what the create and the read sent
				if err := c.apps[0].Realtime().Join(a.ID, "lobby"); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.apps[1].Realtime().Join(b.ID, "lobby", "hall"); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			rt := c.apps[2].Realtime()
			if err := rt.Publish(ctx, "user", []any{id, id}, map[string]any{"hi": 1}, ""); err != nil {
				t.Fatal(err)
			}
			if err := rt.Broadcast(ctx, []string{"lobby", "hall"}, "news", "x", ""); err != nil {
				t.Fatal(err)
			}
			if err := rt.Blast(ctx, "all", 1, a.ID); err != nil {
				t.Fatal(err)
			}
			// Publish goes once per record listed, as in Sails; Broadcast
			// once per socket.
			wantEvents(t, "A", c.events(t, a), `user {"hi":1}`, `user {"hi":1}`, `news "x"`)
			wantEvents(t, "B", c.events(t, b), `user {"hi":1}`, `user {"hi":1}`, `news "x"`, `all 1`)
			// Room operations cross too: every member of lobby, wherever it
			// is, joins vip.
			c.apps[2].Realtime().AddMembers("lobby", "vip")
			if err := rt.Broadcast(ctx, []string{"vip"}, "vip", true, b.ID); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, "A in vip", c.events(t, a), `vip true`)
			wantEvents(t, "B in vip, omitted", c.events(t, b))
			// Join and Leave by the id of a socket held elsewhere.
			if err := rt.Join(a.ID, "remote"); err != nil {
				t.Fatal(err)
			}
			if err := rt.Broadcast(ctx, []string{"remote"}, "remote", 1, ""); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, "A joined from C", c.events(t, a), `remote 1`)
			if err := rt.Leave(a.ID, "remote"); err != nil {
				t.Fatal(err)
			}
			if err := rt.Broadcast(ctx, []string{"remote"}, "remote", 2, ""); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, "A after leaving from C", c.events(t, a))
		})
	}
}

// server is a private bus server the test stops and starts again.
type server struct {
	t    *testing.T
	args []string
	port string
	cmd  *exec.Cmd
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func (s *server) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", s.args[0], err)
	}
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+s.port)
		if err == nil {
			c.Close()
			return
		}
		if i == 200 {
			s.t.Fatalf("%s does not answer on port %s", s.args[0], s.port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// privateServer starts a redis-server or nats-server of the test's own on
// a free loopback port, or skips the test without one.
func privateServer(t *testing.T, bus string) (*server, string) {
	t.Helper()
	port := freePort(t)
	var s *server
	var url string
	switch bus {
	case "redis":
		bin, err := exec.LookPath("redis-server")
		if err != nil {
			testenv.Redis(t) // skips, or fails under CI
			t.Skip("no redis-server binary")
		}
		s = &server{t: t, port: port, args: []string{bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}}
		url = "redis://127.0.0.1:" + port
	case "nats":
		bin, err := exec.LookPath("nats-server")
		if err != nil {
			testenv.NATS(t)
			t.Skip("no nats-server binary")
		}
		s = &server{t: t, port: port, args: []string{bin, "-a", "127.0.0.1", "-p", port}}
		url = "nats://127.0.0.1:" + port
	}
	t.Cleanup(s.stop)
	return s, url
}

// TestClusterBusOutage: with the bus down, REST answers, sockets stay
// connected and local delivery goes on, and what could not cross is
// counted; an instance started meanwhile starts anyway; once the bus is
// back, delivery across instances resumes without the clients
// reconnecting.
func TestClusterBusOutage(t *testing.T) {
	for _, bus := range buses {
		t.Run(bus.name, func(t *testing.T) {
			srv, url := privateServer(t, bus.name)
			srv.start()
			env := map[string]string{
				"SKIFF_DATASTORES__DEFAULT__URL": t.TempDir() + "/db",
				"SKIFF_SOCKETS__ADAPTER":         bus.name, "SKIFF_SOCKETS__URL": url,
			}
			var logA, logB syncBuffer
			c := startCluster(t, 2, env, &logA, &logB)
			a, b := c.dialTo(t, 0, 4), c.dialTo(t, 1, 4)
			request(t, a, 200, "GET", "/user", nil) // both watch users
			request(t, b, 200, "GET", "/user", nil)
			create := func(name string) {
				t.Helper()
				run(t, c.server(), ids{}, []step{{method: "POST", path: "/user", body: `{"name":"` + name + `","email":"` + name + `@x.io"}`, status: 200}})
			}
			create("ann")
			if got := c.events(t, a); len(got) != 1 {
				t.Fatalf("A before the outage: %q, want one created", got)
			}
			c.events(t, b)

			srv.stop()
			for _, app := range c.apps {
				for app.Realtime().BusReady() {
					time.Sleep(20 * time.Millisecond)
				}
			}
			if code := readyz(t, c.apps[0].srv.URL); code != http.StatusServiceUnavailable {
				t.Errorf("GET /readyz during the outage = %d, want 503", code)
			}
			create("bob") // REST answers, B (local) is notified
			lost := c.apps[1].Realtime()
			for lost.Lost() == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			if got := c.apps[1].events(t, b); len(got) != 1 {
				t.Errorf("B during the outage: %q, want bob created", got)
			}
			// An instance that starts while the bus is down serves anyway.
			var logLate syncBuffer
			late := startInstance(t, env, &logLate)
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logLate.String(), "bus unreachable at start"); {
				if time.Now().After(deadline) {
					t.Fatalf("an instance started while the bus is down did not warn:\n%s", logLate.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			l := late.dial(t, 4)
			request(t, l, 200, "GET", "/user", nil)

			srv.start()
			c.apps = append(c.apps, late)
			c.waitReady(t)
			if code := readyz(t, c.apps[0].srv.URL); code != http.StatusOK {
				t.Errorf("GET /readyz after the bus came back = %d, want 200", code)
			}
			create("cy")
			if st := c.apps[1].Realtime().BusStats(); !st.Configured || !st.Up || st.Published == 0 || st.Lost == 0 || st.Outages != 1 {
				t.Errorf("B's bus counters = %+v, want configured, up, published > 0, lost > 0, one outage", st)
			}
			if st := c.apps[0].Realtime().BusStats(); st.Received == 0 {
				t.Errorf("A's bus counters = %+v, want received > 0", st)
			}
			for i, cl := range []*sockettest.Client{a, b, l} {
				if got := c.events(t, cl); len(got) != 1 || !strings.Contains(got[0], `"name":"cy"`) {
					t.Errorf("socket %d after the bus came back: %q, want cy created (only)", i, got)
				}
			}
			// Each instance told of the outage once, and of its end; B
			// counted what it could not send across.
			for i, log := range []*syncBuffer{&logA, &logB} {
				text := log.String()
				if n := strings.Count(text, "bus lost"); n != 1 {
					t.Errorf("instance %d logged the outage %d times, want once:\n%s", i, n, text)
				}
				if n := strings.Count(text, "bus back"); n != 1 {
					t.Errorf("instance %d logged the bus's return %d times, want once:\n%s", i, n, text)
				}
			}
			if text := logB.String(); strings.Contains(text, "lost_during_outage=0") {
				t.Errorf("B logged no lost notification:\n%s", text)
			}
			for i, cl := range []*sockettest.Client{a, b} {
				if err := cl.Err(); err != nil {
					t.Errorf("socket %d: %v (it must stay connected through the outage)", i, err)
				}
			}
		})
	}
}

// readyz returns the status of GET /readyz on the instance at url.
func readyz(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestClusterSailsFormat: the notifications of
// blueprints.notificationFormat sails (one addedTo per member) cross too.
func TestClusterSailsFormat(t *testing.T) {
	for _, bus := range buses {
		t.Run(bus.name, func(t *testing.T) {
			env := bus.env(t)
			env["SKIFF_DATASTORES__DEFAULT__URL"] = t.TempDir() + "/db"
			env["SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT"] = "sails"
			c := startCluster(t, 2, env)
			w, s := c.dialTo(t, 0, 4), c.dialTo(t, 1, 3)
			u := request(t, s, 200, "POST", "/user", map[string]any{"name": "ann", "email": "ann@x.io"})
			uid := fmt.Sprint(u["id"])
			request(t, w, 200, "GET", "/user/"+uid, nil)
			p1 := fmt.Sprint(request(t, s, 200, "POST", "/pet", map[string]any{"name": "rex"})["id"])
			p2 := fmt.Sprint(request(t, s, 200, "POST", "/pet", map[string]any{"name": "tom"})["id"])
			c.events(t, w)
			request(t, s, 200, "PUT", "/user/"+uid+"/pets", []any{p1, p2})
			wantEvents(t, "W", c.events(t, w),
				`user {"addedId":`+p1+`,"attribute":"pets","id":`+uid+`,"verb":"addedTo"}`,
				`user {"addedId":`+p2+`,"attribute":"pets","id":`+uid+`,"verb":"addedTo"}`,
				`pet {"data":{"owner":`+uid+`},"id":`+p1+`,"verb":"updated"}`,
				`pet {"data":{"owner":`+uid+`},"id":`+p2+`,"verb":"updated"}`)
			wantEvents(t, "S, the requester", c.events(t, s))
		})
	}
}

// TestSocketsAdapterConfig: the bus settings from the config and the
// environment, Sails' Redis keys included, and what New refuses.
func TestSocketsAdapterConfig(t *testing.T) {
	db := "SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/db"
	for _, tt := range []struct {
		env                  []string
		adapter, url, prefix string
	}{
		{[]string{"SKIFF_SOCKETS__ADAPTER=redis", "SKIFF_SOCKETS__URL=redis://10.0.0.5:6379/2"}, "redis", "redis://10.0.0.5:6379/2", ""},
		{[]string{"SKIFF_SOCKETS__ADAPTER=@sailshq/socket.io-redis", "SKIFF_SOCKETS__HOST=cache", "SKIFF_SOCKETS__PORT=6380",
			"SKIFF_SOCKETS__PASS=s3cret", "SKIFF_SOCKETS__DB=3", "SKIFF_SOCKETS__ADAPTEROPTIONS__KEY=shop"},
			"@sailshq/socket.io-redis", "redis://:s3cret@cache:6380/3", "shop"},
		{[]string{"SKIFF_SOCKETS__ADAPTER=nats", "SKIFF_SOCKETS__URL=nats://q:4222", "SKIFF_SOCKETS__KEY=shop"}, "nats", "nats://q:4222", "shop"},
	} {
		opts := skifftest.Load(t, "testdata/apps/basic", "", append(tt.env, db)...)
		so := opts.Sockets
		if err := app.Close(opts); err != nil {
			t.Error(err)
		}
		if so.Adapter != tt.adapter || so.URL != tt.url || so.Prefix != tt.prefix {
			t.Errorf("%v: adapter %q, url %q, prefix %q; want %q, %q, %q", tt.env, so.Adapter, so.URL, so.Prefix, tt.adapter, tt.url, tt.prefix)
		}
	}
	ctx := context.Background()
	if _, err := app.Load(ctx, "testdata/apps/basic", "", []string{db, "SKIFF_SOCKETS__ADAPTER=redis", "SKIFF_SOCKETS__DB=-1"}); err == nil ||
		!strings.Contains(err.Error(), "sockets.db") {
		t.Errorf("db -1: error %v, want one naming sockets.db", err)
	}
	if _, err := app.Load(ctx, "testdata/apps/basic", "", []string{db, "SKIFF_SOCKETS__ADAPTER=mongo"}); err == nil ||
		!strings.Contains(err.Error(), "sockets.adapter") {
		t.Errorf("adapter mongo: error %v, want one naming sockets.adapter", err)
	}
	for adapter, url := range map[string]string{"redis": "nats://h:4222", "nats": "redis://h:6379", "kafka": ""} {
		opts := skifftest.Load(t, "testdata/apps/basic", "", db)
		opts.Sockets.Adapter, opts.Sockets.URL, opts.Sockets.Bus = adapter, url, nil
		err := app.Connect(ctx, opts)
		if err == nil {
			var a *skiff.App
			if a, err = skiff.New(ctx, *opts); a != nil {
				a.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), "sockets.") {
			t.Errorf("Connect and New with adapter %s, url %q: error %v, want one naming the setting", adapter, url, err)
		}
	}
}

// startRealtimeCluster serves the app of writeRealtimeApp as n instances
// on one database, linked by the bus env names, each with roomsPath and
// the barrier driver.js uses with several instances. It returns their
// URLs, comma-separated, as driver.js takes them.
func startRealtimeCluster(t *testing.T, n int, env ...string) string {
	t.Helper()
	dir := writeRealtimeApp(t)
	env = append(env, "SKIFF_DATASTORES__DEFAULT__URL="+t.TempDir()+"/db")
	apps := make([]*skiff.App, n)
	var urls []string
	for i := range n {
		opts := skifftest.Load(t, dir, "development", env...)
		opts.Routes = append(opts.Routes,
			skiff.Route{Method: "GET", Path: roomsPath, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				id := realtime.SocketID(r.Context())
				rooms := []string{}
				for _, room := range apps[i].Realtime().Rooms(id) {
					if room != id {
						rooms = append(rooms, room)
					}
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(rooms)
			})},
			skiff.Route{Method: "GET", Path: "/__skiff_cluster_barrier", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				token, err := strconv.Atoi(r.URL.Query().Get("token"))
				if err != nil {
					http.Error(w, "token", http.StatusBadRequest)
					return
				}
				// From every instance: each one's messages arrive in order,
				// so what any sent the client before is in once these are.
				for _, a := range apps {
					if err := a.Realtime().Broadcast(r.Context(), []string{realtime.SocketID(r.Context())}, "__barrier",
						map[string]int{"token": token}, ""); err != nil {
						http.Error(w, err.Error(), http.StatusInternalServerError)
						return
					}
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte("{}"))
			})})
		app, srv := skifftest.Serve(t, *opts)
		apps[i] = app
		urls = append(urls, srv.URL)
	}
	(&cluster{apps: func() []*liveApp {
		var out []*liveApp
		for _, a := range apps {
			out = append(out, &liveApp{App: a})
		}
		return out
	}()}).waitReady(t)
	return strings.Join(urls, ",")
}

// TestNodeClusterRealtimeTable walks TestNodeRealtimeTable's rows with
// the real clients (sails.io.js and socket.io-client 4) spread over three
// instances and the plain HTTP requests on the last: the same events
// reach the same clients, exactly once, wherever they are connected.
func TestNodeClusterRealtimeTable(t *testing.T) {
	testenv.Node(t, nodeDir)
	for _, bus := range buses {
		for _, format := range []string{"seed", "sails"} {
			t.Run(bus.name+"/"+format, func(t *testing.T) {
				var env []string
				for k, v := range bus.env(t) {
					env = append(env, k+"="+v)
				}
				urls := startRealtimeCluster(t, 3, append(env, "SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT="+format)...)
				steps, clients := realtimeTableScenario(format)
				sc := nodeScenario{Clients: map[string]nodeClient{}, Events: []string{"user", "pet"}, Steps: steps}
				for i, name := range clients {
					stack := "sails"
					if i%2 == 1 {
						stack = "v4"
					}
					sc.Clients[name] = nodeClient{Stack: stack, Instance: i % 3}
				}
				runNodeAt(t, urls, sc)
			})
		}
	}
}

// TestClusterTooLarge: a message larger than NATS carries reaches the
// sending instance's sockets only, is counted, and does not take the bus
// down.
func TestClusterTooLarge(t *testing.T) {
	env := buses[1].env(t)
	env["SKIFF_DATASTORES__DEFAULT__URL"] = t.TempDir() + "/db"
	c := startCluster(t, 2, env)
	a, b := c.dialTo(t, 0, 4), c.dialTo(t, 1, 4)
	rt := c.apps[1].Realtime()
	big := strings.Repeat("x", 2<<20)
	if err := rt.Blast(context.Background(), "big", big, ""); err != nil {
		t.Fatal(err)
	}
	if err := rt.Blast(context.Background(), "small", 1, ""); err != nil {
		t.Fatal(err)
	}
	got := c.events(t, b)
	if len(got) != 2 || !strings.HasPrefix(got[0], "big ") || got[1] != "small 1" {
		t.Errorf("B, the sender's instance, got %d events, want big then small", len(got))
	}
	wantEvents(t, "A", c.events(t, a), "small 1")
	if rt.Lost() != 1 || !rt.BusReady() {
		t.Errorf("after a message too large: Lost %d, BusReady %v; want 1, true", rt.Lost(), rt.BusReady())
	}
}
