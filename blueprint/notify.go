package blueprint

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// Notifier is the realtime layer as blueprint actions use it: the rooms of
// records and of models' watchers. *realtime.Hub implements it. socket is
// the requesting socket's id; omit is the socket a message must not reach
// ("" for none). Publish and PublishWatchers must not change data: it may
// be the very record the action answers with.
type Notifier interface {
	Watch(socket, identity string) error
	Subscribe(socket, identity string, ids ...any) error
	Introduce(identity string, id any) error
	Retire(identity string, id any) error
	Publish(ctx context.Context, identity string, ids []any, data any, omit string) error
	PublishWatchers(ctx context.Context, identity string, data any, omit string) error
}

// subscriptionChecker is a Notifier that tells whether a record has
// subscribers (*realtime.Hub does): the record as it was before an update
// is populated for its updated notification only when someone will read
// it.
type subscriptionChecker interface {
	Subscribed(identity string, id any, omit string) bool
}

// NotificationFormat names the shapes of the notifications blueprint
// actions send (blueprints.notificationFormat).
type NotificationFormat string

// The notification formats. They differ only in shapes: the same rooms
// receive the same notifications in both.
const (
	// FormatSeed, the default, rolls the members a request added to or
	// removed from a collection up into one addedTo / removedFrom message
	// with addedIds / removedIds, and sends created with the record as
	// stored (singular associations as keys, no collections).
	FormatSeed NotificationFormat = "seed"
	// FormatSails sends what Sails 1.5 sends: one addedTo / removedFrom per
	// member with addedId / removedId, and created with the record
	// populated as the create action answers it.
	FormatSails NotificationFormat = "sails"
)

// ParseNotificationFormat returns the format s names; "" means FormatSeed.
func ParseNotificationFormat(s string) (NotificationFormat, error) {
	switch NotificationFormat(s) {
	case "", FormatSeed:
		return FormatSeed, nil
	case FormatSails:
		return FormatSails, nil
	}
	return "", fmt.Errorf("unknown notification format %q (want %q or %q)", s, FormatSeed, FormatSails)
}

// audienceChecker is a Notifier that tells when nobody could receive a
// notification (*realtime.Hub does: no socket connected to this instance
// and no other instances): a request then has no one to notify or
// subscribe, and skips building the messages.
type audienceChecker interface {
	Alone() bool
}

// The notification messages, with their fields in the order Sails sends
// them.
type (
	createdMessage struct {
		Verb string       `json:"verb"`
		ID   any          `json:"id"`
		Data model.Record `json:"data"`
	}
	updatedMessage struct {
		Verb     string       `json:"verb"`
		ID       any          `json:"id"`
		Data     model.Record `json:"data"`
		Previous model.Record `json:"previous,omitempty"`
	}
	destroyedMessage struct {
		Verb     string       `json:"verb"`
		ID       any          `json:"id"`
		Previous model.Record `json:"previous"`
	}
	addedMessage struct {
		ID        any    `json:"id"`
		Verb      string `json:"verb"`
		Attribute string `json:"attribute"`
		AddedIDs  []any  `json:"addedIds"`
	}
	removedMessage struct {
		ID         any    `json:"id"`
		Verb       string `json:"verb"`
		Attribute  string `json:"attribute"`
		RemovedIDs []any  `json:"removedIds"`
	}
	// The per-member messages of FormatSails.
	addedOneMessage struct {
		ID        any    `json:"id"`
		Verb      string `json:"verb"`
		Attribute string `json:"attribute"`
		AddedID   any    `json:"addedId"`
	}
	removedOneMessage struct {
		ID        any    `json:"id"`
		Verb      string `json:"verb"`
		Attribute string `json:"attribute"`
		RemovedID any    `json:"removedId"`
	}
)

// pubsub is what one request does to rooms: the requesting socket's
// subscriptions and the notifications of its changes. Its methods do
// nothing when the app has no realtime layer; subscriptions are made only
// for socket requests. Failures are logged, never returned: they happen
// after the change was committed, which the client must still learn of.
type pubsub struct {
	n         Notifier
	log       *slog.Logger
	ctx       context.Context
	socket    string // the requester, "" over HTTP
	omit      string // the socket not to notify: the requester unless mirror
	autoWatch bool
	deepWatch bool
	format    NotificationFormat
}

