package skifftest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/sockettest"
)

// waitTimeout bounds one request or one barrier; it only ends a hung
// test, it measures nothing.
const waitTimeout = 30 * time.Second

// RunCorpus runs every case file matching pattern (filepath.Glob, e.g.
// "testdata/conformance/*.txtar") as a subtest named after the file, with
// a subtest per transport: "http" sends the requests over HTTP, "socket"
// as sails.io.js virtual requests over a socket. open returns the Options
// of the app folder a case names, on empty datastores: it is called once
// per case and transport (skifftest.Load with a fresh database URL in its
// environ is the usual body), so every run starts from empty tables.
// The package doc describes the file format.
func RunCorpus(t *testing.T, pattern string, open func(t *testing.T, appDir string) skiff.Options) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("skifftest: corpus %s: %v", pattern, err)
	}
	if len(files) == 0 {
		t.Fatalf("skifftest: corpus %s: no files", pattern)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		t.Run(name, func(t *testing.T) {
			c, err := readCase(file)
			if err != nil {
				t.Fatalf("skifftest: %v", err)
			}
			for _, transport := range []string{"http", "socket"} {
				t.Run(transport, func(t *testing.T) {
					_, srv := Serve(t, open(t, c.App))
					r := newCaseRun(t, file, srv, transport == "socket")
					r.run(c)
				})
			}
		})
	}
}

// caseRun is one run of a case over one transport.
type caseRun struct {
	t    *testing.T
	file string
	srv  *httptest.Server
	http *http.Client
	// self is the socket under test in a socket run, else nil.
	self    *sockettest.Client
	sockets map[string]*sockettest.Client
	names   []string // of sockets, in the case's order
	vars    map[string]string
}

func newCaseRun(t *testing.T, file string, srv *httptest.Server, overSocket bool) *caseRun {
	jar, _ := cookiejar.New(nil)
	client := srv.Client()
	client.Jar = jar
	r := &caseRun{t: t, file: file, srv: srv, http: client, sockets: map[string]*sockettest.Client{}, vars: map[string]string{}}
	if overSocket {
		// As sails.io.js 1.x connects (socket.io-client 2, Engine.IO 3);
		// watching sockets use Engine.IO 4, so both protocols run.
		r.self = r.dial("the socket under test", 3)
	}
	return r
}

func (r *caseRun) dial(name string, eio int) *sockettest.Client {
	ctx, cancel := context.WithTimeout(r.t.Context(), waitTimeout)
	defer cancel()
	c, err := sockettest.Dial(ctx, r.srv.URL, sockettest.Options{EIO: eio})
	if err != nil {
		r.t.Fatalf("skifftest: connect %s: %v", name, err)
	}
	r.t.Cleanup(func() { _ = c.Close() })
	return c
}

// answer is a response, whatever carried it.
type answer struct {
	status int
	header http.Header
	// body is the JSON body, nil for a text one. text is the text body,
	// or over a socket the string a JSON string body holds: a socket
	// sends a text answer so.
	body []byte
	text *string
	// socket is set when a socket carried it.
	socket bool
}

func (r *caseRun) run(c *caseFile) {
	for _, name := range c.Sockets {
		r.sockets[name] = r.dial("socket "+name, 4)
	}
	r.names = c.Sockets
	// A socket is registered with the hub just after it is told it is
	// connected, and answered only once registered: one barrier each
	// makes sure every socket can hear the first step.
	r.checkEvents(filepath.Base(r.file)+": on connecting", step{})
	if r.self != nil {
		r.barrier("on connecting", "under test", r.self)
	}
	for i := range c.Steps {
		s := r.expand(c.Steps[i])
		where := fmt.Sprintf("%s:%d: %s %s", filepath.Base(r.file), s.Line, s.Method, s.Path)
		a, err := r.send(s)
		if err != nil {
			r.t.Fatalf("%s: %v", where, err)
		}
		if a.status != s.Status {
			r.t.Fatalf("%s: status %d, want %d; body %s", where, a.status, s.Status, a.show())
		}
		if s.Save != "" {
			// Before the checks: the step's own expectations may name it.
			r.save(where, s.Save, a)
			s = r.expand(c.Steps[i])
		}
		r.checkHeader(where, s, a)
		r.checkBody(where, s.Want, a)
		r.checkEvents(where, s)
	}
}

