package skiff_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/realtime"
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
	// Close disconnects the client; it takes no further part.
	Close bool `json:"close,omitempty"`

	status int                 // the status the answer must have
	want   map[string][]string // the events each client must receive; the others none
	check  func(t *testing.T, a nodeAck)
	// checkEvents replaces want where the ids cannot be known in advance.
	checkEvents func(t *testing.T, client string, got []nodeEvent)
	// rooms, when not nil, are the rooms the answer (of roomsPath) must
	// list, in short form: "CU" for user's watchers, "U{u1}" for a record.
	rooms []string
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

// jsonSame reports whether a and b are the same JSON value; a body that is
// not JSON is the same as nothing, so two malformed bodies never match.
func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
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
	// Instance is the instance the client connects to, when the app runs
	// as several (runNodeAt).
	Instance int `json:"instance,omitempty"`
}

// runNode runs the scenario with driver.js against the app and checks
// every step's answer and the events of every client.
func runNode(t *testing.T, a *liveApp, sc nodeScenario) {
	t.Helper()
	runNodeAt(t, a.srv.URL, sc)
}

// runNodeAt is runNode on the app at urls: one base URL, or several
// instances' separated by commas (see driver.js).
func runNodeAt(t *testing.T, urls string, sc nodeScenario) {
	t.Helper()
	node := testenv.Node(t, nodeDir)
	input, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "driver.js", urls)
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
	if s.rooms != nil {
		checkRooms(t, what, l.Ack, s.rooms, ids)
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
			// Without deep watch, S's reads of two records subscribe it to
			// those only (TestNodeRealtimeTable covers the default).
			a := startLive(t, "testdata/apps/basic", map[string]string{
				"SKIFF_DATASTORES__DEFAULT__URL": t.TempDir() + "/db",
				"SKIFF_BLUEPRINTS__DEEPWATCH":    "false",
			})
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
	// plus adds fields to a record: updated's and destroyed's previous is
	// the record populated.
	plus := func(rec, fields string) string { return rec[:len(rec)-1] + "," + fields + "}" }
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
			"R": {updated("user", "{u3}", `{"id":{u3},"age":5}`, plus(user("{u3}", "cy", "null"), `"pets":[]`))},
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
			"W": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, plus(tag("{t3}", "green"), `"pets":[]`))},
			"R": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, plus(tag("{t3}", "green"), `"pets":[]`))},
			"S": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, plus(tag("{t3}", "green"), `"pets":[]`))},
			"Z": {updated("tag", "{t3}", `{"id":{t3},"label":"lime"}`, plus(tag("{t3}", "green"), `"pets":[]`))},
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
			"W": {updated("pet", "{p1}", `{"id":{p1},"name":"rex2"}`,
				plus(pet("{p1}", "rex", user("{u1}", "ann", "null")), `"tags":[`+tag("{t1}", "red")+`]`))},
		}),
		// Update moving a key: the old parent loses, the new one gains.
		sock("R", "patch", "/pet/{p3}", map[string]any{"owner": "{u1}"}).sends(map[string][]string{
			"W": {
				removedFrom("user", "{u4}", "pets", "{p3}"), addedTo("user", "{u1}", "pets", "{p3}"),
				updated("pet", "{p3}", `{"id":{p3},"owner":{u1}}`, plus(pet("{p3}", "tom", user("{u4}", "dee", "null")), `"tags":[]`)),
			},
			"S": {updated("pet", "{p3}", `{"id":{p3},"owner":{u1}}`, plus(pet("{p3}", "tom", user("{u4}", "dee", "null")), `"tags":[]`))},
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
			"W": {destroyed("pet", "{p3}", plus(pet("{p3}", "tom", "null"), `"tags":[`+tag("{t2}", "blue")+`]`)), removedFrom("tag", "{t2}", "pets", "{p3}")},
			"S": {destroyed("pet", "{p3}", plus(pet("{p3}", "tom", "null"), `"tags":[`+tag("{t2}", "blue")+`]`)), removedFrom("tag", "{t2}", "pets", "{p3}")},
		}),
		// p3's join row is left behind (no cascadeOnDestroy, as in Sails);
		// a replace drops it without telling t2's subscribers again.
		web("put", "/tag/{t2}/pets", ids()).sends(nil),
		sock("R", "delete", "/user/{u1}", nil).sends(map[string][]string{
			"W": {
				destroyed("user", "{u1}", plus(user("{u1}", "ann", "null"), `"pets":[`+pet("{p2}", "fido", "{u1}")+`,`+pet("{p4}", "max", "{u1}")+`]`)),
				keySet("pet", "{p4}", "owner", "null"), keySet("pet", "{p2}", "owner", "null"),
			},
		}),
		sock("R", "delete", "/tag/{t1}", nil).sends(map[string][]string{
			"W": {destroyed("tag", "{t1}", plus(tag("{t1}", "red"), `"pets":[`+pet("{p5}", "pip", "null")+`]`)), removedFrom("pet", "{p5}", "tags", "{t1}")},
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

// roomsPath is the route of the apps of TestNodeRealtimeTable that answers
// a socket with the rooms it is in (its own room left out).
const roomsPath = "/__rooms"

// roomsOf is a step asking which rooms the client is in; want lists them
// in short form (see nodeStep.rooms).
func roomsOf(client string, want ...string) nodeStep {
	s := sock(client, "get", roomsPath, nil)
	s.rooms = append([]string{}, want...)
	return s
}

// closes disconnects a client.
func closes(client string) nodeStep { return nodeStep{Client: client, Close: true} }

var (
	watchRoomName  = regexp.MustCompile(`^sails_model_create_(\w+)$`)
	recordRoomName = regexp.MustCompile(`^sails_model_(\w+)_([^:]+):(\w+)$`)
)

// checkRooms compares the rooms an answer lists with want (short forms
// with placeholders), in any order.
func checkRooms(t *testing.T, what string, a nodeAck, want []string, ids map[string]string) {
	t.Helper()
	var rooms []string
	if err := json.Unmarshal(a.body(), &rooms); err != nil {
		t.Errorf("%s: rooms answer %s: %v", what, a.body(), err)
		return
	}
	got := []string{}
	for _, r := range rooms {
		if m := watchRoomName.FindStringSubmatch(r); m != nil {
			got = append(got, "C"+strings.ToUpper(m[1][:1]))
		} else if m := recordRoomName.FindStringSubmatch(r); m != nil && m[1] == m[3] {
			got = append(got, strings.ToUpper(m[1][:1])+m[2])
		} else {
			got = append(got, r)
		}
	}
	wanted := []string{}
	for _, w := range want {
		wanted = append(wanted, withIDs(t, w, ids))
	}
	slices.Sort(got)
	slices.Sort(wanted)
	if !slices.Equal(got, wanted) {
		t.Errorf("%s: rooms %v, want %v", what, got, wanted)
	}
}

// writeRealtimeApp writes the app of TestNodeRealtimeTable: the models of
// realtime.md §10 (user.pets ↔ pet.owner one-to-many, user.patients ↔
// pet.vets many-to-many) with a self association, user.bestFriend, and a
// customToJSON that hides user.password.
func writeRealtimeApp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"config/models.yaml": "models:\n  migrate: drop\n  attributes:\n" +
			"    id: {type: number, autoIncrement: true}\n" +
			"    createdAt: {type: number, autoCreatedAt: true}\n" +
			"    updatedAt: {type: number, autoUpdatedAt: true}\n",
		"models/user.yaml": "attributes:\n" +
			"  name: {type: string, required: true}\n" +
			"  password: {type: string}\n" +
			"  bestFriend: {model: user}\n" +
			"  pets: {collection: pet, via: owner}\n" +
			"  patients: {collection: pet, via: vets}\n" +
			"customToJSON:\n  omit: [password]\n",
		"models/pet.yaml": "attributes:\n" +
			"  name: {type: string, required: true}\n" +
			"  owner: {model: user}\n" +
			"  vets: {collection: user, via: patients}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startRealtimeApp serves the app of writeRealtimeApp with the given
// SKIFF_* variables, and roomsPath.
func startRealtimeApp(t *testing.T, env ...string) *liveApp {
	t.Helper()
	env = append(env, "SKIFF_DATASTORES__DEFAULT__URL="+t.TempDir()+"/db")
	opts := skifftest.Load(t, writeRealtimeApp(t), "development", env...)
	var app *skiff.App
	opts.Routes = append(opts.Routes, skiff.Route{Method: "GET", Path: roomsPath, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := realtime.SocketID(r.Context())
		rooms := []string{}
		for _, room := range app.Realtime().Rooms(id) {
			if room != id {
				rooms = append(rooms, room)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rooms)
	})})
	app, srv := skifftest.Serve(t, *opts)
	return &liveApp{App: app, srv: srv}
}

// TestNodeRealtimeTable walks every row of realtime.md §10 ("who receives
// what") with the real clients, once per notification format: the same
// requests reach the same rooms and recipients in both, and only the
// shapes differ. W watches both models and is subscribed to every record,
// so it receives every message; each row's requester is a fresh socket,
// whose rooms afterwards are exactly the row's subscription side effects
// and which would receive its own notifications were it not left out. The
// reads are followed by writes of others that the reader must (or must
// not) hear of.
func TestNodeRealtimeTable(t *testing.T) {
	testenv.Node(t, nodeDir)
	for _, format := range []string{"seed", "sails"} {
		t.Run(format, func(t *testing.T) {
			a := startRealtimeApp(t, "SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT="+format)
			steps, clients := realtimeTableScenario(format)
			sc := nodeScenario{Clients: map[string]nodeClient{}, Events: []string{"user", "pet"}, Steps: steps}
			for i, name := range clients {
				// Requesters alternate between the two stacks.
				stack := "sails"
				if i%2 == 1 {
					stack = "v4"
				}
				sc.Clients[name] = nodeClient{Stack: stack}
			}
			runNode(t, a, sc)
		})
	}
}

// realtimeTableScenario returns the steps of TestNodeRealtimeTable in
// format and the clients they use.
func realtimeTableScenario(format string) ([]nodeStep, []string) {
	sails := format == "sails"
	// Records as serialised without population (no password, no
	// collections), and populated one level.
	user := func(id, name, bestFriend string) string {
		return `{"id":` + id + `,"name":"` + name + `","bestFriend":` + bestFriend + `}`
	}
	userFull := func(id, name, bestFriend, pets, patients string) string {
		return `{"id":` + id + `,"name":"` + name + `","bestFriend":` + bestFriend + `,"pets":[` + pets + `],"patients":[` + patients + `]}`
	}
	pet := func(id, owner string) string {
		return `{"id":` + id + `,"name":"` + strings.Trim(id, "{}") + `","owner":` + owner + `}`
	}
	petFull := func(id, owner, vets string) string {
		return `{"id":` + id + `,"name":"` + strings.Trim(id, "{}") + `","owner":` + owner + `,"vets":[` + vets + `]}`
	}
	// createdMsg picks created's data by format: the record as stored, or
	// populated as the create action answers.
	createdMsg := func(identity, id, seedData, sailsData string) string {
		if sails {
			return created(identity, id, sailsData)
		}
		return created(identity, id, seedData)
	}
	// added and removed are a collection's change: one message in seed,
	// one per member in sails.
	added := func(identity, id, attr string, members ...string) []string {
		if !sails {
			return []string{addedTo(identity, id, attr, members...)}
		}
		var out []string
		for _, m := range members {
			out = append(out, identity+` {"id":`+id+`,"verb":"addedTo","attribute":"`+attr+`","addedId":`+m+`}`)
		}
		return out
	}
	removed := func(identity, id, attr string, members ...string) []string {
		if !sails {
			return []string{removedFrom(identity, id, attr, members...)}
		}
		var out []string
		for _, m := range members {
			out = append(out, identity+` {"id":`+id+`,"verb":"removedFrom","attribute":"`+attr+`","removedId":`+m+`}`)
		}
		return out
	}
	msgs := func(groups ...[]string) []string { return slices.Concat(groups...) }
	one := func(m string) []string { return []string{m} }
	ids := func(v ...string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	named := func(name string, more ...any) map[string]any {
		m := map[string]any{"name": name}
		for i := 0; i+1 < len(more); i += 2 {
			m[more[i].(string)] = more[i+1]
		}
		return m
	}
	// newPet and newUser are created over HTTP by someone else, with
	// nothing linked: what their watchers receive.
	newPet := func(id string) string { return createdMsg("pet", id, pet(id, "null"), petFull(id, "null", "")) }
	newUser := func(id, name string) string {
		return createdMsg("user", id, user(id, name, "null"), userFull(id, name, "null", "", ""))
	}
	renamedPet := func(id string) string {
		return updated("pet", id, `{"id":`+id+`,"name":"renamed"}`, petFull(id, "null", ""))
	}
	ann := user("{u1}", "ann", "{u2}") // as a populated owner or vet: no password
	find := "/user?where=" + url.QueryEscape(`{"name":"ann"}`)
	findNone := "/user?where=" + url.QueryEscape(`{"name":"nobody"}`)

	clients := []string{"W", "SA0", "SA", "SB", "SB2", "SB3", "SO", "SP", "SP0",
		"SC", "SD", "SE", "SF", "SQ", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN"}
	steps := []nodeStep{
		// The records, made over HTTP before anyone listens.
		web("post", "/user", named("u2")).saves("u2"),
		web("post", "/user", named("ann", "password", "secret", "bestFriend", "{u2}")).saves("u1"),
		web("post", "/user", named("u9")).saves("u9"),
		web("post", "/user", named("u5")).saves("u5"),
		web("post", "/user", named("u6")).saves("u6"),
		web("post", "/user", named("u7")).saves("u7"),
		web("post", "/user", named("u3")).saves("u3"),
		web("post", "/user", named("u4")).saves("u4"),
		web("post", "/pet", named("pk", "owner", "{u1}")).saves("pk"),
		web("post", "/pet", named("pl", "vets", ids("{u1}"))).saves("pl"),
		web("post", "/pet", named("pd1", "owner", "{u9}")).saves("pd1"),
		web("post", "/pet", named("pd2")).saves("pd2"),
		web("post", "/pet", named("pe")).saves("pe"),
		web("post", "/pet", named("pf", "owner", "{u5}")).saves("pf"),
		web("post", "/pet", named("pg", "owner", "{u6}")).saves("pg"),
		web("post", "/pet", named("ph", "vets", ids("{u7}"))).saves("ph"),
		web("post", "/pet", named("pi", "owner", "{u2}")).saves("pi"),
		web("post", "/pet", named("pj")).saves("pj"),
		web("post", "/pet", named("pm1", "owner", "{u3}")).saves("pm1"),
		web("post", "/pet", named("pm2", "owner", "{u2}")).saves("pm2"),
		web("post", "/pet", named("pm3")).saves("pm3"),
		web("post", "/pet", named("pn1", "vets", ids("{u4}"))).saves("pn1"),
		web("post", "/pet", named("pn2", "vets", ids("{u4}"))).saves("pn2"),
		web("post", "/pet", named("pn3")).saves("pn3"),
		// W watches both models and is subscribed to every record.
		sock("W", "get", "/user", nil), sock("W", "get", "/pet", nil),

		// GET /user, no result: the model's watchers only, no deep watch.
		sock("SA0", "get", findNone, nil).checks(func(t *testing.T, a nodeAck) {
			if !jsonSame(a.body(), json.RawMessage(`[]`)) {
				t.Errorf("find of nobody: %s", a.body())
			}
		}),
		roomsOf("SA0", "CU"),
		web("post", "/user", named("ua0")).saves("ua0").sends(map[string][]string{
			"W": {newUser("{ua0}", "ua0")}, "SA0": {newUser("{ua0}", "ua0")},
		}),
		web("post", "/pet", named("pa0")).saves("pa0").sends(map[string][]string{"W": {newPet("{pa0}")}}),
		closes("SA0"),

		// GET /user with a result: the records, what they populate, and
		// the watchers of every associated model (user through bestFriend).
		sock("SA", "get", find, nil),
		roomsOf("SA", "CU", "CP", "U{u1}", "U{u2}", "P{pk}", "P{pl}"),
		// A pet created by someone else reaches SA, which then hears of it.
		web("post", "/pet", named("pa")).saves("pa").sends(map[string][]string{
			"W": {newPet("{pa}")}, "SA": {newPet("{pa}")},
		}),
		web("patch", "/pet/{pa}", named("renamed")).sends(map[string][]string{
			"W": {renamedPet("{pa}")}, "SA": {renamedPet("{pa}")},
		}),
		closes("SA"),

		// GET /user/1: not CU through pets, but through bestFriend.
		sock("SB", "get", "/user/{u1}", nil),
		roomsOf("SB", "CU", "CP", "U{u1}", "U{u2}", "P{pk}", "P{pl}"),
		// W's new pet reaches SB (not W: its own request), and so does
		// what happens to it next.
		sock("W", "post", "/pet", named("pbb")).saves("pbb").sends(map[string][]string{"SB": {newPet("{pbb}")}}),
		sock("W", "patch", "/pet/{pbb}", named("renamed")).sends(map[string][]string{"SB": {renamedPet("{pbb}")}}),
		closes("SB"),
		// Even without population.
		sock("SB2", "get", "/user/{u1}?populate=false", nil),
		roomsOf("SB2", "CU", "CP", "U{u1}"),
		web("post", "/pet", named("pb")).saves("pb").sends(map[string][]string{
			"W": {newPet("{pb}")}, "SB2": {newPet("{pb}")},
		}),
		web("patch", "/pet/{pb}", named("renamed")).sends(map[string][]string{
			"W": {renamedPet("{pb}")}, "SB2": {renamedPet("{pb}")},
		}),
		closes("SB2"),
		// GET /pet/k: pet has no self association, so CU but not CP.
		sock("SB3", "get", "/pet/{pk}", nil),
		roomsOf("SB3", "CU", "P{pk}", "U{u1}"),
		web("post", "/pet", named("pb3")).saves("pb3").sends(map[string][]string{"W": {newPet("{pb3}")}}),
		web("post", "/user", named("ub3")).saves("ub3").sends(map[string][]string{
			"W": {newUser("{ub3}", "ub3")}, "SB3": {newUser("{ub3}", "ub3")},
		}),
		closes("SB3"),

		// GET /user/1/pets: the parent, the children, every associated
		// model's watchers.
		sock("SO", "get", "/user/{u1}/pets", nil),
		roomsOf("SO", "CU", "CP", "U{u1}", "P{pk}"),
		web("post", "/pet", named("po")).saves("po").sends(map[string][]string{
			"W": {newPet("{po}")}, "SO": {newPet("{po}")},
		}),
		closes("SO"),
		// A singular association the same way.
		sock("SP", "get", "/user/{u1}/bestFriend", nil),
		roomsOf("SP", "CU", "CP", "U{u1}", "U{u2}"),
		closes("SP"),
		// An empty one is not found, and subscribes nothing.
		sock("SP0", "get", "/user/{u9}/bestFriend", nil).answers(404),
		roomsOf("SP0"),
		closes("SP0"),

		// POST /pet {owner: 1}: the parent gains it, the watchers learn of
		// it (in sails, populated, the owner without its password).
		sock("SC", "post", "/pet", named("pc", "owner", "{u1}")).saves("pc").sends(map[string][]string{
			"W": msgs(added("user", "{u1}", "pets", "{pc}"),
				one(createdMsg("pet", "{pc}", pet("{pc}", "{u1}"), petFull("{pc}", ann, "")))),
		}),
		roomsOf("SC", "P{pc}"),
		closes("SC"),

		// POST /user {pets: [d1, d2]}, d1 owned by u9.
		sock("SD", "post", "/user", named("ud", "pets", ids("{pd1}", "{pd2}"))).saves("ud").sends(map[string][]string{
			"W": msgs(
				one(keySet("pet", "{pd1}", "owner", "{ud}")), one(keySet("pet", "{pd2}", "owner", "{ud}")),
				one(createdMsg("user", "{ud}", user("{ud}", "ud", "null"),
					userFull("{ud}", "ud", "null", pet("{pd1}", "{ud}")+","+pet("{pd2}", "{ud}"), ""))),
				removed("user", "{u9}", "pets", "{pd1}")),
		}),
		roomsOf("SD", "U{ud}"),
		closes("SD"),

		// POST /user {patients: [e]}.
		sock("SE", "post", "/user", named("ue", "patients", ids("{pe}"))).saves("ue").sends(map[string][]string{
			"W": msgs(added("pet", "{pe}", "vets", "{ue}"),
				one(createdMsg("user", "{ue}", user("{ue}", "ue", "null"), userFull("{ue}", "ue", "null", "", pet("{pe}", "null"))))),
		}),
		roomsOf("SE", "U{ue}"),
		closes("SE"),

		// PATCH /pet/f {owner: 2}, was u5: previous is populated.
		sock("SF", "patch", "/pet/{pf}", map[string]any{"owner": "{u2}"}).sends(map[string][]string{
			"W": msgs(removed("user", "{u5}", "pets", "{pf}"), added("user", "{u2}", "pets", "{pf}"),
				one(updated("pet", "{pf}", `{"id":{pf},"owner":{u2}}`, petFull("{pf}", user("{u5}", "u5", "null"), "")))),
		}),
		roomsOf("SF", "P{pf}"),
		closes("SF"),
		// The self association: no other side to tell.
		sock("SQ", "patch", "/user/{u5}", map[string]any{"bestFriend": "{u1}"}).sends(map[string][]string{
			"W": {updated("user", "{u5}", `{"id":{u5},"bestFriend":{u1}}`, userFull("{u5}", "u5", "null", "", ""))},
		}),
		roomsOf("SQ", "U{u5}"),
		closes("SQ"),

		// DELETE /user/6, with pets: previous lists them.
		sock("SG", "delete", "/user/{u6}", nil).sends(map[string][]string{
			"W": {
				destroyed("user", "{u6}", userFull("{u6}", "u6", "null", pet("{pg}", "{u6}"), "")),
				keySet("pet", "{pg}", "owner", "null"),
			},
		}),
		roomsOf("SG"),
		closes("SG"),
		// DELETE /user/7, with patients.
		sock("SH", "delete", "/user/{u7}", nil).sends(map[string][]string{
			"W": msgs(one(destroyed("user", "{u7}", userFull("{u7}", "u7", "null", "", pet("{ph}", "null")))),
				removed("pet", "{ph}", "vets", "{u7}")),
		}),
		roomsOf("SH"),
		closes("SH"),

		// PUT /user/1/pets/i, i owned by u2.
		sock("SI", "put", "/user/{u1}/pets/{pi}", nil).sends(map[string][]string{
			"W": msgs(added("user", "{u1}", "pets", "{pi}"), one(keySet("pet", "{pi}", "owner", "{u1}")),
				removed("user", "{u2}", "pets", "{pi}")),
		}),
		roomsOf("SI", "U{u1}", "P{pi}"),
		closes("SI"),
		// PUT /user/1/patients/j.
		sock("SJ", "put", "/user/{u1}/patients/{pj}", nil).sends(map[string][]string{
			"W": msgs(added("user", "{u1}", "patients", "{pj}"), added("pet", "{pj}", "vets", "{u1}")),
		}),
		roomsOf("SJ", "U{u1}", "P{pj}"),
		closes("SJ"),
		// DELETE /user/1/pets/k.
		sock("SK", "delete", "/user/{u1}/pets/{pk}", nil).sends(map[string][]string{
			"W": msgs(removed("user", "{u1}", "pets", "{pk}"), one(keySet("pet", "{pk}", "owner", "null"))),
		}),
		roomsOf("SK"),
		closes("SK"),
		// DELETE /user/1/patients/l.
		sock("SL", "delete", "/user/{u1}/patients/{pl}", nil).sends(map[string][]string{
			"W": msgs(removed("user", "{u1}", "patients", "{pl}"), removed("pet", "{pl}", "vets", "{u1}")),
		}),
		roomsOf("SL"),
		closes("SL"),

		// PUT /user/3/pets [m2, m3]: had m1; m2 owned by u2.
		sock("SM", "put", "/user/{u3}/pets", ids("{pm2}", "{pm3}")).sends(map[string][]string{
			"W": msgs(added("user", "{u3}", "pets", "{pm2}", "{pm3}"), removed("user", "{u3}", "pets", "{pm1}"),
				one(keySet("pet", "{pm2}", "owner", "{u3}")), one(keySet("pet", "{pm3}", "owner", "{u3}")),
				one(keySet("pet", "{pm1}", "owner", "null")), removed("user", "{u2}", "pets", "{pm2}")),
		}),
		roomsOf("SM", "U{u3}", "P{pm2}", "P{pm3}"),
		closes("SM"),
		// PUT /user/4/patients [n2, n3]: had n1, n2.
		sock("SN", "put", "/user/{u4}/patients", ids("{pn2}", "{pn3}")).sends(map[string][]string{
			"W": msgs(added("user", "{u4}", "patients", "{pn3}"), added("pet", "{pn3}", "vets", "{u4}"),
				removed("user", "{u4}", "patients", "{pn1}"), removed("pet", "{pn1}", "vets", "{u4}")),
		}),
		roomsOf("SN", "U{u4}", "P{pn3}"),
		closes("SN"),

		// previous of an update names the singular target as it was, and
		// hides the password of a populated child.
		web("patch", "/pet/{pk}", map[string]any{"owner": "{u1}"}).sends(map[string][]string{
			"W": msgs(added("user", "{u1}", "pets", "{pk}"),
				one(updated("pet", "{pk}", `{"id":{pk},"owner":{u1}}`, petFull("{pk}", "null", "")))),
		}),
		web("delete", "/pet/{pk}", nil).sends(map[string][]string{
			"W": msgs(one(destroyed("pet", "{pk}", petFull("{pk}", ann, ""))), removed("user", "{u1}", "pets", "{pk}")),
		}),
	}
	return steps, clients
}
