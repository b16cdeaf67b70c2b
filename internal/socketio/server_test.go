package socketio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/skiffhq/skiff/internal/socketio"
)

// record is what the test server's callbacks saw.
type record struct {
	kind   string // connect, event, disconnect
	socket *socketio.Socket
	event  string
	args   []json.RawMessage
	ack    func(...any) error
	reason string
}

type harness struct {
	srv     *socketio.Server
	http    *httptest.Server
	url     string
	records chan record
}

// newHarness starts a Server behind httptest; callbacks are recorded unless
// the caller set them.
func newHarness(t *testing.T, o socketio.Options) *harness {
	t.Helper()
	h := &harness{records: make(chan record, 1000)}
	if o.OnConnect == nil {
		o.OnConnect = func(s *socketio.Socket) { h.records <- record{kind: "connect", socket: s} }
	}
	if o.OnEvent == nil {
		o.OnEvent = func(s *socketio.Socket, ev string, args []json.RawMessage, ack func(...any) error) {
			h.records <- record{kind: "event", socket: s, event: ev, args: args, ack: ack}
		}
	}
	if o.OnDisconnect == nil {
		o.OnDisconnect = func(s *socketio.Socket, reason string) {
			h.records <- record{kind: "disconnect", socket: s, reason: reason}
		}
	}
	h.srv = socketio.NewServer(o)
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", h.srv)
	h.http = httptest.NewServer(mux)
	h.url = strings.Replace(h.http.URL, "http", "ws", 1) + "/socket.io/"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.srv.Close(ctx)
		h.http.Close()
	})
	return h
}

func (h *harness) next(t *testing.T, kind string) record {
	t.Helper()
	select {
	case r := <-h.records:
		if r.kind != kind {
			t.Fatalf("callback = %s (%+v), want %s", r.kind, r, kind)
		}
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s callback within 5s", kind)
	}
	return record{}
}

type client struct {
	t *testing.T
	c *websocket.Conn
}

func (h *harness) dial(t *testing.T, eio int) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, fmt.Sprintf("%s?EIO=%d&transport=websocket", h.url, eio), nil)
	if err != nil {
		t.Fatalf("dial EIO=%d: %v", eio, err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { c.CloseNow() })
	return &client{t: t, c: c}
}

// open reads the open packet (and for EIO=3 the implicit "40") and returns
// the decoded handshake.
func (c *client) open(eio int) map[string]any {
	c.t.Helper()
	f := c.read()
	if !strings.HasPrefix(f, "0{") {
		c.t.Fatalf("first frame = %q, want an open packet", f)
	}
	var hs map[string]any
	if err := json.Unmarshal([]byte(f[1:]), &hs); err != nil {
		c.t.Fatalf("open packet %q: %v", f, err)
	}
	if eio == 3 {
		c.expect("40")
	}
	return hs
}

func (c *client) read() string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, b, err := c.c.Read(ctx)
	if err != nil {
		c.t.Fatalf("client read: %v", err)
	}
	if typ != websocket.MessageText {
		c.t.Fatalf("client read a %v frame", typ)
	}
	return string(b)
}

func (c *client) expect(want string) {
	c.t.Helper()
	if got := c.read(); got != want {
		c.t.Fatalf("client read %q, want %q", got, want)
	}
}

func (c *client) write(s string) {
	c.t.Helper()
	if err := c.c.Write(context.Background(), websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("client write %q: %v", s, err)
	}
}

// closed waits for the server to end the connection and returns the close
// status (-1 when the connection dropped without a close frame).
func (c *client) closed() websocket.StatusCode {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, _, err := c.c.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				c.t.Fatal("connection still open after 5s")
			}
			return websocket.CloseStatus(err)
		}
	}
}

