package realtime_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

// conn records the frames sent to it.
type conn struct {
	id  string
	mu  sync.Mutex
	got []string
}

func (c *conn) ID() string { return c.id }
func (c *conn) Send(p *socketio.Packet) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, string(p.Bytes()))
	return nil
}

// EmitRaw records the frame Send would have received.
func (c *conn) EmitRaw(event string, payload json.RawMessage) error {
	name, _ := json.Marshal(event)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, "42["+string(name)+","+string(payload)+"]")
	return nil
}

func (c *conn) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.got
	c.got = nil
	return out
}

func newHub(t *testing.T) (*realtime.Hub, *conn, *conn) {
	t.Helper()
	user, err := model.Parse("user", "user.yaml", map[string]any{"attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true}, "name": "string"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := model.Parse("tag", "tag.yaml", map[string]any{"primaryKey": "slug", "attributes": map[string]any{
		"slug": map[string]any{"type": "string", "required": true}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.NewSchema([]*model.Model{user, tag}); err != nil {
		t.Fatal(err)
	}
	h := realtime.NewHub([]*model.Model{user, tag}, nil)
	a, b := &conn{id: "a"}, &conn{id: "b"}
	h.Register(a)
	h.Register(b)
	return h, a, b
}

func TestRoomNames(t *testing.T) {
	if got := realtime.RecordRoom("user", 47.0); got != "sails_model_user_47:user" {
		t.Errorf("RecordRoom = %q", got)
	}
	if got := realtime.WatchRoom("user"); got != "sails_model_create_user" {
		t.Errorf("WatchRoom = %q", got)
	}
}

func TestSubscribeAndPublish(t *testing.T) {
	h, a, b := newHub(t)
	ctx := context.Background()
	// "47" and 47 are one record; a record stands for its key.
	if err := h.Subscribe("a", "user", "47", model.Record{"id": 48.0}); err != nil {
		t.Fatal(err)
	}
	if err := h.Subscribe("b", "user", 47); err != nil {
		t.Fatal(err)
	}
	if err := h.Publish(ctx, "user", []any{47, 48}, map[string]any{"x": 1}, "b"); err != nil {
		t.Fatal(err)
	}
	// Once per record, as Sails does; b omitted.
	if got, want := a.take(), []string{`42["user",{"x":1}]`, `42["user",{"x":1}]`}; !slices.Equal(got, want) {
		t.Errorf("a got %q, want %q", got, want)
	}
	if got := b.take(); len(got) != 0 {
		t.Errorf("omitted socket got %q", got)
	}
	if err := h.Unsubscribe("a", "user", 47); err != nil {
		t.Fatal(err)
	}
	h.Publish(ctx, "user", []any{47}, 1, "")
	if got := a.take(); len(got) != 0 {
		t.Errorf("unsubscribed socket got %q", got)
	}
	if got := b.take(); len(got) != 1 {
		t.Errorf("b got %q", got)
	}
	// Bad input is an error, not a silent no-op.
	if err := h.Subscribe("a", "nope", 1); err == nil {
		t.Error("Subscribe to an unknown model succeeded")
	}
	if err := h.Subscribe("a", "user", "abc"); err == nil {
		t.Error("Subscribe with a non-numeric key of a number model succeeded")
	}
	if err := h.Subscribe("zzz", "user", 1); err == nil {
		t.Error("Subscribe of an unknown socket succeeded")
	}
	if err := h.Subscribe("a", "tag", "red"); err != nil {
		t.Errorf("string key: %v", err)
	}
}

func TestWatchIntroduceRetire(t *testing.T) {
	h, a, b := newHub(t)
	ctx := context.Background()
	if err := h.Watch("a", "user"); err != nil {
		t.Fatal(err)
	}
	h.Subscribe("b", "user", 1)
	if err := h.PublishWatchers(ctx, "user", "created", ""); err != nil {
		t.Fatal(err)
	}
	if got := a.take(); len(got) != 1 {
		t.Errorf("watcher got %q", got)
	}
	if got := b.take(); len(got) != 0 {
		t.Errorf("non-watcher got %q", got)
	}
	h.Introduce("user", 1)
	if got := h.Members("sails_model_user_1:user"); len(got) != 2 {
		t.Errorf("after Introduce, members %v", got)
	}
	h.Retire("user", 1)
	if got := h.Members("sails_model_user_1:user"); len(got) != 0 {
		t.Errorf("after Retire, members %v", got)
	}
}

func TestBroadcastOncePerSocketAndUnregister(t *testing.T) {
	h, a, b := newHub(t)
	ctx := context.Background()
	h.Join("a", "r1", "r2")
	h.Join("b", "r2")
	if err := h.Broadcast(ctx, []string{"r1", "r2"}, "message", "hi", ""); err != nil {
		t.Fatal(err)
	}
	if got := a.take(); len(got) != 1 {
		t.Errorf("a in two rooms got %q", got)
	}
	b.take()
	// Every socket is in the room of its own id.
	h.Broadcast(ctx, []string{"b"}, "direct", 1, "")
	if got := b.take(); !slices.Equal(got, []string{`42["direct",1]`}) {
		t.Errorf("b got %q", got)
	}
	h.Blast(ctx, "all", 1, "a")
	if len(a.take()) != 0 || len(b.take()) != 1 {
		t.Error("Blast did not omit a or missed b")
	}
	h.Unregister("a")
	if h.Connected("a") || h.Count() != 1 {
		t.Error("a still registered")
	}
	if got := h.Members("r2"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("r2 members %v", got)
	}
	if got := h.Members("r1"); len(got) != 0 {
		t.Errorf("r1 members %v (empty rooms must go)", got)
	}
}

// A watcher's record rooms (Introduce) are listed, left, rejoined and
// dropped like rooms joined one by one, also after many records came and
// went (the hub compacts its list of them).
func TestIntroducedRooms(t *testing.T) {
	h, _, _ := newHub(t)
	if err := h.Watch("a", "user"); err != nil {
		t.Fatal(err)
	}
	room := func(id int) string { return realtime.RecordRoom("user", float64(id)) }
	rooms := func() []string {
		got := h.Rooms("a")
		slices.Sort(got)
		return got
	}
	for id := 1; id <= 300; id++ {
		h.Introduce("user", id)
		if id > 2 {
			h.Retire("user", id) // destroyed: the room is emptied
		}
	}
	want := []string{"a", room(1), room(2), realtime.WatchRoom("user")}
	slices.Sort(want)
	if got := rooms(); !slices.Equal(got, want) {
		t.Fatalf("Rooms after 300 creates, 298 destroys = %v, want %v", got, want)
	}
	h.Leave("a", room(1))
	h.Leave("a", room(1))
	if got := h.Members(room(1)); len(got) != 0 {
		t.Errorf("Members(%s) after Leave = %v", room(1), got)
	}
	h.Join("a", room(1))
	h.Introduce("user", 2) // already a member: nothing changes
	if got := rooms(); !slices.Equal(got, want) {
		t.Errorf("Rooms after leaving and rejoining = %v, want %v", got, want)
	}
	h.Unregister("a")
	for _, r := range want {
		if got := h.Members(r); slices.Contains(got, "a") {
			t.Errorf("Members(%s) after Unregister = %v", r, got)
		}
	}
}

func TestSubscribed(t *testing.T) {
	h, _, _ := newHub(t)
	tests := []struct {
		name     string
		identity string
		id       any
		omit     string
		want     bool
	}{
		{"nobody yet", "user", 1, "", false},
		{"a subscriber", "user", 2, "", true},
		{"the same record, key as a string", "user", "2", "", true},
		{"the only subscriber omitted", "user", 2, "a", false},
		{"another subscriber omitted", "user", 2, "b", true},
		{"a watcher introduced", "user", 3, "", true},
		{"a string key", "tag", "red", "", true},
		{"unknown model", "nope", 1, "", false},
		{"malformed key", "user", "abc", "", false},
	}
	if err := h.Subscribe("a", "user", 2); err != nil {
		t.Fatal(err)
	}
	if err := h.Watch("b", "user"); err != nil {
		t.Fatal(err)
	}
	if err := h.Introduce("user", 3); err != nil {
		t.Fatal(err)
	}
	if err := h.Subscribe("b", "tag", "red"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if got := h.Subscribed(tt.identity, tt.id, tt.omit); got != tt.want {
			t.Errorf("%s: Subscribed(%q, %v, %q) = %v, want %v", tt.name, tt.identity, tt.id, tt.omit, got, tt.want)
		}
	}
	h.Unregister("a")
	if h.Subscribed("user", 2, "") {
		t.Error("Subscribed after the only subscriber disconnected = true")
	}
}

// emitConn is a Conn of another package's transport: it has no Send, and
// gets each event with its JSON argument.
type emitConn struct {
	id  string
	got []string
}

func (c *emitConn) ID() string { return c.id }
func (c *emitConn) EmitRaw(event string, payload json.RawMessage) error {
	c.got = append(c.got, event+" "+string(payload))
	return nil
}

// TestConnOfAnotherTransport: a Conn that only has EmitRaw receives what
// Skiff's own sockets receive, next to them.
func TestConnOfAnotherTransport(t *testing.T) {
	h, a, _ := newHub(t)
	e := &emitConn{id: "e"}
	h.Register(e)
	ctx := context.Background()
	h.Join("a", "r")
	h.Join("e", "r")
	if err := h.Broadcast(ctx, []string{"r"}, "message", map[string]any{"x": "<1>"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := h.Subscribe("e", "user", 7); err != nil {
		t.Fatal(err)
	}
	if err := h.Publish(ctx, "user", []any{7}, map[string]any{"verb": "updated"}, ""); err != nil {
		t.Fatal(err)
	}
	if got := a.take(); !slices.Equal(got, []string{`42["message",{"x":"\u003c1\u003e"}]`}) {
		t.Errorf("socket got %q", got)
	}
	if !slices.Equal(e.got, []string{`message {"x":"\u003c1\u003e"}`, `user {"verb":"updated"}`}) {
		t.Errorf("other transport got %q", e.got)
	}
	if h.Lost() != 0 || !h.BusReady() || h.Alone() {
		t.Errorf("single instance: Lost %d, BusReady %v, Alone %v", h.Lost(), h.BusReady(), h.Alone())
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}
