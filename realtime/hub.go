// Package realtime holds Skiff's rooms and publish/subscribe: which sockets
// are in which room, and delivering a message to the members of rooms. It
// knows the room names of Sails' resourceful pub/sub (a room per record, a
// room of each model's watchers) but nothing of blueprint actions or of the
// wire protocol beyond handing pre-encoded packets to connections.
//
// Several instances of one app share their notifications through a Bus
// (WithBus; realtime/redisbus, realtime/natsbus): what a Hub sends reaches
// the members of the rooms on every instance, and the room operations that
// must move sockets held elsewhere (AddMembers, RemoveMembers, Empty, and so
// Introduce and Retire) run on every instance. Room membership stays with
// the instance that holds the socket.
package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/model"
)

// Conn is a connected socket as the Hub needs it. Skiff's own sockets
// implement it, and so may any transport of another package.
type Conn interface {
	// ID names the socket, and the room it is always in.
	ID() string
	// EmitRaw queues an event whose single argument is payload, valid
	// JSON. It must not block; an error means the message was not queued.
	EmitRaw(event string, payload json.RawMessage) error
}

// packetConn is a Conn that takes a pre-encoded socket.io packet (Skiff's
// own sockets): a message to many of them is encoded once for all.
type packetConn interface {
	Send(p *socketio.Packet) error
}

// Option configures a Hub.
type Option func(*Hub)

// WithBus makes the Hub one of several instances of an app that share b:
// what it sends also reaches the members of the rooms on the other
// instances, and what they send reaches its members. Start runs the bus.
func WithBus(b Bus) Option {
	return func(h *Hub) {
		if b != nil {
			h.link = newLink(b, h.log)
		}
	}
}

// ErrNoSocket is returned for a socket id that is not connected here.
var ErrNoSocket = errors.New("no such socket")

// Hub tracks rooms and delivers messages to their members. Every socket is
// a member of the room named by its id from Register to Unregister. All
// methods are safe for concurrent use; none blocks on a slow socket.
type Hub struct {
	models map[string]*model.Model
	log    *slog.Logger
	link   *link // nil for a single instance

	mu    sync.RWMutex
	conns map[string]*member
	rooms map[string]map[*member]struct{}

	// sent and full count messages queued to sockets and sockets
	// disconnected because their send queue was full (see Stats).
	sent, full atomic.Uint64
}

// HubStats are a Hub's delivery counters since it was made.
type HubStats struct {
	// Sent counts the messages queued to sockets (one per recipient).
	Sent uint64
	// SlowDisconnects counts the sockets disconnected because their send
	// queue was full (each loses the message and those queued).
	SlowDisconnects uint64
}

// Stats returns the Hub's delivery counters, for metrics.
func (h *Hub) Stats() HubStats {
	return HubStats{Sent: h.sent.Load(), SlowDisconnects: h.full.Load()}
}

type member struct {
	conn  Conn
	rooms map[string]struct{} // rooms joined one by one (join)
	// introduced lists the rooms AddMembers put the socket in: a watcher
	// is put in the room of every record created. A list is appended to
	// and never rehashed: in a map, the rooms of all the watchers of a model
	// would grow at the same create, all at once, under the write lock
	// (tens of ms at 1,000 watchers). Entries may be stale (the socket left
	// the room since) or repeated: the room's own set is the truth.
	introduced []string
	stale      int // entries of introduced known to be stale
}

// NewHub returns a Hub for the given models (their identities name the
// event of model notifications and key the room names). log receives
// delivery failures and bus outages; nil discards.
func NewHub(models []*model.Model, log *slog.Logger, opts ...Option) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{models: map[string]*model.Model{}, log: log, conns: map[string]*member{}, rooms: map[string]map[*member]struct{}{}}
	for _, m := range models {
		h.models[m.Identity] = m
	}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Start runs the hub's bus, if it has one: the goroutines that publish to
// the other instances and deliver what they publish. Until then messages
// to other instances wait (up to a few thousand) and theirs are not
// received. App.Serve calls it; calling it again does nothing.
func (h *Hub) Start() {
	if h.link != nil {
		h.link.start(h.receive)
	}
}

// Close stops the bus's goroutines and closes the bus. It logs how many
// messages could not cross instances, if any.
func (h *Hub) Close() error {
	if h.link == nil {
		return nil
	}
	if err := h.link.stop(); err != nil {
		return fmt.Errorf("close realtime bus: %w", err)
	}
	return nil
}

// Lost returns how many messages could not reach the other instances
// (the bus was down or too slow). It is 0 without a bus.
func (h *Hub) Lost() uint64 {
	if h.link == nil {
		return 0
	}
	return h.link.lost.Load()
}