func (s *Service) pubsub(ctx context.Context, r *Request) *pubsub {
	p := &pubsub{n: s.notifier, log: s.log, ctx: ctx, socket: r.Socket, omit: r.Socket,
		autoWatch: s.autoWatch, deepWatch: s.deepWatch, format: s.format}
	if c, ok := s.notifier.(audienceChecker); ok && r.Socket == "" && c.Alone() {
		// A socket that connects meanwhile has missed nothing it could
		// tell from a socket that connects just after.
		p.n = nil
	}
	if v, ok := r.RouteOptions["autoWatch"].(bool); ok {
		p.autoWatch = v
	}
	if v, ok := r.RouteOptions["deepWatch"].(bool); ok {
		p.deepWatch = v
	}
	mirror := s.mirror
	if v, ok := r.RouteOptions["mirror"].(bool); ok {
		mirror = v
	}
	if mirror {
		p.omit = ""
	}
	return p
}

func (p *pubsub) failed(what string, err error) {
	if err != nil {
		p.log.LogAttrs(p.ctx, slog.LevelWarn, "realtime: "+what+" failed", slog.Any("err", err))
	}
}

// subscribe subscribes the requesting socket to records of m.
func (p *pubsub) subscribe(m *model.Model, ids ...any) {
	if p.n == nil || p.socket == "" || len(ids) == 0 {
		return
	}
	p.failed("subscribe", p.n.Subscribe(p.socket, m.Identity, ids...))
}

// watch makes the requesting socket a watcher of models.
func (p *pubsub) watch(models ...*model.Model) {
	if p.n == nil || p.socket == "" {
		return
	}
	for _, m := range models {
		p.failed("watch", p.n.Watch(p.socket, m.Identity))
	}
}

// subscribeRead subscribes the requesting socket to the records a read
// returned and to the records populated in them. With autoWatch and
// deepWatch it also watches every model m is associated with, populated or
// not, as soon as one record came back: Sails' subscribeDeep, which runs
// once per record returned, for all of the model's associations.
func (p *pubsub) subscribeRead(m *model.Model, recs []model.Record) {
	if p.n == nil || p.socket == "" || len(recs) == 0 {
		return
	}
	ids := make([]any, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r[m.PrimaryKey])
	}
	p.subscribe(m, ids...)
	for _, name := range m.Order {
		a := m.Attributes[name]
		if !a.IsAssociation() {
			continue
		}
		target := a.Assoc.Target
		var children []any
		for _, r := range recs {
			switch v := r[name].(type) {
			case model.Record:
				children = append(children, v[target.PrimaryKey])
			case []model.Record:
				for _, c := range v {
					children = append(children, c[target.PrimaryKey])
				}
			}
		}
		p.subscribe(target, children...)
	}
	if p.autoWatch && p.deepWatch {
		p.watch(associated(m)...)
	}
}

// listens reports whether a notification about the record id of m would
// reach anyone: a subscriber other than the omitted requester, or, with
// mirror, a socket requester (it is subscribed before it is notified).
// Without a way to tell, it assumes someone does.
func (p *pubsub) listens(m *model.Model, id any) bool {
	if p.n == nil {
		return false
	}
	if p.socket != "" && p.omit == "" {
		return true
	}
	c, ok := p.n.(subscriptionChecker)
	return !ok || c.Subscribed(m.Identity, id, p.omit)
}

// publish sends msg to the subscribers of record id of m.
func (p *pubsub) publish(m *model.Model, id any, msg any) {
	if p.n == nil {
		return
	}
	p.failed("publish", p.n.Publish(p.ctx, m.Identity, []any{id}, msg, p.omit))
}

