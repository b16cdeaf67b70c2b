package realtime

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/internal/socketctx"
	"github.com/skiffhq/skiff/model"
)

// WatchRoom names the room of the sockets watching a model: they receive
// its created notifications and join the room of each record created.
func WatchRoom(identity string) string { return "sails_model_create_" + identity }

// RecordRoom names the room of the sockets subscribed to one record, as
// Sails names it ("sails_model_user_47:user"). id must already be of the
// model's key type (a float64 for a number key, a string for a string key).
func RecordRoom(identity string, id any) string {
	var s string
	switch v := id.(type) {
	case float64:
		s = model.FormatNumber(v)
	case string:
		s = v
	default:
		s = fmt.Sprint(v)
	}
	return "sails_model_" + identity + "_" + s + ":" + identity
}

// recordRooms returns the record rooms of ids of the model identity, each
// id normalised to the model's key type so that 47 and "47" are one room.
func (h *Hub) recordRooms(identity string, ids []any) ([]string, error) {
	m := h.models[identity]
	if m == nil {
		return nil, fmt.Errorf("realtime: %q is not a model", identity)
	}
	rooms := make([]string, len(ids))
	for i, id := range ids {
		if r, ok := id.(model.Record); ok {
			id = r[m.PrimaryKey]
		}
		pk, err := m.NormalizePK(id)
		if err != nil {
			return nil, fmt.Errorf("realtime: %s id %s: %w", identity, model.Describe(id), err)
		}
		rooms[i] = RecordRoom(identity, pk)
	}
	return rooms, nil
}

// Subscribe puts the socket in the rooms of the records of the model
// identity with keys ids (a record may stand for its key), so it receives
// their updated, destroyed, addedTo and removedFrom notifications and what
// Publish sends them.
func (h *Hub) Subscribe(socket, identity string, ids ...any) error {
	rooms, err := h.recordRooms(identity, ids)
	if err != nil {
		return err
	}
	return h.Join(socket, rooms...)
}

// Unsubscribe takes the socket out of the rooms of those records.
func (h *Hub) Unsubscribe(socket, identity string, ids ...any) error {
	rooms, err := h.recordRooms(identity, ids)
	if err != nil {
		return err
	}
	return h.Leave(socket, rooms...)
}

// Watch makes the socket a watcher of the model identity: it receives the
// model's created notifications and is subscribed to each new record.
func (h *Hub) Watch(socket, identity string) error {
	if h.models[identity] == nil {
		return fmt.Errorf("realtime: %q is not a model", identity)
	}
	return h.Join(socket, WatchRoom(identity))
}

// Introduce subscribes every watcher of the model, on every instance, to
// the record id.
func (h *Hub) Introduce(identity string, id any) error {
	rooms, err := h.recordRooms(identity, []any{id})
	if err != nil {
		return err
	}
	h.AddMembers(WatchRoom(identity), rooms...)
	return nil
}

// Retire empties the room of the record id on every instance: after a destroy nobody stays
// subscribed to a record that is gone (Sails only removes the watchers).
func (h *Hub) Retire(identity string, id any) error {
	rooms, err := h.recordRooms(identity, []any{id})
	if err != nil {
		return err
	}
	h.Empty(rooms[0])
	return nil
}

// Subscribed reports whether a socket other than omit ("" omits nobody) is
// subscribed to the record id of the model identity. Blueprint actions ask
// it before reading what only a notification would need; an unknown model
// or a malformed id reads as false. With a bus it reads as true: the
// subscribers on other instances are not known here.
func (h *Hub) Subscribed(identity string, id any, omit string) bool {
	rooms, err := h.recordRooms(identity, []any{id})
	if err != nil {
		return false
	}
	if h.link != nil {
		return true
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	r := h.rooms[rooms[0]]
	if r == nil {
		return false
	}
	found := false
	r.each(func(_ *member, c Conn) bool {
		found = c.ID() != omit
		return !found
	})
	return found
}

// Publish sends data, as it is (no envelope), under the event named by the
// model's identity, to the subscribers of each record in ids, on every
// instance, except the socket omit ("" omits nobody). A socket subscribed
// to two of the records gets it twice, once per record, as in Sails.
func (h *Hub) Publish(ctx context.Context, identity string, ids []any, data any, omit string) error {
	rooms, err := h.recordRooms(identity, ids)
	if err != nil {
		return err
	}
	return h.deliver(ctx, opEach, rooms, identity, data, omit)
}

// PublishWatchers sends data under the event named by the model's identity
// to the model's watchers, except the socket omit.
func (h *Hub) PublishWatchers(ctx context.Context, identity string, data any, omit string) error {
	if h.models[identity] == nil {
		return fmt.Errorf("realtime: %q is not a model", identity)
	}
	return h.Broadcast(ctx, []string{WatchRoom(identity)}, identity, data, omit)
}

// WithSocket returns a context marking a request as sent by the socket
// with that id (a sails.io.js virtual request). The mark is the one the
// session, CSRF and CORS middleware read, so a virtual request is treated
// as a socket request everywhere.
func WithSocket(ctx context.Context, id string) context.Context {
	return socketctx.NewContext(ctx, id)
}

// SocketID returns the id of the socket that sent the request whose context
// this is, or "" for a plain HTTP request.
func SocketID(ctx context.Context) string {
	id, _ := socketctx.FromContext(ctx)
	return id
}