// BusStats are the counters of a Hub's bus since it started.
type BusStats struct {
	// Configured is false without a bus; the counters are then 0.
	Configured bool
	// Up tells whether the bus carries messages both ways now.
	Up bool
	// Published counts the messages handed to the bus, Received those
	// other instances sent here, Lost those that could not cross, and
	// Outages the times the bus was lost (or unreachable at start).
	Published, Received, Lost, Outages uint64
}

// BusStats returns the bus's counters, for metrics.
func (h *Hub) BusStats() BusStats {
	if h.link == nil {
		return BusStats{}
	}
	l := h.link
	return BusStats{
		Configured: true, Up: l.state.Load() == busUp,
		Published: l.published.Load(), Received: l.received.Load(), Lost: l.lost.Load(), Outages: l.outages.Load(),
	}
}

// BusReady reports whether the hub receives what other instances publish:
// its bus subscription is in place. It is true without a bus.
func (h *Hub) BusReady() bool { return h.link == nil || h.link.state.Load() == busUp }

// Alone reports whether nobody could receive a message: no socket is
// connected here and there are no other instances.
func (h *Hub) Alone() bool { return h.link == nil && h.Count() == 0 }

// receive applies an operation another instance published to this one's
// sockets, without publishing it again.
func (h *Hub) receive(b []byte) {
	var m wireMessage
	if err := json.Unmarshal(b, &m); err != nil {
		h.log.Warn("realtime: malformed bus message", slog.Any("err", err))
		return
	}
	if m.Node == h.link.node {
		return
	}
	ctx := context.Background()
	switch m.Op {
	case opTo, opEach, opAll:
		ev := &event{name: m.Event, payload: m.Data}
		if err := ev.encode(); err != nil {
			h.log.Warn("realtime: malformed bus message", slog.Any("err", err))
			return
		}
		switch m.Op {
		case opTo:
			h.send(ctx, h.targets(m.Rooms, m.Omit), ev)
		case opEach:
			for _, r := range m.Rooms {
				h.send(ctx, h.targets([]string{r}, m.Omit), ev)
			}
		case opAll:
			h.send(ctx, h.everyone(m.Omit), ev)
		}
	case opAdd:
		h.addMembers(m.Src, m.Rooms)
	case opRemove:
		h.removeMembers(m.Src, m.Rooms)
	case opEmpty:
		for _, r := range m.Rooms {
			h.empty(r)
		}
	}
}

// event is a message for sockets, encoded once, when first needed.
type event struct {
	name    string
	data    any
	payload json.RawMessage // data as JSON
	packet  *socketio.Packet
}

// encode fills packet: from payload when it is set (a message from the
// bus, or one that crossed), else straight from data, in one pass.
func (e *event) encode() error {
	if e.packet != nil {
		return nil
	}
	var err error
	if e.payload != nil {
		e.packet, err = socketio.EncodeEventRaw(e.name, e.payload)
	} else {
		e.packet, err = socketio.EncodeEvent(e.name, e.data)
	}
	if err != nil {
		return fmt.Errorf("encode %s: %w", e.name, err)
	}
	return nil
}

// json fills and returns payload, data as JSON.
func (e *event) json() (json.RawMessage, error) {
	if e.payload == nil {
		b, err := json.Marshal(e.data)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.name, err)
		}
		e.payload = b
	}
	return e.payload, nil
}

// cloneAll copies rooms, strings and all, for a message to the bus: the
// caller's room names, built for one call, then stay on its stack when
// there is no bus.
func cloneAll(rooms []string) []string {
	out := make([]string, len(rooms))
	for i, r := range rooms {
		out[i] = strings.Clone(r)
	}
	return out
}

// crossEvent publishes a delivery to the other instances, if any.
func (h *Hub) crossEvent(op string, rooms []string, ev *event, omit string) error {
	if h.link == nil {
		return nil
	}
	payload, err := ev.json()
	if err != nil {
		return err
	}
	h.link.send(&wireMessage{Op: op, Rooms: cloneAll(rooms), Omit: strings.Clone(omit), Event: strings.Clone(ev.name), Data: payload})
	return nil
}

