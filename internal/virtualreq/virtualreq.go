// Package virtualreq turns sails.io.js "virtual requests" (socket events
// named after HTTP verbs, carrying {method, url, data, headers}) into real
// *http.Request values served by the app's own handler, and acks the
// captured response as the JWR {body, headers, statusCode} sails.io.js
// expects. Routing, policies, CSRF and blueprints therefore run exactly as
// for HTTP: there is one code path.
package virtualreq

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/realtime"
)

// maxInFlight bounds the requests one socket may have running at once;
// past it the socket's next frame is not read until one finishes, so a
// flooding client slows itself down instead of the server.
const maxInFlight = 16

// minSDK is the oldest sails.io.js whose requests Sails serves.
var minSDK = [3]int{0, 11, 0}

// Server serves the virtual requests of sockets through Handler.
type Server struct {
	handler http.Handler
	log     *slog.Logger
	cookie  func(hs *http.Request) string

	wg      sync.WaitGroup
	mu      sync.Mutex
	sockets map[string]*socketState
}

// socketState is what a socket's requests share.
type socketState struct {
	sem chan struct{}
	sdk [3]int
	mu  sync.Mutex
	// cookie is the Cookie header its requests carry: the handshake's,
	// updated by every Set-Cookie its responses carry (see SetCookies), so
	// that a session started, renewed or ended over the socket sticks to it.
	cookie string
}

// Option tunes a Server.
type Option func(*Server)

// HandshakeCookie makes f give the Cookie header a socket's requests start
// with, from its handshake, instead of the handshake's own: the session
// layer gives a socket whose handshake names no session one of its own
// (session.Manager.SocketCookie), as Sails does, so that its requests share
// it from the first.
func HandshakeCookie(f func(hs *http.Request) string) Option {
	return func(s *Server) { s.cookie = f }
}

// New returns a Server running requests through h. log receives handler
// panics; nil discards.
func New(h http.Handler, log *slog.Logger, opts ...Option) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{handler: h, log: log, sockets: map[string]*socketState{}}
	s.cookie = func(hs *http.Request) string { return hs.Header.Get("Cookie") }
	for _, o := range opts {
		o(s)
	}
	return s
}

// Connect starts serving a socket; call it from the socket server's
// OnConnect.
func (s *Server) Connect(sock *socketio.Socket) {
	hs := sock.Request()
	st := &socketState{sem: make(chan struct{}, maxInFlight), cookie: s.cookie(hs), sdk: sdkVersion(hs)}
	s.mu.Lock()
	s.sockets[sock.ID()] = st
	s.mu.Unlock()
}

// Disconnect forgets a socket; its requests still running finish.
func (s *Server) Disconnect(sock *socketio.Socket) {
	s.mu.Lock()
	delete(s.sockets, sock.ID())
	s.mu.Unlock()
}

// Wait blocks until every request started has been answered, or ctx ends.
func (s *Server) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// verbs are the events served as requests, by lower-case name.
var verbs = map[string]string{
	"get": http.MethodGet, "post": http.MethodPost, "put": http.MethodPut, "patch": http.MethodPatch,
	"delete": http.MethodDelete, "options": http.MethodOptions, "head": http.MethodHead,
}

// Handles reports whether event is a virtual request.
func Handles(event string) bool { _, ok := verbs[event]; return ok }

// Serve runs the virtual request carried by an event; call it from the
// socket server's OnEvent. It returns once the request is running, after
// waiting while the socket already has maxInFlight requests running.
func (s *Server) Serve(sock *socketio.Socket, event string, args []json.RawMessage, ack func(...any) error) {
	method, ok := verbs[event]
	if !ok {
		return
	}
	s.mu.Lock()
	st := s.sockets[sock.ID()]
	s.mu.Unlock()
	if st == nil {
		return
	}
	select {
	case st.sem <- struct{}{}:
	case <-sock.Context().Done():
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-st.sem }()
		jwr := s.run(sock, st, method, args)
		if ack != nil {
			_ = ack(jwr)
		}
	}()
}

// JWR is the ack of a virtual request, as sails.io.js reads it.
type JWR struct {
	Body       json.RawMessage   `json:"body,omitempty"`
	Headers    map[string]string `json:"headers"`
	StatusCode int               `json:"statusCode"`
}