func TestSessionEIO3(t *testing.T) {
	h := newHarness(t, socketio.Options{PingInterval: time.Second, PingTimeout: 2 * time.Second})
	c := h.dial(t, 3)
	hs := c.open(3)
	sid, _ := hs["sid"].(string)
	if len(sid) != 20 || strings.ContainsAny(sid, "+/=") {
		t.Errorf("sid = %q, want 20 URL-safe base64 characters", sid)
	}
	if hs["pingInterval"] != 1000.0 || hs["pingTimeout"] != 2000.0 {
		t.Errorf("open = %v, want pingInterval 1000, pingTimeout 2000", hs)
	}
	if _, ok := hs["maxPayload"]; ok {
		t.Errorf("EIO=3 open = %v has maxPayload", hs)
	}
	if u, ok := hs["upgrades"].([]any); !ok || len(u) != 0 {
		t.Errorf("open upgrades = %v, want []", hs["upgrades"])
	}
	r := h.next(t, "connect")
	s := r.socket
	if s.ID() != sid || s.Protocol() != 3 || h.srv.Socket(sid) != s || h.srv.Count() != 1 {
		t.Fatalf("socket id %q proto %d, Count %d; want %q, 3, 1", s.ID(), s.Protocol(), h.srv.Count(), sid)
	}
	if got := s.Request().URL.Query().Get("EIO"); got != "3" {
		t.Errorf("Request().URL EIO = %q", got)
	}

	c.write(`421["get",{"url":"/user"}]`)
	ev := h.next(t, "event")
	if ev.event != "get" || len(ev.args) != 1 || string(ev.args[0]) != `{"url":"/user"}` || ev.ack == nil {
		t.Fatalf("OnEvent(%q, %s, ack=%v)", ev.event, ev.args, ev.ack != nil)
	}
	if err := ev.ack(map[string]any{"statusCode": 200}); err != nil {
		t.Fatal(err)
	}
	c.expect(`431[{"statusCode":200}]`)
	if err := ev.ack(1); !errors.Is(err, socketio.ErrAcked) {
		t.Errorf("second ack error = %v, want ErrAcked", err)
	}

	c.write(`42["noack",1,2]`)
	if ev := h.next(t, "event"); ev.ack != nil || len(ev.args) != 2 {
		t.Errorf("event without ack id: ack=%v args=%s", ev.ack != nil, ev.args)
	}

	if err := s.Emit("news", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	c.expect(`42["news",{"n":1}]`)
	if err := s.EmitRaw("user", json.RawMessage(`{"verb":"created"}`)); err != nil {
		t.Fatal(err)
	}
	c.expect(`42["user",{"verb":"created"}]`)

	// EIO=3: the client pings, the server answers.
	c.write("2")
	c.expect("3")
	c.write("2probe")
	c.expect("3probe")

	c.write("40/admin,")
	c.expect(`44/admin,"Invalid namespace"`)

	c.write("41")
	// The client must keep reading for the close handshake to complete.
	if got := c.closed(); got != websocket.StatusNormalClosure {
		t.Errorf("close status = %v, want normal", got)
	}
	if r := h.next(t, "disconnect"); r.socket != s || r.reason != socketio.ReasonClientDisconnect {
		t.Errorf("OnDisconnect reason = %q, want %q", r.reason, socketio.ReasonClientDisconnect)
	}
	if s.Context().Err() == nil {
		t.Error("Context() not cancelled after disconnect")
	}
	if err := s.Emit("late"); !errors.Is(err, socketio.ErrClosed) {
		t.Errorf("Emit after close = %v, want ErrClosed", err)
	}
	if h.srv.Count() != 0 || h.srv.Socket(sid) != nil {
		t.Errorf("Count() = %d after disconnect", h.srv.Count())
	}
}

func TestSessionEIO4(t *testing.T) {
	h := newHarness(t, socketio.Options{PingInterval: 50 * time.Millisecond, PingTimeout: time.Second, MaxMessageBytes: 5000})
	c := h.dial(t, 4)
	hs := c.open(4)
	if hs["maxPayload"] != 5000.0 || hs["pingInterval"] != 50.0 {
		t.Errorf("open = %v, want maxPayload 5000, pingInterval 50", hs)
	}
	sid := hs["sid"].(string)
	c.write(`40{"token":"abc"}`)
	c.expect(`40{"sid":"` + sid + `"}`)
	s := h.next(t, "connect").socket
	if string(s.Auth()) != `{"token":"abc"}` || s.Protocol() != 4 {
		t.Errorf("Auth() = %s, Protocol() = %d", s.Auth(), s.Protocol())
	}

	c.write(`427["post",{"url":"/pet"},"x"]`)
	ev := h.next(t, "event")
	if ev.event != "post" || len(ev.args) != 2 {
		t.Fatalf("OnEvent(%q, %s)", ev.event, ev.args)
	}
	ev.ack()
	c.expect(`437[]`)

	c.write("40/admin,")
	c.expect(`44/admin,{"message":"Invalid namespace"}`)

	// EIO=4: the server pings every interval while the client answers.
	start := time.Now()
	for range 3 {
		c.expect("2")
		c.write("3")
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("3 pings in %v, want about 150ms", d)
	}

	s.Emit("bye")
	if err := s.Disconnect(); err != nil {
		t.Fatal(err)
	}
	for {
		f := c.read()
		if f == "2" {
			continue
		}
		if f != `42["bye"]` {
			t.Fatalf("read %q, want the queued event before disconnect", f)
		}
		break
	}
	c.expect("41")
	if got := c.closed(); got != websocket.StatusNormalClosure {
		t.Errorf("close status = %v, want normal", got)
	}
	if r := h.next(t, "disconnect"); r.reason != socketio.ReasonServerDisconnect {
		t.Errorf("OnDisconnect reason = %q, want %q", r.reason, socketio.ReasonServerDisconnect)
	}
	if err := s.Disconnect(); !errors.Is(err, socketio.ErrClosed) {
		t.Errorf("second Disconnect() = %v, want ErrClosed", err)
	}
}

func TestPingTimeout(t *testing.T) {
	for _, eio := range []int{3, 4} {
		t.Run(fmt.Sprint("EIO", eio), func(t *testing.T) {
			const interval, timeout = 50 * time.Millisecond, 100 * time.Millisecond
			h := newHarness(t, socketio.Options{PingInterval: interval, PingTimeout: timeout})
			c := h.dial(t, eio)
			start := time.Now()
			c.open(eio)
			if eio == 4 {
				c.write("40")
			}
			h.next(t, "connect")
			// Read (to see pings) but never answer.
			go c.c.Read(context.Background())
			r := h.next(t, "disconnect")
			if r.reason != socketio.ReasonPingTimeout {
				t.Errorf("OnDisconnect reason = %q, want %q", r.reason, socketio.ReasonPingTimeout)
			}
			if d := time.Since(start); d < interval+timeout-20*time.Millisecond || d > 2*time.Second {
				t.Errorf("closed after %v, want about %v", d, interval+timeout)
			}
		})
	}
}

func TestEIO3ClientPingsKeepAlive(t *testing.T) {
	// The client pings again as soon as each pong arrives, for two and a
	// half times interval+timeout: only a stall of the whole 400ms window
	// between two pings, not a loaded machine's slow turn, could close it
	// (50ms between pings once did).
	const interval, timeout = 200 * time.Millisecond, 200 * time.Millisecond
	h := newHarness(t, socketio.Options{PingInterval: interval, PingTimeout: timeout})
	c := h.dial(t, 3)
	c.open(3)
	h.next(t, "connect")
	for start := time.Now(); time.Since(start) < 5*(interval+timeout)/2; {
		c.write("2")
		c.expect("3")
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case r := <-h.records:
		t.Fatalf("unexpected %s (%s) while the client pings", r.kind, r.reason)
	default:
	}
}

func TestHandshakeRefused(t *testing.T) {
	h := newHarness(t, socketio.Options{Allow: func(r *http.Request) error {
		if r.Header.Get("Origin") == "http://evil.example" {
			return errors.New("origin not allowed")
		}
		return nil
	}})
	tests := []struct {
		name, method, query string
		header              http.Header
		status, code        int
		message             string
	}{
		{"polling", "GET", "EIO=4&transport=polling", nil, 400, 3, socketio.MessagePollingRefused},
		{"polling EIO3", "GET", "EIO=3&transport=polling", nil, 400, 3, socketio.MessagePollingRefused},
		{"missing EIO", "GET", "transport=websocket", nil, 400, 5, "Unsupported protocol version"},
		{"EIO 5", "GET", "EIO=5&transport=websocket", nil, 400, 5, "Unsupported protocol version"},
		{"unknown transport", "GET", "EIO=4&transport=flash", nil, 400, 0, "Transport unknown"},
		{"sid", "GET", "EIO=4&transport=websocket&sid=abc", nil, 400, 1, "Session ID unknown"},
		{"method", "POST", "EIO=4&transport=websocket", nil, 400, 2, "Bad handshake method"},
		{"allow", "GET", "EIO=4&transport=websocket", http.Header{"Origin": {"http://evil.example"}}, 403, 4, "origin not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, h.http.URL+"/socket.io/?"+tt.query, nil)
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var got struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != tt.status || got.Code != tt.code || got.Message != tt.message ||
				resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s ?%s = %d %s, want %d {code:%d message:%q}", tt.method, tt.query, resp.StatusCode, body, tt.status, tt.code, tt.message)
			}
		})
	}
	// A real WebSocket dial refused by Allow.
	_, resp, err := websocket.Dial(t.Context(), h.url+"?EIO=3&transport=websocket",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("Dial with refused origin = %v, %v; want 403", resp, err)
	}
}