// Register adds a connected socket and puts it in the room named by its id.
func (h *Hub) Register(c Conn) {
	m := &member{conn: c, rooms: map[string]struct{}{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns[c.ID()] = m
	h.join(m, c.ID())
}

// Unregister removes a socket from every room.
func (h *Hub) Unregister(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.conns[id]
	if m == nil {
		return
	}
	for room := range m.rooms {
		h.leave(m, room)
	}
	for _, room := range m.introduced {
		h.leave(m, room)
	}
	delete(h.conns, id)
}

// Connected reports whether the socket with that id is registered.
func (h *Hub) Connected(id string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.conns[id] != nil
}

// Count returns the number of registered sockets.
func (h *Hub) Count() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}

// join and leave must be called with mu held for writing.
func (h *Hub) join(m *member, room string) {
	set := h.rooms[room]
	if set == nil {
		set = map[*member]struct{}{}
		h.rooms[room] = set
	}
	set[m] = struct{}{}
	m.rooms[room] = struct{}{}
}

func (h *Hub) leave(m *member, room string) {
	set := h.rooms[room]
	if _, in := set[m]; !in {
		return
	}
	delete(set, m)
	if len(set) == 0 {
		delete(h.rooms, room)
	}
	if _, one := m.rooms[room]; one {
		delete(m.rooms, room)
	} else {
		m.stale++ // it was in introduced
	}
}

// introduce records that AddMembers put m in room. Before the list grows,
// it drops the stale entries if they are at least half of it, so that a
// socket watching for long while records come and go stays small.
func (h *Hub) introduce(m *member, room string) {
	if len(m.introduced) == cap(m.introduced) && m.stale >= len(m.introduced)/2 && m.stale > 0 {
		live := m.introduced[:0]
		seen := make(map[string]struct{}, len(m.introduced)-m.stale)
		for _, r := range m.introduced {
			_, in := h.rooms[r][m]
			_, one := m.rooms[r]
			_, dup := seen[r]
			if in && !one && !dup {
				seen[r] = struct{}{}
				live = append(live, r)
			}
		}
		clear(m.introduced[len(live):])
		m.introduced, m.stale = live, 0
	}
	m.introduced = append(m.introduced, room)
}

// Join puts the socket with that id in each room. A socket that is not
// connected here is an error with one instance; with a bus the join goes
// to every instance, as Sails' admin bus does, and the one holding the
// socket carries it out.
func (h *Hub) Join(socket string, rooms ...string) error {
	if h.link != nil && !h.Connected(socket) {
		h.AddMembers(socket, rooms...)
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.conns[socket]
	if m == nil {
		return fmt.Errorf("join %q: %w", socket, ErrNoSocket)
	}
	for _, r := range rooms {
		h.join(m, r)
	}
	return nil
}

// Leave takes the socket with that id out of each room. Leaving a room it
// is not in does nothing. Like Join, it goes to every instance with a bus
// when the socket is not connected here.
func (h *Hub) Leave(socket string, rooms ...string) error {
	if h.link != nil && !h.Connected(socket) {
		h.RemoveMembers(socket, rooms...)
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.conns[socket]
	if m == nil {
		return fmt.Errorf("leave %q: %w", socket, ErrNoSocket)
	}
	for _, r := range rooms {
		h.leave(m, r)
	}
	return nil
}

// Rooms returns the rooms the socket is in, including its own.
func (h *Hub) Rooms(socket string) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	m := h.conns[socket]
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m.rooms)+len(m.introduced))
	for r := range m.rooms {
		out = append(out, r)
	}
	var seen map[string]struct{}
	for _, r := range m.introduced {
		_, in := h.rooms[r][m]
		_, one := m.rooms[r]
		if !in || one {
			continue
		}
		if seen == nil {
			seen = map[string]struct{}{}
		}
		if _, dup := seen[r]; !dup {
			seen[r] = struct{}{}
			out = append(out, r)
		}
	}
	return out
}

// Members returns the ids of the sockets in room.
func (h *Hub) Members(room string) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]string, 0, len(h.rooms[room]))
	for m := range h.rooms[room] {
		out = append(out, m.conn.ID())
	}
	return out
}

// AddMembers puts every member of room src in each room of dest (Sails'
// addRoomMembersToRooms), on every instance.
func (h *Hub) AddMembers(src string, dest ...string) {
	if h.link != nil {
		h.link.send(&wireMessage{Op: opAdd, Src: strings.Clone(src), Rooms: cloneAll(dest)})
	}
	h.addMembers(src, dest)
}