// envelope is what sails.io.js emits with each request.
type envelope struct {
	Method  string                     `json:"method"`
	URL     *string                    `json:"url"`
	Data    json.RawMessage            `json:"data"`
	Params  json.RawMessage            `json:"params"`
	Headers map[string]json.RawMessage `json:"headers"`
}

func (s *Server) run(sock *socketio.Socket, st *socketState, method string, args []json.RawMessage) (jwr JWR) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("virtual request panicked", slog.String("socket", sock.ID()), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			jwr = textJWR(http.StatusInternalServerError, "Internal Server Error")
		}
	}()
	req, err := s.request(sock, st, method, args)
	if err != nil {
		// It never reaches the handler, whose middleware logs requests:
		// log it here, as a request line (the reason cut short, as it may
		// quote the message).
		why := err.Error()
		if len(why) > 200 {
			why = why[:200] + "…"
		}
		s.log.LogAttrs(sock.Context(), slog.LevelInfo, "request", slog.String("method", method),
			slog.Int("status", http.StatusBadRequest), slog.String("socket", sock.ID()), slog.String("err", why))
		return parseError(err.Error())
	}
	rec := &recorder{header: http.Header{}}
	s.handler.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.jwr(st)
}

// request builds the *http.Request of a virtual request (spec realtime
// §3.2): the event names the method, the handshake supplies the cookie,
// origin and address, data becomes a JSON body.
func (s *Server) request(sock *socketio.Socket, st *socketState, method string, args []json.RawMessage) (*http.Request, error) {
	if st.sdk[0] == 0 && st.sdk[1] < minSDK[1] {
		return nil, fmt.Errorf("The sails.io.js SDK version of this socket (%d.%d.%d) is too old: 0.11.0 or newer is needed (send __sails_io_sdk_version in the connection's query string)", st.sdk[0], st.sdk[1], st.sdk[2])
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("No request in the message: expected {method, url, data, headers}")
	}
	var env envelope
	if err := json.Unmarshal(args[0], &env); err != nil {
		return nil, fmt.Errorf("The request is not a JSON object of {method, url, data, headers}: %v", err)
	}
	if env.URL == nil || strings.TrimSpace(*env.URL) == "" {
		return nil, fmt.Errorf("No url provided in request: %s", args[0])
	}
	target := strings.TrimSpace(*env.URL)
	u, err := url.ParseRequestURI(target)
	// "//host/path" is a network-path reference: read again as a URL it
	// names another host, and the router would serve its path.
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return nil, fmt.Errorf("Invalid url %q: it must be a path such as /user?limit=3", target)
	}
	body, err := mergeBody(env.Params, env.Data)
	if err != nil {
		return nil, err
	}
	hs := sock.Request()
	ctx := realtime.WithSocket(sock.Context(), sock.ID())
	req, err := http.NewRequestWithContext(ctx, method, u.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("Invalid request: %v", err)
	}
	req.RequestURI = u.RequestURI()
	req.RemoteAddr = hs.RemoteAddr
	req.Host = hs.Host
	req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/1.1", 1, 1
	for name, raw := range env.Headers {
		// The body is the envelope's data, encoded here as plain JSON:
		// a Content-Encoding the client names does not describe it.
		if strings.EqualFold(name, "Content-Encoding") {
			continue
		}
		if v, ok := headerValue(raw); ok {
			req.Header.Set(name, v)
		}
	}
	// The handshake's identity wins over what the envelope claims.
	st.mu.Lock()
	cookie := st.cookie
	st.mu.Unlock()
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	if origin := hs.Header.Get("Origin"); origin != "" {
		req.Header.Set("Origin", origin)
	} else {
		req.Header.Del("Origin")
	}
	if hs.Header.Get("nosession") != "" || hs.URL.Query().Get("nosession") != "" {
		// Browsers cannot set handshake headers, so sails.io.js clients pass
		// it in the connection's query string.
		req.Header.Set("nosession", "true")
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	return req, nil
}

// mergeBody is {...params, ...data}, or data itself when it is not an
// object (an array is a replace body); no data is an empty object.
func mergeBody(params, data json.RawMessage) ([]byte, error) {
	isNull := func(b json.RawMessage) bool { return len(b) == 0 || string(b) == "null" }
	if isNull(params) {
		if isNull(data) {
			return []byte("{}"), nil
		}
		return data, nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("`params` must be an object: %v", err)
	}
	if !isNull(data) {
		var d map[string]json.RawMessage
		if err := json.Unmarshal(data, &d); err != nil {
			return data, nil
		}
		for k, v := range d {
			p[k] = v
		}
	}
	return json.Marshal(p)
}