func TestBadInputClosesOnlyThatSocket(t *testing.T) {
	tests := []struct {
		name   string
		send   func(c *client)
		reason string
	}{
		{"malformed frame", func(c *client) { c.write(`42{"not":"an array"}`) }, socketio.ReasonParseError},
		{"unknown engine type", func(c *client) { c.write("9") }, socketio.ReasonParseError},
		{"binary frame", func(c *client) { c.c.Write(context.Background(), websocket.MessageBinary, []byte{4, 1, 2}) }, socketio.ReasonParseError},
		{"binary event", func(c *client) { c.write(`451-["up",{"_placeholder":true,"num":0}]`) }, socketio.ReasonParseError},
		{"too big", func(c *client) { c.write(`42["x","` + strings.Repeat("a", 300) + `"]`) }, socketio.ReasonMessageTooBig},
		{"engine close", func(c *client) { c.write("1") }, socketio.ReasonTransportClose},
		{"websocket close", func(c *client) { c.c.Close(websocket.StatusNormalClosure, "") }, socketio.ReasonTransportClose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, socketio.Options{MaxMessageBytes: 200})
			good, bad := h.dial(t, 3), h.dial(t, 4)
			good.open(3)
			goodSock := h.next(t, "connect").socket
			bad.open(4)
			bad.write("40")
			bad.read()
			h.next(t, "connect")

			tt.send(bad)
			if tt.name != "websocket close" {
				bad.closed()
			}
			if r := h.next(t, "disconnect"); r.reason != tt.reason {
				t.Errorf("OnDisconnect reason = %q, want %q", r.reason, tt.reason)
			}
			// The other socket still works.
			good.write(`421["ping"]`)
			h.next(t, "event").ack("pong")
			good.expect(`431["pong"]`)
			if h.srv.Count() != 1 || h.srv.Socket(goodSock.ID()) == nil {
				t.Errorf("Count() = %d, want 1", h.srv.Count())
			}
		})
	}
}

