package skiff_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// The acceptance tests in this file drive Skiff with the real socket.io
// clients from npm: sails.io.js 1.2.1 on socket.io-client 2.5.0 (Engine.IO
// v3) and socket.io-client 4 (Engine.IO v4). testdata/node/driver.js runs a
// scenario written here and reports, step by step, the answer and the
// events every client received; the expectations live here. Enable them
// with `npm ci --prefix testdata/node`.

const nodeDir = "testdata/node"

// nodeStep is one request of a scenario: over a client's socket, or over
// HTTP. The exported fields are what driver.js reads; the others are
// checked here.
type nodeStep struct {
	Client   string            `json:"client,omitempty"`
	HTTP     bool              `json:"http,omitempty"`
	Method   string            `json:"method,omitempty"`
	URL      string            `json:"url,omitempty"`
	Data     any               `json:"data,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Emit     string            `json:"emit,omitempty"`
	Envelope any               `json:"envelope,omitempty"`
	Save     string            `json:"save,omitempty"`
	// Heartbeats makes the client wait for that many ping/pong exchanges
	// before the request.
	Heartbeats int `json:"heartbeats,omitempty"`
	// Repeat sends that many copies of the request at once, "#" in their
	// data replaced by the copy's number.
	Repeat int `json:"repeat,omitempty"`

	status int                 // the status the answer must have
	want   map[string][]string // the events each client must receive; the others none
	check  func(t *testing.T, a nodeAck)
	// checkEvents replaces want where the ids cannot be known in advance.
	checkEvents func(t *testing.T, client string, got []nodeEvent)
}

// sock is a virtual request from a client's socket; web is an HTTP request.
func sock(client, method, path string, data any) nodeStep {
	return nodeStep{Client: client, Method: method, URL: path, Data: data, status: 200}
}

func web(method, path string, data any) nodeStep {
	return nodeStep{HTTP: true, Method: method, URL: path, Data: data, status: 200}
}

func (s nodeStep) saves(name string) nodeStep { s.Save = name; return s }

func (s nodeStep) answers(status int) nodeStep { s.status = status; return s }

func (s nodeStep) checks(f func(*testing.T, nodeAck)) nodeStep { s.check = f; return s }

func (s nodeStep) sends(want map[string][]string) nodeStep { s.want = want; return s }

// Notification messages as the seed's Events section shapes them, written
// with placeholders ({u1}) for the ids the scenario saved.
func created(identity, id, data string) string {
	return identity + ` {"verb":"created","id":` + id + `,"data":` + data + `}`
}

func updated(identity, id, data, previous string) string {
	return identity + ` {"verb":"updated","id":` + id + `,"data":` + data + `,"previous":` + previous + `}`
}

// keySet is the updated message the singular side of a link gets.
func keySet(identity, id, attr, key string) string {
	return identity + ` {"verb":"updated","id":` + id + `,"data":{"` + attr + `":` + key + `}}`
}

func destroyed(identity, id, previous string) string {
	return identity + ` {"verb":"destroyed","id":` + id + `,"previous":` + previous + `}`
}

func addedTo(identity, id, attr string, ids ...string) string {
	return identity + ` {"id":` + id + `,"verb":"addedTo","attribute":"` + attr + `","addedIds":[` + strings.Join(ids, ",") + `]}`
}

func removedFrom(identity, id, attr string, ids ...string) string {
	return identity + ` {"id":` + id + `,"verb":"removedFrom","attribute":"` + attr + `","removedIds":[` + strings.Join(ids, ",") + `]}`
}

// nodeAck is a step's answer as driver.js reports it: jwr (and the
// callback's body) from sails.io.js, raw from socket.io-client 4, http
// for HTTP requests.
type nodeAck struct {
	Body json.RawMessage `json:"body"`
	JWR  *struct {
		Body       json.RawMessage `json:"body"`
		Headers    map[string]any  `json:"headers"`
		StatusCode int             `json:"statusCode"`
		Error      *string         `json:"error"`
	} `json:"jwr"`
	Raw json.RawMessage `json:"raw"`
	// Statuses are those of every copy of a repeated request.
	Statuses []int `json:"statuses"`
	HTTP     *struct {
		StatusCode int             `json:"statusCode"`
		Body       json.RawMessage `json:"body"`
	} `json:"http"`
}

// status and body read the answer, whichever client gave it.
func (a nodeAck) status() int {
	switch {
	case a.HTTP != nil:
		return a.HTTP.StatusCode
	case a.JWR != nil:
		return a.JWR.StatusCode
	}
	var raw struct{ StatusCode int }
	_ = json.Unmarshal(a.Raw, &raw)
	return raw.StatusCode
}

func (a nodeAck) body() json.RawMessage {
	switch {
	case a.HTTP != nil:
		return a.HTTP.Body
	case a.JWR != nil:
		return a.JWR.Body
	}
	var raw struct{ Body json.RawMessage }
	_ = json.Unmarshal(a.Raw, &raw)
	return raw.Body
}

// checkAckShape checks what every socket answer must look like: the JWR
// {body, headers, statusCode} on the wire, and for sails.io.js an error
// exactly when the status is not a success.
func checkAckShape(t *testing.T, a nodeAck) {
	t.Helper()
	switch {
	case a.JWR != nil:
		if failed := a.JWR.StatusCode < 200 || a.JWR.StatusCode >= 400; failed != (a.JWR.Error != nil) {
			t.Errorf("sails.io.js jwr.error = %v for status %d", a.JWR.Error, a.JWR.StatusCode)
		}
		if a.JWR.Headers == nil {
			t.Errorf("sails.io.js jwr.headers missing")
		}
		if !jsonSame(a.Body, a.JWR.Body) {
			t.Errorf("sails.io.js callback body %s, jwr.body %s", a.Body, a.JWR.Body)
		}
	case a.Raw != nil:
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(a.Raw, &raw); err != nil {
			t.Fatalf("ack %s is not an object: %v", a.Raw, err)
		}
		for k := range raw {
			if k != "body" && k != "headers" && k != "statusCode" {
				t.Errorf("ack %s has key %q; want only body, headers, statusCode", a.Raw, k)
			}
		}
		var shape struct {
			Headers    *map[string]string
			StatusCode *int
		}
		if err := json.Unmarshal(a.Raw, &shape); err != nil || shape.Headers == nil || shape.StatusCode == nil {
			t.Errorf("ack %s: want headers (an object of strings) and statusCode (a number) (%v)", a.Raw, err)
		}
	}
}

func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	return jsonEqual(x, y)
}

// nodeEvent is one event a client received.
type nodeEvent struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// nodeLine is one line of driver.js's output.
type nodeLine struct {
	Type    string                     `json:"type"`
	I       int                        `json:"i"`
	Message string                     `json:"message"`
	Ack     nodeAck                    `json:"ack"`
	Saved   map[string]json.RawMessage `json:"saved"`
	Events  map[string][]nodeEvent     `json:"events"`
}

// nodeScenario is what driver.js reads on stdin.
type nodeScenario struct {
	Clients map[string]nodeClient `json:"clients"`
	Events  []string              `json:"events"`
	Steps   []nodeStep            `json:"steps"`
}

// nodeClient names a client's stack: "sails" (sails.io.js on
// socket.io-client 2, EIO=3) or "v4" (socket.io-client 4, EIO=4); query
// replaces the SDK query a v4 client sends.
type nodeClient struct {
	Stack string            `json:"stack"`
	Query map[string]string `json:"query,omitempty"`
	// CookieFrom is a path the client GETs over HTTP before connecting,
	// sending the session cookie it sets with the handshake; Save names
	// the _csrf token of that answer, for the steps' headers.
	CookieFrom string `json:"cookieFrom,omitempty"`
	Save       string `json:"save,omitempty"`
}

// runNode runs the scenario with driver.js against the app and checks
// every step's answer and the events of every client.
func runNode(t *testing.T, a *liveApp, sc nodeScenario) {
	t.Helper()
	node := testenv.Node(t, nodeDir)
	input, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "driver.js", a.srv.URL)
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()

	ids := map[string]string{}
	stepsSeen, done := 0, false
	lines := bufio.NewScanner(&stdout)
	lines.Buffer(nil, 1<<24)
	for lines.Scan() {
		var l nodeLine
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			t.Fatalf("driver.js printed %q: %v", lines.Text(), err)
		}
		switch l.Type {
		case "error":
			t.Fatalf("driver.js failed at step %d: %s\nstderr: %s", stepsSeen, l.Message, stderr.String())
		case "done":
			done = true
		case "step":
			for k, v := range l.Saved {
				ids[k] = string(v)
			}
			checkNodeStep(t, sc, l, ids)
			stepsSeen++
		}
	}
	if runErr != nil || !done || stepsSeen != len(sc.Steps) {
		t.Fatalf("driver.js: %v after %d of %d steps (done %v)\nstderr: %s", runErr, stepsSeen, len(sc.Steps), done, stderr.String())
	}
}

func checkNodeStep(t *testing.T, sc nodeScenario, l nodeLine, ids map[string]string) {
	t.Helper()
	s := sc.Steps[l.I]
	who := s.Client
	if s.HTTP {
		who = "HTTP"
	}
	what := fmt.Sprintf("step %d (%s %s %s)", l.I, who, strings.ToUpper(s.Method+s.Emit), s.URL)
	if got := l.Ack.status(); got != s.status {
		t.Errorf("%s: status %d, want %d: %s", what, got, s.status, l.Ack.body())
	}
	if !s.HTTP {
		checkAckShape(t, l.Ack)
	}
	if s.Repeat > 0 && (len(l.Ack.Statuses) != s.Repeat || slices.ContainsFunc(l.Ack.Statuses, func(c int) bool { return c != s.status })) {
		t.Errorf("%s: statuses %v, want %d × %d", what, l.Ack.Statuses, s.Repeat, s.status)
	}
	if s.check != nil {
		s.check(t, l.Ack)
	}
	for name := range sc.Clients {
		if s.checkEvents != nil {
			s.checkEvents(t, name, l.Events[name])
			continue
		}
		var got, want []string
		for _, ev := range l.Events[name] {
			got = append(got, ev.Event+" "+canonicalEvent(t, ev.Data))
		}
		for _, w := range s.want[name] {
			event, data, _ := strings.Cut(withIDs(t, w, ids), " ")
			want = append(want, event+" "+canonicalEvent(t, json.RawMessage(data)))
		}
		// The seed fixes which messages are sent, not their order.
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s (%s) received:\n  %s\nwant:\n  %s", what, name, sc.Clients[name].Stack,
				strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	for name := range s.want {
		if _, ok := sc.Clients[name]; !ok {
			t.Fatalf("%s: expectations for unknown client %s", what, name)
		}
	}
}

var placeholder = regexp.MustCompile(`\{(\w+)\}`)

// withIDs replaces the placeholders of a wanted message with saved ids.
func withIDs(t *testing.T, s string, ids map[string]string) string {
	t.Helper()
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		id, ok := ids[p[1:len(p)-1]]
		if !ok {
			t.Fatalf("no id saved as %s (in %s)", p, s)
		}
		return id
	})
}

// canonicalEvent renders a message with sorted keys, without timestamps,
// and with addedIds / removedIds sorted (the seed does not order them).
func canonicalEvent(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return canonical(t, raw)
	}
	for _, k := range []string{"addedIds", "removedIds"} {
		if ids, ok := v[k].([]any); ok {
			slices.SortFunc(ids, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		}
	}
	b, _ := json.Marshal(v)
	return canonical(t, b)
}

// TestNodeClients walks the seed's emission table and subscription rules
// with real clients: W watches every model, R has the same subscriptions
// and makes the requests (so it would receive everything W does, were it
// not excluded from its own notifications), S is subscribed to two
// records only, Z watches tags through a find that returned nothing.
func TestNodeClients(t *testing.T) {
	for _, stacks := range []struct{ name, w, r, s, z string }{
		{"sails.io.js", "sails", "sails", "sails", "sails"},
		{"socket.io-client4", "v4", "v4", "v4", "v4"},
		{"mixed", "sails", "v4", "v4", "sails"},
	} {
		t.Run(stacks.name, func(t *testing.T) {
			testenv.Node(t, nodeDir)
			a := startLive(t, "testdata/apps/basic", map[string]string{"SKIFF_DATASTORES__DEFAULT__URL": t.TempDir() + "/db"})
			runNode(t, a, nodeScenario{
				Clients: map[string]nodeClient{"W": {Stack: stacks.w}, "R": {Stack: stacks.r}, "S": {Stack: stacks.s}, "Z": {Stack: stacks.z}},
				Events:  []string{"user", "pet", "tag", "message"},
				Steps:   emissionScenario(),
			})
		})
	}
}

// emissionScenario is the scenario of TestNodeClients. The comments track
// what each collection holds.
func emissionScenario() []nodeStep {
	// Full records as they appear in data and previous (timestamps are
	// dropped before comparing; password is omitted by customToJSON).
	user := func(id, name string, age string) string {
		return `{"id":` + id + `,"name":"` + name + `","email":"` + name + `@x.io","age":` + age + `,"active":true,"meta":null}`
	}
	pet := func(id, name, owner string) string {
		return `{"id":` + id + `,"name":"` + name + `","owner":` + owner + `}`
	}
	tag := func(id, label string) string { return `{"id":` + id + `,"label":"` + label + `"}` }
	ids := func(v ...string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	noneTag := "/tag?where=" + url.QueryEscape(`{"label":"none"}`)
	return []nodeStep{
		// Records made over HTTP before anyone listens.
		web("post", "/user", map[string]any{"name": "ann", "email": "ann@x.io", "password": "secret"}).saves("u1"),
		web("post", "/user", map[string]any{"name": "bob", "email": "bob@x.io"}).saves("u2"),
		web("post", "/pet", map[string]any{"name": "rex", "owner": "{u1}"}).saves("p1"),
		web("post", "/pet", map[string]any{"name": "fido", "owner": "{u2}"}).saves("p2"),
		web("post", "/pet", map[string]any{"name": "tom"}).saves("p3"),
		web("post", "/tag", map[string]any{"label": "red"}).saves("t1"),
		web("post", "/tag", map[string]any{"label": "blue"}).saves("t2"),
		web("put", "/tag/{t1}/pets/{p1}", nil),
		// u1 [p1], u2 [p2]; t1 [p1], t2 [].

		// Subscription rule 1: a find over the socket watches the model
		// (and subscribes to what it returned); reads send nothing.
		sock("W", "get", "/user", nil), sock("W", "get", "/pet", nil), sock("W", "get", "/tag", nil),
		sock("R", "get", "/user", nil), sock("R", "get", "/pet", nil), sock("R", "get", "/tag", nil),
		sock("S", "get", "/pet/{p3}?populate=false", nil), sock("S", "get", "/tag/{t2}?populate=false", nil),
		sock("Z", "get", noneTag, nil),

		// Create: created to the watchers, never to the requester.
		sock("R", "post", "/user", map[string]any{"name": "cy", "email": "cy@x.io", "password": "pw"}).saves("u3").sends(map[string][]string{
			"W": {created("user", "{u3}", user("{u3}", "cy", "null"))},
		}),
		// The exclusion holds the other way round too.
		sock("W", "patch", "/user/{u3}", map[string]any{"age": 5}).sends(map[string][]string{
			"R": {updated("user", "{u3}", `{"id":{u3},"age":5}`, user("{u3}", "cy", "null"))},
		}),
		// A find that returned nothing still watches (Z); rule 3: the
		// socket that created a record is subscribed to it (S) ...
		sock("S", "post", "/tag", map[string]any{"label": "green"}).saves("t3").sends(map[string][]string{
			"W": {created("tag", "{t3}", tag("{t3}", "green"))},
			"R": {created("tag", "{t3}", tag("{t3}", "green"))},
			"Z": {created("tag", "{t3}", tag("{t3}", "green"))},
		}),
		// ... and rule 2: watchers are subscribed to records created later.
		// An HTTP request excludes nobody.
		web("patch", "/tag/{t3}", map[string]any{"label": "lime"}).sends(map[string][]string{
			"W": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, tag("{t3}", "green"))},
			"R": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, tag("{t3}", "green"))},
			"S": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, tag("{t3}", "green"))},
			"Z": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, tag("{t3}", "green"))},
		}),

		// Create with a singular key: the parent gains a member.
		sock("R", "post", "/pet", map[string]any{"name": "max", "owner": "{u1}"}).saves("p4").sends(map[string][]string{
			"W": {addedTo("user", "{u1}", "pets", "{p4}"), created("pet", "{p4}", pet("{p4}", "max", "{u1}"))},
		}),
		// u1 [p1 p4]
		// Create with plural ids, one-to-many: each child gets updated
		// (singular via), and the parent p2 was taken from gets removedFrom.
		sock("R", "post", "/user", map[string]any{"name": "dee", "email": "dee@x.io", "pets": ids("{p2}", "{p3}")}).saves("u4").sends(map[string][]string{
			"W": {
				keySet("pet", "{p2}", "owner", "{u4}"), keySet("pet", "{p3}", "owner", "{u4}"),
				removedFrom("user", "{u2}", "pets", "{p2}"),
				created("user", "{u4}", user("{u4}", "dee", "null")),
			},
			"S": {keySet("pet", "{p3}", "owner", "{u4}")},
		}),
		// u1 [p1 p4], u2 [], u4 [p2 p3]
		// Create with plural ids, many-to-many: each child gets addedTo.
		sock("R", "post", "/pet", map[string]any{"name": "pip", "tags": ids("{t1}", "{t2}")}).saves("p5").sends(map[string][]string{
			"W": {
				addedTo("tag", "{t1}", "pets", "{p5}"), addedTo("tag", "{t2}", "pets", "{p5}"),
				created("pet", "{p5}", pet("{p5}", "pip", "null")),
			},
			"S": {addedTo("tag", "{t2}", "pets", "{p5}")},
		}),
		// t1 [p1 p5], t2 [p5]

		// Update: updated with previous to the record's subscribers.
		sock("R", "patch", "/pet/{p1}", map[string]any{"name": "rex2"}).sends(map[string][]string{
			"W": {updated("pet", "{p1}", `{"id":{p1},"name":"rex2"}`, pet("{p1}", "rex", "{u1}"))},
		}),
		// Update moving a key: the old parent loses, the new one gains.
		sock("R", "patch", "/pet/{p3}", map[string]any{"owner": "{u1}"}).sends(map[string][]string{
			"W": {
				removedFrom("user", "{u4}", "pets", "{p3}"), addedTo("user", "{u1}", "pets", "{p3}"),
				updated("pet", "{p3}", `{"id":{p3},"owner":{u1}}`, pet("{p3}", "tom", "{u4}")),
			},
			"S": {updated("pet", "{p3}", `{"id":{p3},"owner":{u1}}`, pet("{p3}", "tom", "{u4}"))},
		}),
		// u1 [p1 p4 p3], u4 [p2]

		// Add, one-to-many, taking the child from another parent.
		sock("R", "put", "/user/{u2}/pets/{p3}", nil).sends(map[string][]string{
			"W": {
				addedTo("user", "{u2}", "pets", "{p3}"), keySet("pet", "{p3}", "owner", "{u2}"),
				removedFrom("user", "{u1}", "pets", "{p3}"),
			},
			"S": {keySet("pet", "{p3}", "owner", "{u2}")},
		}),
		// u1 [p1 p4], u2 [p3], u4 [p2]
		// Add, many-to-many: addedTo on both sides.
		sock("R", "put", "/pet/{p1}/tags/{t2}", nil).sends(map[string][]string{
			"W": {addedTo("pet", "{p1}", "tags", "{t2}"), addedTo("tag", "{t2}", "pets", "{p1}")},
			"S": {addedTo("tag", "{t2}", "pets", "{p1}")},
		}),
		// t1 [p1 p5], t2 [p5 p1]

		// Replace, one-to-many: one addedTo and one removedFrom for the
		// parent (p4 stays: in neither), updated for each child, and
		// removedFrom for the two parents children were taken from.
		sock("R", "put", "/user/{u1}/pets", ids("{p4}", "{p2}", "{p3}")).sends(map[string][]string{
			"W": {
				addedTo("user", "{u1}", "pets", "{p2}", "{p3}"), removedFrom("user", "{u1}", "pets", "{p1}"),
				keySet("pet", "{p2}", "owner", "{u1}"), keySet("pet", "{p3}", "owner", "{u1}"), keySet("pet", "{p1}", "owner", "null"),
				removedFrom("user", "{u4}", "pets", "{p2}"), removedFrom("user", "{u2}", "pets", "{p3}"),
			},
			"S": {keySet("pet", "{p3}", "owner", "{u1}")},
		}),
		// u1 [p4 p2 p3], u2 [], u4 []
		// Replace, many-to-many (p1 stays).
		sock("R", "put", "/tag/{t2}/pets", ids("{p1}", "{p2}")).sends(map[string][]string{
			"W": {
				addedTo("tag", "{t2}", "pets", "{p2}"), removedFrom("tag", "{t2}", "pets", "{p5}"),
				addedTo("pet", "{p2}", "tags", "{t2}"), removedFrom("pet", "{p5}", "tags", "{t2}"),
			},
			"S": {addedTo("tag", "{t2}", "pets", "{p2}"), removedFrom("tag", "{t2}", "pets", "{p5}")},
		}),
		// t1 [p1 p5], t2 [p1 p2]
		// Replace from the other side, removing two members at once.
		sock("R", "put", "/pet/{p1}/tags", ids("{t3}")).sends(map[string][]string{
			"W": {
				addedTo("pet", "{p1}", "tags", "{t3}"), removedFrom("pet", "{p1}", "tags", "{t1}", "{t2}"),
				addedTo("tag", "{t3}", "pets", "{p1}"), removedFrom("tag", "{t1}", "pets", "{p1}"), removedFrom("tag", "{t2}", "pets", "{p1}"),
			},
			"S": {addedTo("tag", "{t3}", "pets", "{p1}"), removedFrom("tag", "{t2}", "pets", "{p1}")},
			"Z": {addedTo("tag", "{t3}", "pets", "{p1}")},
		}),
		// t1 [p5], t2 [p2], t3 [p1]

		// Remove, one-to-many and many-to-many.
		sock("R", "delete", "/user/{u1}/pets/{p3}", nil).sends(map[string][]string{
			"W": {removedFrom("user", "{u1}", "pets", "{p3}"), keySet("pet", "{p3}", "owner", "null")},
			"S": {keySet("pet", "{p3}", "owner", "null")},
		}),
		sock("R", "delete", "/tag/{t2}/pets/{p2}", nil).sends(map[string][]string{
			"W": {removedFrom("tag", "{t2}", "pets", "{p2}"), removedFrom("pet", "{p2}", "tags", "{t2}")},
			"S": {removedFrom("tag", "{t2}", "pets", "{p2}")},
		}),
		// u1 [p4 p2], t2 []

		// Nothing changed, nothing sent (over a socket and over HTTP).
		sock("R", "delete", "/user/{u1}/pets/{p3}", nil),
		sock("R", "put", "/user/{u1}/pets/{p2}", nil),
		sock("R", "put", "/user/{u1}/pets", ids("{p2}", "{p4}")),
		sock("R", "put", "/tag/{t2}/pets", ids()),
		web("put", "/tag/{t1}/pets", ids("{p5}")),
		web("delete", "/pet/{p5}/tags/{t2}", nil),

		// An HTTP add reaches every subscriber, the requester's included.
		web("put", "/pet/{p3}/tags/{t2}", nil).sends(map[string][]string{
			"W": {addedTo("pet", "{p3}", "tags", "{t2}"), addedTo("tag", "{t2}", "pets", "{p3}")},
			"R": {addedTo("pet", "{p3}", "tags", "{t2}"), addedTo("tag", "{t2}", "pets", "{p3}")},
			"S": {addedTo("pet", "{p3}", "tags", "{t2}"), addedTo("tag", "{t2}", "pets", "{p3}")},
		}),
		// t2 [p3]

		// Destroy: destroyed with previous, and the other sides learn it.
		sock("R", "delete", "/pet/{p3}", nil).sends(map[string][]string{
			"W": {destroyed("pet", "{p3}", pet("{p3}", "tom", "null")), removedFrom("tag", "{t2}", "pets", "{p3}")},
			"S": {destroyed("pet", "{p3}", pet("{p3}", "tom", "null")), removedFrom("tag", "{t2}", "pets", "{p3}")},
		}),
		// p3's join row is left behind (no cascadeOnDestroy, as in Sails);
		// a replace drops it without telling t2's subscribers again.
		web("put", "/tag/{t2}/pets", ids()).sends(nil),
		sock("R", "delete", "/user/{u1}", nil).sends(map[string][]string{
			"W": {
				destroyed("user", "{u1}", user("{u1}", "ann", "null")),
				keySet("pet", "{p4}", "owner", "null"), keySet("pet", "{p2}", "owner", "null"),
			},
		}),
		sock("R", "delete", "/tag/{t1}", nil).sends(map[string][]string{
			"W": {destroyed("tag", "{t1}", tag("{t1}", "red")), removedFrom("pet", "{p5}", "tags", "{t1}")},
		}),

		// Twenty creates at once over one socket: every one answered, and
		// each watcher told of each new tag exactly once.
		{Client: "R", Method: "post", URL: "/tag", Data: map[string]any{"label": "burst-#"}, Repeat: 20, status: 200,
			checkEvents: func(t *testing.T, client string, got []nodeEvent) {
				want := 0
				if client == "W" || client == "Z" {
					want = 20
				}
				labels := map[string]bool{}
				ids := map[float64]bool{}
				for _, ev := range got {
					var msg struct {
						Verb string
						ID   float64
						Data struct {
							ID    float64
							Label string
						}
					}
					if err := json.Unmarshal(ev.Data, &msg); err != nil || ev.Event != "tag" || msg.Verb != "created" || msg.ID != msg.Data.ID {
						t.Errorf("burst: %s received %s %s", client, ev.Event, ev.Data)
					}
					labels[msg.Data.Label], ids[msg.ID] = true, true
				}
				if len(got) != want || len(labels) != want || len(ids) != want {
					t.Errorf("burst: %s received %d messages (%d labels, %d ids), want %d", client, len(got), len(labels), len(ids), want)
				}
			}},
	}
}

// TestNodeClientsProtocol checks the answers themselves with both stacks:
// the JWR shape, error answers, the SDK version check, and heartbeats.
func TestNodeClientsProtocol(t *testing.T) {
	testenv.Node(t, nodeDir)
	// Quick heartbeats with a generous timeout: the clients must keep the
	// connection alive through several of them.
	a := startLive(t, "testdata/apps/basic", map[string]string{
		"SKIFF_DATASTORES__DEFAULT__URL": t.TempDir() + "/db",
		"SKIFF_SOCKETS__PINGINTERVAL":    "50",
		"SKIFF_SOCKETS__PINGTIMEOUT":     "10000",
	})
	parseError := func(detail string) func(*testing.T, nodeAck) {
		return func(t *testing.T, a nodeAck) {
			var body struct{ Code, Message, Details string }
			if err := json.Unmarshal(a.body(), &body); err != nil || body.Code != "SAILS:HOOK:SOCKETS:PARSE_VIRTUAL_REQ" || !strings.Contains(body.Details, detail) {
				t.Errorf("body %s: want code SAILS:HOOK:SOCKETS:PARSE_VIRTUAL_REQ, details mentioning %q", a.body(), detail)
			}
		}
	}
	code := func(want string) func(*testing.T, nodeAck) {
		return func(t *testing.T, a nodeAck) {
			var body struct{ Code string }
			if err := json.Unmarshal(a.body(), &body); err != nil || body.Code != want {
				t.Errorf("body %s: want code %s", a.body(), want)
			}
		}
	}
	body := func(want string) func(*testing.T, nodeAck) {
		return func(t *testing.T, a nodeAck) {
			if !jsonSame(a.body(), json.RawMessage(want)) {
				t.Errorf("body %s, want %s", a.body(), want)
			}
		}
	}
	runNode(t, a, nodeScenario{
		Clients: map[string]nodeClient{
			"J":    {Stack: "sails"},
			"V":    {Stack: "v4"},
			"Old":  {Stack: "v4", Query: map[string]string{"__sails_io_sdk_version": "0.10.0"}},
			"None": {Stack: "v4", Query: map[string]string{"lang": "en"}}, // no SDK version
		},
		Events: []string{"user", "message"},
		Steps: []nodeStep{
			sock("J", "get", "/user", nil).checks(body(`[]`)),
			sock("V", "get", "/user", nil).checks(body(`[]`)),
			sock("J", "post", "/user", map[string]any{"name": "x"}).answers(400).checks(code("E_INVALID_NEW_RECORD")),
			sock("V", "post", "/user", map[string]any{"name": "x", "email": "nope"}).answers(400).checks(code("E_INVALID_NEW_RECORD")),
			sock("J", "get", "/user/12345", nil).answers(404),
			sock("V", "delete", "/user/12345", nil).answers(404),
			sock("V", "get", "/no/such/route", nil).answers(404),
			// Requests sails.io.js would not send: answered 400, the socket lives on.
			{Client: "V", Emit: "get", Envelope: map[string]any{"method": "get"}, status: 400, check: parseError("No url")},
			{Client: "V", Emit: "post", Envelope: map[string]any{"method": "post", "url": 42}, status: 400, check: parseError("")},
			{Client: "V", Emit: "get", Envelope: "/user", status: 400, check: parseError("")},
			// An SDK older than 0.11.0, or none (read as 0.9.0), is refused.
			sock("Old", "get", "/user", nil).answers(400).checks(parseError("0.10.0")),
			sock("None", "get", "/user", nil).answers(400).checks(parseError("0.9.0")),
			// socket.request with headers, the form apps use to send a CSRF
			// token; V watches users, so it hears of the new one, non-ASCII
			// text intact through both protocol versions.
			{Client: "J", Method: "post", URL: "/user", Data: map[string]any{"name": "Zoë 🐟", "email": "ok@x.io"},
				Headers: map[string]string{"x-test": "1"}, Save: "k", status: 200,
				want: map[string][]string{"V": {created("user", "{k}", `{"id":{k},"name":"Zoë 🐟","email":"ok@x.io","age":null,"active":true,"meta":null}`)}}},
			// Both stacks keep to the heartbeat Skiff announces.
			{Client: "J", Heartbeats: 3, Method: "get", URL: "/user", status: 200},
			{Client: "V", Heartbeats: 3, Method: "get", URL: "/user", status: 200},
			sock("V", "get", "/user?where="+url.QueryEscape(`{"name":"Zoë 🐟"}`), nil).checks(func(t *testing.T, a nodeAck) {
				var recs []struct{ Email string }
				if err := json.Unmarshal(a.body(), &recs); err != nil || len(recs) != 1 || recs[0].Email != "ok@x.io" {
					t.Errorf("body %s: want the one user", a.body())
				}
			}).sends(nil),
		},
	})
}

// TestNodeClientsSession: from Node, sails.io.js shares an HTTP session by
// sending its cookie with the handshake (initialConnectionHeaders, as its
// README advises; extraHeaders for socket.io-client 4), and a CSRF token
// goes in a request's headers.
func TestNodeClientsSession(t *testing.T) {
	testenv.Node(t, nodeDir)
	opts := skifftest.Load(t, "testdata/apps/basic", "", "SKIFF_DATASTORES__DEFAULT__URL="+t.TempDir()+"/db")
	opts.CSRF = true
	opts.Routes = append(opts.Routes, skiff.Route{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token"})
	app, srv := skifftest.Serve(t, *opts)
	newUser := func(name string) map[string]any { return map[string]any{"name": name, "email": name + "@x.io"} }
	token := func(name string) map[string]string { return map[string]string{"x-csrf-token": "{" + name + "}"} }
	runNode(t, &liveApp{App: app, srv: srv}, nodeScenario{
		Clients: map[string]nodeClient{
			"C":  {Stack: "sails", CookieFrom: "/csrfToken", Save: "tokC"},
			"C4": {Stack: "v4", CookieFrom: "/csrfToken", Save: "tok4"},
			"N":  {Stack: "sails"},
		},
		Steps: []nodeStep{
			sock("C", "post", "/user", newUser("a")).answers(403),
			{Client: "C", Method: "post", URL: "/user", Data: newUser("b"), Headers: token("tokC"), status: 200},
			{Client: "C4", Method: "post", URL: "/user", Data: newUser("c"), Headers: token("tok4"), status: 200},
			// A token is bound to its session.
			{Client: "C4", Method: "post", URL: "/user", Data: newUser("d"), Headers: token("tokC"), status: 403},
			{Client: "N", Method: "post", URL: "/user", Data: newUser("e"), Headers: token("tokC"), status: 403},
		},
	})
}
