package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

// explicitRooms is the reference: every membership stored, as the Hub kept
// them before introductions became implicit (and as Sails keeps them).
type explicitRooms struct {
	rooms map[string]map[string]bool // room → socket ids
	conns map[string]bool
}

func (e *explicitRooms) join(s, room string) {
	if e.rooms[room] == nil {
		e.rooms[room] = map[string]bool{}
	}
	e.rooms[room][s] = true
}

func (e *explicitRooms) leave(s, room string) {
	delete(e.rooms[room], s)
	if len(e.rooms[room]) == 0 {
		delete(e.rooms, room)
	}
}

func (e *explicitRooms) members(room string) []string {
	var out []string
	for s := range e.rooms[room] {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (e *explicitRooms) roomsOf(s string) []string {
	var out []string
	for r, set := range e.rooms {
		if set[s] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

func (e *explicitRooms) addMembers(src string, dest ...string) {
	for _, s := range e.members(src) {
		for _, d := range dest {
			e.join(s, d)
		}
	}
}

func (e *explicitRooms) removeMembers(src string, dest ...string) {
	for _, s := range e.members(src) {
		for _, d := range dest {
			e.leave(s, d)
		}
	}
}

// recipients returns the sockets a message to rooms reaches, omit left out.
func (e *explicitRooms) recipients(rooms []string, omit string) []string {
	seen := map[string]bool{}
	for _, r := range rooms {
		for s := range e.rooms[r] {
			if s != omit {
				seen[s] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// tally records which sockets received which message.
type tally map[string][]string // message → socket ids

type tallyConn struct {
	id string
	t  tally
}

func (c *tallyConn) ID() string { return c.id }
func (c *tallyConn) Send(p *socketio.Packet) error {
	var ev []json.RawMessage
	b := p.Bytes()
	if err := json.Unmarshal(b[2:], &ev); err != nil {
		return err
	}
	var msg struct{ N string }
	if err := json.Unmarshal(ev[1], &msg); err != nil {
		return err
	}
	c.t[msg.N] = append(c.t[msg.N], c.id)
	return nil
}
func (c *tallyConn) EmitRaw(string, json.RawMessage) error { return fmt.Errorf("not used") }

// TestImplicitIntroductionsMatchExplicit runs random sequences of
// connect, disconnect, watch, subscribe, unsubscribe, create, update and
// destroy, and of the lower-level room operations (join and leave of any
// room, watch rooms included, AddMembers, RemoveMembers, Empty, Broadcast),
// against the Hub and against explicit memberships, and compares the
// recipients of every message and, after every step, every room's members
// and every socket's rooms.
func TestImplicitIntroductionsMatchExplicit(t *testing.T) {
	user, err := model.Parse("user", "user.yaml", map[string]any{"attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true}}}, nil)
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
	seqs, steps := 200, 300
	if testing.Short() {
		seqs = 50
	}
	for seed := range uint64(seqs) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			runImplicitSequence(t, seed, steps, []*model.Model{user, tag})
		})
	}
}

func runImplicitSequence(t *testing.T, seed uint64, steps int, models []*model.Model) {
	rng := rand.New(rand.NewPCG(seed, 23))
	ctx := context.Background()
	h := realtime.NewHub(models, nil)
	ref := &explicitRooms{rooms: map[string]map[string]bool{}, conns: map[string]bool{}}
	got := tally{}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after\n  %s\n%s", seed, joinLines(log), fmt.Sprintf(format, args...))
	}

	nextSocket := 0
	sockets := func() []string {
		var out []string
		for s := range ref.conns {
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	pickSocket := func() string {
		ss := sockets()
		if len(ss) == 0 || rng.IntN(12) == 0 {
			return "gone" // not connected
		}
		return ss[rng.IntN(len(ss))]
	}
	pickModel := func() *model.Model { return models[rng.IntN(len(models))] }
	pickID := func(m *model.Model) any {
		n := rng.IntN(5)
		if m.Identity == "tag" {
			return "t" + strconv.Itoa(n)
		}
		return float64(n + 1)
	}
	room := func(m *model.Model, id any) string { return realtime.RecordRoom(m.Identity, id) }
	pickRoom := func() string {
		switch rng.IntN(5) {
		case 0:
			return realtime.WatchRoom(pickModel().Identity)
		case 1:
			return "lobby"
		case 2:
			return pickSocket()
		default:
			m := pickModel()
			return room(m, pickID(m))
		}
	}
	msgs := 0
	// deliver checks that the message sent by send reaches exactly want.
	deliver := func(want []string, send func(data any) error) {
		t.Helper()
		msgs++
		n := strconv.Itoa(msgs)
		if err := send(map[string]any{"n": n}); err != nil {
			fail("send: %v", err)
		}
		have := got[n]
		slices.Sort(have)
		if !slices.Equal(have, want) {
			fail("message %s reached %v, want %v", n, have, want)
		}
	}
	connected := func(s string) bool { return ref.conns[s] }

	for range steps {
		switch op := rng.IntN(16); op {
		case 0, 1: // connect
			s := "s" + strconv.Itoa(nextSocket)
			nextSocket++
			log = append(log, "connect "+s)
			h.Register(&tallyConn{id: s, t: got})
			ref.conns[s] = true
			ref.join(s, s)
		case 2: // disconnect
			s := pickSocket()
			log = append(log, "disconnect "+s)
			h.Unregister(s)
			for r := range ref.rooms {
				ref.leave(s, r)
			}
			delete(ref.conns, s)
		case 3: // watch
			s, m := pickSocket(), pickModel()
			log = append(log, "watch "+s+" "+m.Identity)
			if err := h.Watch(s, m.Identity); (err == nil) != connected(s) {
				fail("watch: %v", err)
			}
			if connected(s) {
				ref.join(s, realtime.WatchRoom(m.Identity))
			}
		case 4: // subscribe
			s, m := pickSocket(), pickModel()
			id := pickID(m)
			log = append(log, fmt.Sprintf("subscribe %s %s %v", s, m.Identity, id))
			if err := h.Subscribe(s, m.Identity, id); (err == nil) != connected(s) {
				fail("subscribe: %v", err)
			}
			if connected(s) {
				ref.join(s, room(m, id))
			}
		case 5: // unsubscribe
			s, m := pickSocket(), pickModel()
			id := pickID(m)
			log = append(log, fmt.Sprintf("unsubscribe %s %s %v", s, m.Identity, id))
			if err := h.Unsubscribe(s, m.Identity, id); (err == nil) != connected(s) {
				fail("unsubscribe: %v", err)
			}
			if connected(s) {
				ref.leave(s, room(m, id))
			}
		case 6, 7: // create, as the blueprint create action does it
			s, m := pickSocket(), pickModel()
			id := pickID(m)
			log = append(log, fmt.Sprintf("create %s %v by %s", m.Identity, id, s))
			if connected(s) {
				if err := h.Subscribe(s, m.Identity, id); err != nil {
					fail("subscribe: %v", err)
				}
				ref.join(s, room(m, id))
			}
			watchers := realtime.WatchRoom(m.Identity)
			deliver(ref.recipients([]string{watchers}, s), func(data any) error {
				return h.PublishWatchers(ctx, m.Identity, data, s)
			})
			if err := h.Introduce(m.Identity, id); err != nil {
				fail("introduce: %v", err)
			}
			ref.addMembers(watchers, room(m, id))
		case 8: // update
			s, m := pickSocket(), pickModel()
			id := pickID(m)
			log = append(log, fmt.Sprintf("update %s %v by %s", m.Identity, id, s))
			deliver(ref.recipients([]string{room(m, id)}, s), func(data any) error {
				return h.Publish(ctx, m.Identity, []any{id}, data, s)
			})
		case 9: // destroy
			s, m := pickSocket(), pickModel()
			id := pickID(m)
			log = append(log, fmt.Sprintf("destroy %s %v by %s", m.Identity, id, s))
			deliver(ref.recipients([]string{room(m, id)}, s), func(data any) error {
				return h.Publish(ctx, m.Identity, []any{id}, data, s)
			})
			if err := h.Retire(m.Identity, id); err != nil {
				fail("retire: %v", err)
			}
			delete(ref.rooms, room(m, id))
		case 10: // join any room
			s, r := pickSocket(), pickRoom()
			log = append(log, "join "+s+" "+r)
			if err := h.Join(s, r); (err == nil) != connected(s) {
				fail("join: %v", err)
			}
			if connected(s) {
				ref.join(s, r)
			}
		case 11: // leave any room, a watch room too
			s, r := pickSocket(), pickRoom()
			log = append(log, "leave "+s+" "+r)
			if err := h.Leave(s, r); (err == nil) != connected(s) {
				fail("leave: %v", err)
			}
			if connected(s) {
				ref.leave(s, r)
			}
		case 12: // add members
			src, dest := pickRoom(), pickRoom()
			log = append(log, "addMembers "+src+" → "+dest)
			h.AddMembers(src, dest)
			ref.addMembers(src, dest)
		case 13: // remove members
			src, dest := pickRoom(), pickRoom()
			log = append(log, "removeMembers "+src+" → "+dest)
			h.RemoveMembers(src, dest)
			ref.removeMembers(src, dest)
		case 14: // empty
			r := pickRoom()
			log = append(log, "empty "+r)
			h.Empty(r)
			delete(ref.rooms, r)
		case 15: // broadcast to two rooms
			a, b, omit := pickRoom(), pickRoom(), pickSocket()
			log = append(log, "broadcast "+a+" + "+b+" omit "+omit)
			deliver(ref.recipients([]string{a, b}, omit), func(data any) error {
				return h.Broadcast(ctx, []string{a, b}, "x", data, omit)
			})
		}
		checkRooms(t, h, ref, fail)
	}
	// Once every socket is gone, nothing is left: no record room kept
	// alive by an introduction or by a socket that left it.
	for _, s := range sockets() {
		h.Unregister(s)
	}
	if n := realtime.RoomCount(h); n != 0 {
		fail("%d rooms left after every socket disconnected", n)
	}
}

func checkRooms(t *testing.T, h *realtime.Hub, ref *explicitRooms, fail func(string, ...any)) {
	t.Helper()
	names := map[string]bool{"lobby": true}
	for r := range ref.rooms {
		names[r] = true
	}
	for _, m := range []string{"user", "tag"} {
		names[realtime.WatchRoom(m)] = true
		for i := range 5 {
			names[realtime.RecordRoom(m, float64(i+1))] = true
			names[realtime.RecordRoom(m, "t"+strconv.Itoa(i))] = true
		}
	}
	for r := range names {
		have := h.Members(r)
		slices.Sort(have)
		if want := ref.members(r); !slices.Equal(have, want) {
			fail("Members(%s) = %v, want %v", r, have, want)
		}
	}
	for s := range ref.conns {
		have := h.Rooms(s)
		slices.Sort(have)
		if want := ref.roomsOf(s); !slices.Equal(have, want) {
			fail("Rooms(%s) = %v, want %v", s, have, want)
		}
	}
	if h.Count() != len(ref.conns) {
		fail("Count = %d, want %d", h.Count(), len(ref.conns))
	}
}

func joinLines(lines []string) string {
	if len(lines) > 40 {
		lines = append([]string{"…"}, lines[len(lines)-40:]...)
	}
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// TestIntroduceCostsNoMemoryPerWatcher checks that a create's introduction
// allocates the same few hundred bytes with 1,000 watchers as with 10, and
// that destroying the records leaves nothing of them.
func TestIntroduceCostsNoMemoryPerWatcher(t *testing.T) {
	user := userModel(t)
	perCreate := map[int]uint64{}
	for _, n := range []int{10, 1000} {
		h := realtime.NewHub([]*model.Model{user}, nil)
		for i := range n {
			c := nopConn{id: "s" + strconv.Itoa(i)}
			h.Register(c)
			if err := h.Watch(c.id, "user"); err != nil {
				t.Fatal(err)
			}
		}
		const creates = 2000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for id := range creates {
			if err := h.Introduce("user", float64(id+1)); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		perCreate[n] = (after.TotalAlloc - before.TotalAlloc) / creates
		if got := len(h.Members(realtime.RecordRoom("user", float64(creates)))); got != n {
			t.Fatalf("%d watchers: the last record has %d subscribers", n, got)
		}
		for id := range creates {
			if err := h.Retire("user", float64(id+1)); err != nil {
				t.Fatal(err)
			}
		}
		if got := realtime.RoomCount(h); got != n+1 {
			t.Errorf("%d watchers: %d rooms once the records were destroyed, want theirs and the watch room", n, got)
		}
	}
	t.Logf("bytes allocated per create: %v", perCreate)
	if perCreate[1000] > 1024 || perCreate[1000] > 2*perCreate[10]+256 {
		t.Errorf("bytes allocated per create grow with watchers: %v", perCreate)
	}
}

// TestRecordRoomLiveBytes reports the heap a record room kept by an
// introduction holds (the memory scenario of bench/realtime.sh keeps
// 20,000 of them), and bounds it.
func TestRecordRoomLiveBytes(t *testing.T) {
	user := userModel(t)
	h := realtime.NewHub([]*model.Model{user}, nil)
	for i := range 100 {
		c := nopConn{id: "s" + strconv.Itoa(i)}
		h.Register(c)
		if err := h.Watch(c.id, "user"); err != nil {
			t.Fatal(err)
		}
	}
	const creates = 20000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for id := range creates {
		if err := h.Introduce("user", float64(id+1)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRoom := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / creates
	t.Logf("live bytes per record room: %d", perRoom)
	if perRoom > 256 {
		t.Errorf("a record room holds %d bytes, want at most 256", perRoom)
	}
	runtime.KeepAlive(h)
}

// userModel returns a resolved model "user" with a numeric key and
// nothing else.
func userModel(t *testing.T) *model.Model {
	t.Helper()
	user, err := model.Parse("user", "user.yaml", map[string]any{"attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.NewSchema([]*model.Model{user}); err != nil {
		t.Fatal(err)
	}
	return user
}
