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
	rooms map[string]*room
	seq   uint64 // orders joins, leaves and introductions (rooms.go)

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

// NewHub returns a Hub for the given models (their identities name the
// event of model notifications and key the room names). log receives
// delivery failures and bus outages; nil discards.
func NewHub(models []*model.Model, log *slog.Logger, opts ...Option) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{models: map[string]*model.Model{}, log: log, conns: map[string]*member{}, rooms: map[string]*room{}}
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
	m := &member{conn: c, rooms: map[*room]struct{}{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns[c.ID()] = m
	h.join(m, h.room(c.ID()))
}

// Unregister removes a socket from every room.
func (h *Hub) Unregister(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.conns[id]
	if m == nil {
		return
	}
	h.unregister(m)
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
		h.join(m, h.room(r))
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
	for _, name := range rooms {
		if r := h.rooms[name]; r != nil {
			h.leave(m, r)
		}
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
	return h.roomsOf(m)
}

// Members returns the ids of the sockets in room.
func (h *Hub) Members(room string) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	if r := h.rooms[room]; r != nil {
		r.each(func(_ *member, c Conn) bool { out = append(out, c.ID()); return true })
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
	r := h.rooms[src]
	h.mu.RUnlock()
	if r == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r = h.rooms[src]; r != nil {
		h.introduce(r, dest)
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
	r := h.rooms[src]
	if r == nil {
		return
	}
	var members []*member
	r.each(func(m *member, _ Conn) bool { members = append(members, m); return true })
	for _, m := range members {
		for _, name := range dest {
			if d := h.rooms[name]; d != nil {
				h.leave(m, d)
			}
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
	r := h.rooms[room]
	h.mu.RUnlock()
	if r == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r = h.rooms[room]; r != nil {
		h.emptyRoom(r)
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
		r := h.rooms[rooms[0]]
		if r == nil {
			return nil
		}
		targets := make([]Conn, 0, r.size())
		r.each(func(_ *member, c Conn) bool {
			// Most broadcasts omit nobody (a create over HTTP): then the
			// socket, cold in cache, is not read for its id.
			if omit == "" || c.ID() != omit {
				targets = append(targets, c)
			}
			return true
		})
		return targets
	}
	var targets []Conn
	seen := map[*member]bool{}
	for _, name := range rooms {
		r := h.rooms[name]
		if r == nil {
			continue
		}
		r.each(func(m *member, c Conn) bool {
			if !seen[m] && (omit == "" || c.ID() != omit) {
				seen[m] = true
				targets = append(targets, c)
			}
			return true
		})
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