// links publishes the association changes of a write: addedTo and
// removedFrom for collections, updated without previous for keys. Links of
// the written record itself (skip) are left out: its created, updated or
// destroyed message already tells them.
func (p *pubsub) links(changes orm.Changes, skip *model.Model, skipID any) {
	if p.n == nil {
		return
	}
	for _, l := range changes {
		if l.Model == skip && l.ID == skipID {
			continue
		}
		if !l.Plural() {
			data := l.Model.Serialize(model.Record{l.Attr: l.Key})
			p.publish(l.Model, l.ID, updatedMessage{Verb: "updated", ID: l.ID, Data: data})
			continue
		}
		if p.format == FormatSails {
			for _, c := range l.Added {
				p.publish(l.Model, l.ID, addedOneMessage{ID: l.ID, Verb: "addedTo", Attribute: l.Attr, AddedID: c})
			}
			for _, c := range l.Removed {
				p.publish(l.Model, l.ID, removedOneMessage{ID: l.ID, Verb: "removedFrom", Attribute: l.Attr, RemovedID: c})
			}
			continue
		}
		if len(l.Added) > 0 {
			p.publish(l.Model, l.ID, addedMessage{ID: l.ID, Verb: "addedTo", Attribute: l.Attr, AddedIDs: l.Added})
		}
		if len(l.Removed) > 0 {
			p.publish(l.Model, l.ID, removedMessage{ID: l.ID, Verb: "removedFrom", Attribute: l.Attr, RemovedIDs: l.Removed})
		}
	}
}

// created publishes a new record: the changes on the other sides, then
// created to the watchers, who then join the record's room. A socket
// requester is subscribed to it. data is the record as created carries it,
// already serialised; nil means rec as stored.
func (p *pubsub) created(m *model.Model, rec, data model.Record, changes orm.Changes) {
	if p.n == nil {
		return
	}
	id := rec[m.PrimaryKey]
	if data == nil {
		data = m.Serialize(rec)
	}
	p.subscribe(m, id)
	p.links(changes, m, id)
	p.failed("publish created", p.n.PublishWatchers(p.ctx, m.Identity, createdMessage{Verb: "created", ID: id, Data: data}, p.omit))
	p.failed("introduce", p.n.Introduce(m.Identity, id))
}

// updated publishes a changed record: the changes on the other sides, then
// updated with the values set and the record as it was (before, populated
// as the request populates its answer).
func (p *pubsub) updated(m *model.Model, before, after model.Record, set map[string]any, changes orm.Changes) {
	if p.n == nil {
		return
	}
	id := after[m.PrimaryKey]
	p.subscribe(m, id)
	p.links(changes, m, id)
	data := model.Record{m.PrimaryKey: id}
	for name, a := range m.Attributes {
		if _, given := set[name]; (given || a.AutoUpdatedAt) && !a.IsPlural() {
			data[name] = after[name]
		}
	}
	if !m.Schema {
		// Undeclared keys that were set, as stored.
		for name := range set {
			if v, stored := after[name]; stored && m.Attr(name) == nil {
				data[name] = v
			}
		}
	}
	p.publish(m, id, updatedMessage{Verb: "updated", ID: id, Data: m.Serialize(data), Previous: m.Serialize(before)})
}

// destroyed publishes a destroyed record to its subscribers, empties its
// room, then publishes the changes on the other sides. previous is the
// record as it was, populated and already serialised.
func (p *pubsub) destroyed(m *model.Model, id any, previous model.Record, changes orm.Changes) {
	if p.n == nil {
		return
	}
	p.publish(m, id, destroyedMessage{Verb: "destroyed", ID: id, Previous: previous})
	p.failed("retire", p.n.Retire(m.Identity, id))
	p.links(changes, m, id)
}

// collectionChanged subscribes a socket requester to the parent and to the
// members an add or replace linked, then publishes the changes.
func (p *pubsub) collectionChanged(m *model.Model, alias string, parent any, action Action, changes orm.Changes) {
	if p.n == nil {
		return
	}
	if action != Remove {
		p.subscribe(m, parent)
		for _, l := range changes {
			if l.Model == m && l.ID == parent && l.Attr == alias {
				p.subscribe(m.Attributes[alias].Assoc.Target, l.Added...)
			}
		}
	}
	p.links(changes, nil, nil)
}

// associated returns the models m's associations point at, each once.
func associated(m *model.Model) []*model.Model {
	var out []*model.Model
	for _, name := range m.Order {
		if a := m.Attributes[name]; a.IsAssociation() && !slices.Contains(out, a.Assoc.Target) {
			out = append(out, a.Assoc.Target)
		}
	}
	return out
}