// headerValue stringifies a header of the envelope as Sails does; null
// drops it.
func headerValue(raw json.RawMessage) (string, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return string(raw), true
}

// sdkVersion reads the sails.io.js version from the handshake's query
// string or headers; none means 0.9.0, as in Sails.
func sdkVersion(hs *http.Request) [3]int {
	v := hs.URL.Query().Get("__sails_io_sdk_version")
	if v == "" {
		v = hs.Header.Get("__sails_io_sdk_version")
	}
	out := [3]int{0, 9, 0}
	if v == "" {
		return out
	}
	parts := strings.SplitN(v, ".", 3)
	for i := range out {
		out[i] = 0
		if i < len(parts) {
			n, _ := strconv.Atoi(strings.TrimFunc(parts[i], func(r rune) bool { return r < '0' || r > '9' }))
			out[i] = n
		}
	}
	return out
}

func textJWR(status int, text string) JWR {
	b, _ := json.Marshal(text)
	return JWR{Body: b, Headers: map[string]string{}, StatusCode: status}
}

// parseError answers a request that could not be read. Sails acks a bare
// error object that sails.io.js takes for a 200; Skiff answers a 400 JWR.
func parseError(details string) JWR {
	b, _ := json.Marshal(map[string]string{
		"code":    "SAILS:HOOK:SOCKETS:PARSE_VIRTUAL_REQ",
		"message": "Failed to parse incoming socket.io request.",
		"details": details,
	})
	return JWR{Body: b, Headers: map[string]string{}, StatusCode: http.StatusBadRequest}
}

// recorder captures the response of a virtual request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// Flush is a no-op: the response is sent whole, in the ack.
func (r *recorder) Flush() {}

// jwr turns the captured response into the ack: a JSON body as it is,
// another body as a string. Set-Cookie never reaches the client (page
// scripts must not read an HttpOnly session cookie); it updates the
// socket's cookie instead.
func (r *recorder) jwr(st *socketState) JWR {
	out := JWR{Headers: map[string]string{}, StatusCode: r.status}
	for name, vals := range r.header {
		switch strings.ToLower(name) {
		case "set-cookie":
			st.mu.Lock()
			st.cookie = SetCookies(st.cookie, vals, time.Now())
			st.mu.Unlock()
			continue
		case "content-length", "content-type":
			continue
		}
		out.Headers[strings.ToLower(name)] = strings.Join(vals, ", ")
	}
	b := r.body.Bytes()
	switch {
	case len(b) == 0:
	case strings.Contains(r.header.Get("Content-Type"), "json") && json.Valid(b):
		out.Body = b
	default:
		out.Body, _ = json.Marshal(string(b))
	}
	return out
}

// SetCookies returns the Cookie header header becomes once a response's
// Set-Cookie values are applied, as a browser applies them: a cookie
// replaces the one of the same name, or is added; an expired one (Max-Age
// below zero, or Expires before now) is removed. Other cookies are kept
// byte for byte; malformed Set-Cookie values are ignored. Path and Domain
// are not considered: every cookie goes with every request of the socket,
// as the handshake's did. Sails keeps only
// the first cookie set on a socket whose handshake had none, so a session
// the handshake cookie does not name, or one renewed at login, is lost on
// the socket's next request; applying every Set-Cookie keeps it.
func SetCookies(header string, setCookies []string, now time.Time) string {
	if len(setCookies) == 0 {
		return header
	}
	var parts []string
	for p := range strings.SplitSeq(header, ";") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	for _, line := range setCookies {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		expired := c.MaxAge < 0 || (!c.Expires.IsZero() && c.Expires.Before(now))
		kept := parts[:0]
		for _, p := range parts {
			if name, _, _ := strings.Cut(p, "="); strings.TrimSpace(name) != c.Name {
				kept = append(kept, p)
			}
		}
		parts = kept
		if !expired {
			v := c.Value
			if c.Quoted {
				v = `"` + v + `"`
			}
			parts = append(parts, c.Name+"="+v)
		}
	}
	return strings.Join(parts, "; ")
}