func TestSlowConsumerDisconnected(t *testing.T) {
	h := newHarness(t, socketio.Options{SendQueue: 8})
	fast, slow := h.dial(t, 4), h.dial(t, 4)
	var socks [2]*socketio.Socket
	for i, c := range []*client{fast, slow} {
		c.open(4)
		c.write("40")
		c.read()
		socks[i] = h.next(t, "connect").socket
	}
	payload := json.RawMessage(`"` + strings.Repeat("x", 64<<10) + `"`)
	p, err := socketio.EncodeEventRaw("big", payload)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000 // 128 MB: far beyond any socket buffer
	var slowErr error
	var worst time.Duration
	i := 0
	for ; i < n && slowErr == nil; i++ {
		start := time.Now()
		slowErr = socks[1].Send(p)
		if err := socks[0].Send(p); err != nil {
			t.Fatalf("Send to the fast socket #%d: %v", i, err)
		}
		worst = max(worst, time.Since(start))
		if got := fast.read(); len(got) != len(p.Bytes()) {
			t.Fatalf("fast client read %d bytes, want %d", len(got), len(p.Bytes()))
		}
	}
	if !errors.Is(slowErr, socketio.ErrQueueFull) {
		t.Fatalf("slow socket Send error = %v after %d sends, want ErrQueueFull", slowErr, i)
	}
	if worst > 100*time.Millisecond {
		t.Errorf("a Send took %v; sends must not block", worst)
	}
	if r := h.next(t, "disconnect"); r.socket != socks[1] || r.reason != socketio.ReasonQueueFull {
		t.Errorf("OnDisconnect(%v, %q), want the slow socket, %q", r.socket.ID(), r.reason, socketio.ReasonQueueFull)
	}
	if err := socks[0].Emit("still", "here"); err != nil {
		t.Fatal(err)
	}
	fast.expect(`42["still","here"]`)
}

func TestCloseStopsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	var connected, disconnected sync.WaitGroup
	var mu sync.Mutex
	reasons := map[string]int{}
	srv := socketio.NewServer(socketio.Options{
		OnConnect: func(*socketio.Socket) { connected.Done() },
		OnDisconnect: func(_ *socketio.Socket, reason string) {
			mu.Lock()
			reasons[reason]++
			mu.Unlock()
			disconnected.Done()
		},
	})
	hs := httptest.NewServer(srv)
	url := strings.Replace(hs.URL, "http", "ws", 1) + "/socket.io/"
	const n = 20
	connected.Add(n)
	disconnected.Add(n)
	var clients []*websocket.Conn
	for i := range n {
		eio := 3 + i%2
		c, _, err := websocket.Dial(t.Context(), fmt.Sprintf("%s?EIO=%d&transport=websocket", url, eio), nil)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		if eio == 4 {
			c.Write(t.Context(), websocket.MessageText, []byte("40"))
		}
	}
	connected.Wait()
	if srv.Count() != n {
		t.Fatalf("Count() = %d, want %d", srv.Count(), n)
	}
	statuses := make(chan websocket.StatusCode, n)
	for _, c := range clients {
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					statuses <- websocket.CloseStatus(err)
					return
				}
			}
		}()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	disconnected.Wait()
	if reasons[socketio.ReasonServerShutdown] != n || srv.Count() != 0 {
		t.Errorf("reasons = %v, Count() = %d; want %d × %q", reasons, srv.Count(), n, socketio.ReasonServerShutdown)
	}
	for range n {
		if s := <-statuses; s != websocket.StatusGoingAway {
			t.Errorf("client close status = %v, want going away", s)
		}
	}
	resp, err := http.Get(hs.URL + "/socket.io/?EIO=4&transport=websocket")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("handshake after Close = %d, want 503", resp.StatusCode)
	}
	if err := srv.Close(ctx); !errors.Is(err, socketio.ErrServerClosed) {
		t.Errorf("second Close() = %v, want ErrServerClosed", err)
	}
	for _, c := range clients {
		c.CloseNow()
	}
	hs.Close()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after Close\n%s", before, got, buf[:runtime.Stack(buf, true)])
	}
}

func TestEIO4MustConnect(t *testing.T) {
	h := newHarness(t, socketio.Options{ConnectTimeout: 50 * time.Millisecond})
	c := h.dial(t, 4)
	c.open(4)
	c.write(`42["early"]`) // before CONNECT: ignored
	if got := c.closed(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status = %v, want policy violation (no CONNECT in time)", got)
	}
	select {
	case r := <-h.records:
		t.Errorf("callback %s for a socket that never connected", r.kind)
	default:
	}
}

// TestEIO4ConnectAfterPing: the time a client has to send CONNECT does not
// depend on the heartbeat (a short pingInterval used to drop clients slower
// than one interval to connect, e.g. a busy Node.js process).
func TestEIO4ConnectAfterPing(t *testing.T) {
	h := newHarness(t, socketio.Options{PingInterval: 10 * time.Millisecond, PingTimeout: 5 * time.Second})
	c := h.dial(t, 4)
	c.open(4)
	c.expect("2") // a ping has gone by; the socket has not joined "/" yet
	c.write("3")
	c.write("40")
	h.next(t, "connect")
}