// varRE matches a {name} reference to a saved id.
var varRE = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces {name} by the ids saved so far.
func (r *caseRun) expand(s step) step {
	sub := func(in string) string {
		return varRE.ReplaceAllStringFunc(in, func(m string) string {
			if v, ok := r.vars[m[1:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	subBytes := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		return []byte(sub(string(b)))
	}
	s.Path = sub(s.Path)
	s.Body = subBytes(s.Body)
	s.Want = subBytes(s.Want)
	h := http.Header{}
	for k, vs := range s.Header {
		for _, v := range vs {
			h.Add(k, sub(v))
		}
	}
	s.Header = h
	events := make([]event, len(s.Events))
	for i, e := range s.Events {
		e.Want = subBytes(e.Want)
		events[i] = e
	}
	s.Events = events
	return s
}

// send sends the step's request over the transport it names. In a socket
// run a request that a sails.io.js socket cannot carry goes over HTTP
// (with the HTTP client's cookies): its data is always JSON (the server
// reads it as application/json).
func (r *caseRun) send(s step) (answer, error) {
	switch {
	case s.Via != "":
		return r.sendSocket(r.sockets[s.Via], s)
	case r.self != nil && socketCarries(s):
		a, err := r.sendSocket(r.self, s)
		r.drain(r.self)
		return a, err
	}
	return r.sendHTTP(s)
}

// socketCarries reports whether a virtual request can carry s: its body,
// if any, is JSON and its Content-Type, if set, says so; and it is not a
// conditional request, since answers over sockets carry no ETag.
func socketCarries(s step) bool {
	if s.Header.Get("If-None-Match") != "" || s.Header.Get("If-Modified-Since") != "" {
		return false
	}
	if ct := s.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	return s.Body == nil || json.Valid(s.Body)
}

func (r *caseRun) sendHTTP(s step) (answer, error) {
	var body io.Reader
	if s.Body != nil {
		body = bytes.NewReader(s.Body)
	}
	ctx, cancel := context.WithTimeout(r.t.Context(), waitTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, s.Method, r.srv.URL+s.Path, body)
	if err != nil {
		return answer{}, err
	}
	for k, vs := range s.Header {
		req.Header[k] = vs
	}
	if s.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("read the answer: %w", err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: raw}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); len(raw) > 0 && !strings.HasSuffix(mt, "json") {
		text := string(raw)
		a.text, a.body = &text, nil
	}
	return a, nil
}

func (r *caseRun) sendSocket(c *sockettest.Client, s step) (answer, error) {
	var data any
	if s.Body != nil {
		data = json.RawMessage(s.Body)
	}
	ctx, cancel := context.WithTimeout(r.t.Context(), waitTimeout)
	defer cancel()
	jwr, err := c.RequestWithHeaders(ctx, s.Method, s.Path, data, flatten(s.Header))
	if err != nil {
		return answer{}, err
	}
	a := answer{status: jwr.StatusCode, header: http.Header{}, body: jwr.Body, socket: true}
	for k, v := range jwr.Headers {
		a.header.Set(k, v)
	}
	var text string
	if len(jwr.Body) > 0 && jwr.Body[0] == '"' && json.Unmarshal(jwr.Body, &text) == nil {
		a.text = &text
	}
	return a, nil
}

func flatten(h http.Header) map[string]string {
	out := map[string]string{}
	for k := range h {
		out[k] = h.Get(k)
	}
	return out
}

// socketHidden reports whether a virtual request's answer never carries
// the header k, so that an expectation of it holds over HTTP only: the
// body is in the ack itself, cookies stay with the server's side of the
// socket, and ETags and CORS are HTTP's (docs/differences.md).
func socketHidden(k string) bool {
	switch k {
	case "Content-Type", "Content-Length", "Set-Cookie", "Etag", "Vary":
		return true
	}
	return strings.HasPrefix(k, "Access-Control-")
}

func (r *caseRun) checkHeader(where string, s step, a answer) {
	for k, want := range s.WantHeader {
		k = http.CanonicalHeaderKey(k)
		if a.socket && socketHidden(k) {
			continue
		}
		if got := a.header.Values(k); strings.Join(got, ", ") != strings.Join(want, ", ") {
			r.t.Errorf("%s: header %s = %q, want %q", where, k, got, want)
		}
	}
}

func (r *caseRun) checkBody(where string, want []byte, a answer) {
	if want == nil {
		return
	}
	if !looksJSON(want) {
		if a.text == nil || *a.text != string(want) {
			r.t.Errorf("%s: body %s, want the text %q", where, a.show(), want)
		}
		return
	}
	if a.body == nil {
		r.t.Errorf("%s: body %s, want JSON %s", where, a.show(), want)
		return
	}
	r.compare(where+": answer", want, a.body)
}

// looksJSON reports whether an expected body is meant as JSON rather than
// text: it starts as a JSON value does. (A {name} never saved leaves it
// invalid, which must fail as such, not compare as text.)
func looksJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return false
	case strings.ContainsRune("{[\"-0123456789", rune(b[0])):
		return true
	}
	s := string(b)
	return s == "true" || s == "false" || s == "null"
}

func (r *caseRun) compare(where string, want, got []byte) {
	diffs, err := MatchJSON(want, got)
	if err != nil {
		r.t.Errorf("%s: %v", where, err)
		return
	}
	if len(diffs) > 0 {
		r.t.Errorf("%s:\n\t%s\ngot %s", where, strings.Join(diffs, "\n\t"), got)
	}
}

func (r *caseRun) save(where, name string, a answer) {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(a.body, &v); err != nil || len(v.ID) == 0 {
		r.t.Fatalf("%s: save %s: the answer has no id: %s", where, name, a.show())
	}
	id := string(v.ID)
	var s string
	if json.Unmarshal(v.ID, &s) == nil {
		id = s
	}
	r.vars[name] = id
}

// checkEvents compares what each watching socket received since the
// previous step with what the step lists for it. A socket's events are
// collected up to the answer of a barrier request it sends after the
// step: the server queues a notification on the socket before it answers
// the request that caused it, and sends in order.
func (r *caseRun) checkEvents(where string, s step) {
	for _, name := range r.names {
		c := r.sockets[name]
		got := r.barrier(where, name, c)
		var want []event
		for _, e := range s.Events {
			if e.Socket == name {
				want = append(want, e)
			}
		}
		for i := 0; i < max(len(got), len(want)); i++ {
			switch {
			case i >= len(want):
				r.t.Errorf("%s: socket %s got an unexpected %q event: %s", where, name, got[i].Name, got[i].Data)
			case i >= len(got):
				r.t.Errorf("%s: socket %s got no %q event", where, name, want[i].Name)
			case got[i].Name != want[i].Name:
				r.t.Errorf("%s: socket %s got a %q event, want %q: %s", where, name, got[i].Name, want[i].Name, got[i].Data)
			case want[i].Want != nil:
				r.compare(fmt.Sprintf("%s: socket %s event %q", where, name, want[i].Name), want[i].Want, got[i].Data)
			}
		}
	}
}

// barrier returns the events c received before the answer to a virtual
// request with no url, which the server refuses without running any
// handler.
func (r *caseRun) barrier(where, name string, c *sockettest.Client) []sockettest.Event {
	ctx, cancel := context.WithTimeout(r.t.Context(), waitTimeout)
	defer cancel()
	if _, err := c.Ack(ctx, "get", map[string]any{"method": "get", "headers": map[string]any{}}); err != nil {
		r.t.Fatalf("%s: socket %s: %v", where, name, err)
	}
	return r.drain(c)
}

// drain returns the events c has received and not yet read.
func (r *caseRun) drain(c *sockettest.Client) []sockettest.Event {
	var out []sockettest.Event
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

func (a answer) show() string {
	if a.body == nil && a.text != nil {
		return fmt.Sprintf("%q", *a.text)
	}
	return cut(a.body)
}
