// Package realtime holds Skiff's rooms and publish/subscribe: which sockets
// are in which room, and delivering a message to the members of rooms. It
// knows the room names of Sails' resourceful pub/sub (a room per record, a
// room of each model's watchers) but nothing of blueprint actions or of the
// wire protocol beyond handing pre-encoded packets to connections.
package realtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/model"
)

// Conn is a connected socket as the Hub needs it. *socketio.Socket
// implements it; Send must not block.
type Conn interface {
	ID() string
	Send(p *socketio.Packet) error
}

// ErrNoSocket is returned for a socket id that is not connected here.
var ErrNoSocket = errors.New("no such socket")

// Hub tracks rooms and delivers messages to their members. Every socket is
// a member of the room named by its id from Register to Unregister. All
// methods are safe for concurrent use; none blocks on a slow socket.
type Hub struct {
	models map[string]*model.Model
	log    *slog.Logger

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
// delivery failures; nil discards.
func NewHub(models []*model.Model, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{models: map[string]*model.Model{}, log: log, conns: map[string]*member{}, rooms: map[string]map[*member]struct{}{}}
	for _, m := range models {
		h.models[m.Identity] = m
	}
	return h
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

// Join puts the socket with that id in each room.
func (h *Hub) Join(socket string, rooms ...string) error {
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
// is not in does nothing.
func (h *Hub) Leave(socket string, rooms ...string) error {
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
// addRoomMembersToRooms).
func (h *Hub) AddMembers(src string, dest ...string) {
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
// (Sails' removeRoomMembersFromRooms).
func (h *Hub) RemoveMembers(src string, dest ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for m := range h.rooms[src] {
		for _, d := range dest {
			h.leave(m, d)
		}
	}
}

// Empty takes every socket out of room.
func (h *Hub) Empty(room string) {
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
// socket omit ("" omits nobody). A socket in several of the rooms gets the
// message once (Sails sends it once per room). data is JSON-encoded once,
// and not at all when nobody is to receive it.
func (h *Hub) Broadcast(ctx context.Context, rooms []string, event string, data any, omit string) error {
	targets := h.targets(rooms, omit)
	if len(targets) == 0 {
		return nil
	}
	p, err := socketio.EncodeEvent(event, data)
	if err != nil {
		return fmt.Errorf("broadcast %s: %w", event, err)
	}
	h.send(ctx, targets, p)
	return nil
}

// Blast sends event with data to every connected socket except omit.
func (h *Hub) Blast(ctx context.Context, event string, data any, omit string) error {
	h.mu.RLock()
	targets := make([]Conn, 0, len(h.conns))
	for id, m := range h.conns {
		if id != omit {
			targets = append(targets, m.conn)
		}
	}
	h.mu.RUnlock()
	if len(targets) == 0 {
		return nil
	}
	p, err := socketio.EncodeEvent(event, data)
	if err != nil {
		return fmt.Errorf("blast %s: %w", event, err)
	}
	h.send(ctx, targets, p)
	return nil
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

func (h *Hub) send(ctx context.Context, targets []Conn, p *socketio.Packet) {
	var sent uint64
	for _, c := range targets {
		err := c.Send(p)
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