func TestMaxPerIP(t *testing.T) {
	h := newHarness(t, socketio.Options{MaxPerIP: 2})
	a, b := h.dial(t, 3), h.dial(t, 3)
	a.open(3)
	h.next(t, "connect")
	b.open(3)
	h.next(t, "connect")

	// A third socket from the same address is refused before the upgrade.
	_, resp, err := websocket.Dial(t.Context(), h.url+"?EIO=3&transport=websocket", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("third dial = %v, %v; want 403", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), socketio.MessageTooManyFromIP) {
		t.Errorf("refusal body = %s", body)
	}

	// Once one closes, its slot is free again.
	a.c.Close(websocket.StatusNormalClosure, "")
	h.next(t, "disconnect")
	c := h.dial(t, 3)
	c.open(3)
	h.next(t, "connect")
}

// TestConnectAfterOnConnect: a client learns it is connected only once
// OnConnect has run (the hub knows the socket), and what is sent to the
// socket while OnConnect runs follows the connect packet. Before, a
// broadcast made as soon as the client saw "connected" could miss it.
func TestConnectAfterOnConnect(t *testing.T) {
	for _, eio := range []int{3, 4} {
		t.Run(fmt.Sprintf("EIO=%d", eio), func(t *testing.T) {
			entered, release := make(chan *socketio.Socket, 1), make(chan struct{})
			var once sync.Once
			releaseOnce := func() { once.Do(func() { close(release) }) }
			h := newHarness(t, socketio.Options{OnConnect: func(s *socketio.Socket) {
				entered <- s
				<-release
			}})
			t.Cleanup(releaseOnce) // a failure must not leave OnConnect blocked
			c := h.dial(t, eio)
			if f := c.read(); !strings.HasPrefix(f, "0{") {
				t.Fatalf("first frame = %q, want an open packet", f)
			}
			if eio == 4 {
				c.write("40")
			}
			frames := make(chan string, 4)
			go func() {
				for {
					_, b, err := c.c.Read(context.Background())
					if err != nil {
						close(frames)
						return
					}
					frames <- string(b)
				}
			}()
			s := <-entered
			if err := s.EmitRaw("early", json.RawMessage(`1`)); err != nil {
				t.Fatal(err)
			}
			// Nothing may reach the client while OnConnect runs. (A slow
			// machine can only make this pass wrongly, never fail.)
			select {
			case f := <-frames:
				t.Fatalf("client read %q while OnConnect was still running, want nothing yet", f)
			case <-time.After(100 * time.Millisecond):
			}
			releaseOnce()
			for _, want := range []string{"40", `42["early",1]`} {
				select {
				case f := <-frames:
					if !strings.HasPrefix(f, want) {
						t.Fatalf("client read %q, want %s...", f, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("no %s frame within 5s", want)
				}
			}
		})
	}
}

// A socket keeps its handshake's headers, cookies and query for virtual
// requests, but not the upgrade's own headers.
func TestRequestKeepsHeadersNotUpgrade(t *testing.T) {
	h := newHarness(t, socketio.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hdr := http.Header{"Cookie": {"sails.sid=abc"}, "X-Sdk": {"1"}}
	c, _, err := websocket.Dial(ctx, h.url+"?EIO=4&transport=websocket&__sails_io_sdk_version=1.2.1", &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte("40")); err != nil {
		t.Fatal(err)
	}
	req := h.next(t, "connect").socket.Request()
	if req.Header.Get("Cookie") != "sails.sid=abc" || req.Header.Get("X-Sdk") != "1" || req.URL.Query().Get("__sails_io_sdk_version") != "1.2.1" {
		t.Errorf("kept request: header %v, query %q", req.Header, req.URL.RawQuery)
	}
	for _, name := range []string{"Upgrade", "Connection", "Sec-Websocket-Key", "Sec-Websocket-Version"} {
		if v := req.Header.Get(name); v != "" {
			t.Errorf("kept request has %s: %q", name, v)
		}
	}
	if req.Body != http.NoBody || req.RemoteAddr == "" || req.Host == "" {
		t.Errorf("kept request: body %v, RemoteAddr %q, Host %q", req.Body, req.RemoteAddr, req.Host)
	}
}