func (h *Hub) addMembers(src string, dest []string) {
	// Most models have no watchers: do not take the write lock for nothing.
	h.mu.RLock()
	empty := len(h.rooms[src]) == 0
	h.mu.RUnlock()
	if empty {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	members := h.rooms[src]
	for _, d := range dest {
		// Each create puts every watcher of the model in the new record's
		// room: look the room up once and size it for all of them.
		set := h.rooms[d]
		if set == nil {
			set = make(map[*member]struct{}, len(members))
			h.rooms[d] = set
		}
		for m := range members {
			if _, in := set[m]; !in {
				set[m] = struct{}{}
				h.introduce(m, d)
			}
		}
	}
}

// RemoveMembers takes every member of room src out of each room of dest
// (Sails' removeRoomMembersFromRooms), on every instance.
func (h *Hub) RemoveMembers(src string, dest ...string) {
	if h.link != nil {
		h.link.send(&wireMessage{Op: opRemove, Src: strings.Clone(src), Rooms: cloneAll(dest)})
	}
	h.removeMembers(src, dest)
}

func (h *Hub) removeMembers(src string, dest []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for m := range h.rooms[src] {
		for _, d := range dest {
			h.leave(m, d)
		}
	}
}

// Empty takes every socket out of room, on every instance.
func (h *Hub) Empty(room string) {
	if h.link != nil {
		h.link.send(&wireMessage{Op: opEmpty, Rooms: []string{strings.Clone(room)}})
	}
	h.empty(room)
}

func (h *Hub) empty(room string) {
	h.mu.RLock()
	empty := len(h.rooms[room]) == 0
	h.mu.RUnlock()
	if empty {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for m := range h.rooms[room] {
		h.leave(m, room)
	}
}

// Broadcast sends event with data to every member of the rooms except the
// socket omit ("" omits nobody), on every instance. A socket in several of
// the rooms gets the message once (Sails sends it once per room). data is
// JSON-encoded once, and, with a single instance, not at all when nobody is
// to receive it.
func (h *Hub) Broadcast(ctx context.Context, rooms []string, event string, data any, omit string) error {
	return h.deliver(ctx, opTo, rooms, event, data, omit)
}

// Blast sends event with data to every connected socket except omit, on
// every instance.
func (h *Hub) Blast(ctx context.Context, event string, data any, omit string) error {
	return h.deliver(ctx, opAll, nil, event, data, omit)
}

// deliver sends an event here and to the other instances: once to the
// members of rooms (opTo), once per room (opEach) or to everyone (opAll).
func (h *Hub) deliver(ctx context.Context, op string, rooms []string, name string, data any, omit string) error {
	ev := &event{name: name, data: data}
	if err := h.crossEvent(op, rooms, ev, omit); err != nil {
		return err
	}
	switch op {
	case opAll:
		return h.sendEvent(ctx, h.everyone(omit), ev)
	case opEach:
		for _, r := range rooms {
			if err := h.sendEvent(ctx, h.targets([]string{r}, omit), ev); err != nil {
				return err
			}
		}
		return nil
	}
	return h.sendEvent(ctx, h.targets(rooms, omit), ev)
}

// sendEvent encodes ev if anyone is to receive it, and sends it.
func (h *Hub) sendEvent(ctx context.Context, targets []Conn, ev *event) error {
	if len(targets) == 0 {
		return nil
	}
	if err := ev.encode(); err != nil {
		return err
	}
	h.send(ctx, targets, ev)
	return nil
}

// everyone returns every registered socket except omit.
func (h *Hub) everyone(omit string) []Conn {
	h.mu.RLock()
	defer h.mu.RUnlock()
	targets := make([]Conn, 0, len(h.conns))
	for id, m := range h.conns {
		if id != omit {
			targets = append(targets, m.conn)
		}
	}
	return targets
}

// targets returns the members of rooms, each once, except omit. They are
// collected under the read lock and sent to after it is released: Send
// never blocks, but a full queue disconnects the socket, whose Unregister
// needs the write lock.
func (h *Hub) targets(rooms []string, omit string) []Conn {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(rooms) == 1 {
		set := h.rooms[rooms[0]]
		if len(set) == 0 {
			return nil
		}
		targets := make([]Conn, 0, len(set))
		for m := range set {
			if m.conn.ID() != omit {
				targets = append(targets, m.conn)
			}
		}
		return targets
	}
	var targets []Conn
	seen := map[*member]bool{}
	for _, r := range rooms {
		for m := range h.rooms[r] {
			if !seen[m] && m.conn.ID() != omit {
				seen[m] = true
				targets = append(targets, m.conn)
			}
		}
	}
	return targets
}

// send hands an encoded event to each target, counting what was sent and
// what a full queue dropped.
func (h *Hub) send(ctx context.Context, targets []Conn, ev *event) {
	var sent uint64
	for _, c := range targets {
		var err error
		if pc, ok := c.(packetConn); ok {
			err = pc.Send(ev.packet)
		} else if payload, jerr := ev.json(); jerr != nil {
			err = jerr
		} else {
			err = c.EmitRaw(ev.name, payload)
		}
		switch {
		case err == nil:
			sent++
		case errors.Is(err, socketio.ErrQueueFull):
			h.full.Add(1)
			fallthrough
		case !errors.Is(err, socketio.ErrClosed):
			h.log.LogAttrs(ctx, slog.LevelDebug, "socket dropped a message", slog.String("socket", c.ID()), slog.Any("err", err))
		}
	}
	h.sent.Add(sent)
}
