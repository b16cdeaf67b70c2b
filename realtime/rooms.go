package realtime

// Rooms and their members, with introductions kept implicit.
//
// AddMembers(src, dest) (Sails' addRoomMembersToRooms) puts the sockets in
// src at that moment in dest. Every create does it from the model's watch
// room to the new record's room, so storing each membership would cost
// watchers × creates entries that live as long as the records. Instead the
// destination records the introduction, (src, seq), and src remembers it
// was introduced to dest: a socket m is an implicit member of dest when it
// has been in src since before seq and has not left dest after seq. A
// create then costs the same memory whatever the number of watchers.
//
// seq is one counter for the whole hub, advanced by every join, leave and
// introduction, so "before" and "after" compare events of any rooms.
//
// To keep every rule exact and cheap, a room is never both a source and a
// destination of implicit introductions: AddMembers falls back to explicit
// joins when src has implicit members itself, or when dest is a source.
// A socket that leaves a source room while staying connected (Leave,
// RemoveMembers, Empty of a watch room: no blueprint action does it) first
// becomes an explicit member of the rooms it was introduced to, as it
// would have been; a socket that disconnects simply goes.
//
// All of this runs with the Hub's mu held (for reading where marked).

// room is one room's state. A room is in Hub.rooms while any field holds
// something. A hub may hold a room for every record ever created (each
// create introduces the model's watchers to one), so the common room, with
// one introduction and nothing else, is kept to 48 bytes: what only source
// rooms and rooms left after an introduction need is in more.
type room struct {
	name string
	// members are the explicit members, with the seq of their joining.
	members map[*member]joined
	// in is the first introduction (usually the only one, by the watch
	// room of the record's model); in.src is nil when there is none.
	in   intro
	more *roomMore // nil while all its fields would be empty
}

// roomMore is the state of a room beyond its first introduction.
type roomMore struct {
	// in are the introductions after room.in.
	in []intro
	// outs (source side) counts the rooms the members were introduced to:
	// those whose introductions name this room. They are found by going
	// through the hub's rooms, which only happens when a source room loses
	// a member still connected, or its last member, rather than each
	// record room costing a map entry in its source.
	outs int
	// left maps the sockets that left after an introduction that made
	// them implicit members to the seq of their leaving. Only a room with
	// introductions holds any.
	left map[*member]uint64
}

// intro is an introduction of src's members to a room at seq.
type intro struct {
	src *room
	seq uint64
}

// x returns r.more, made if need be.
func (r *room) x() *roomMore {
	if r.more == nil {
		r.more = &roomMore{}
	}
	return r.more
}

// tidy drops r.more once it holds nothing.
func (r *room) tidy() {
	if m := r.more; m != nil && len(m.in) == 0 && m.outs == 0 && len(m.left) == 0 {
		r.more = nil
	}
}

// source reports whether r's members were introduced to another room.
func (r *room) source() bool { return r.more != nil && r.more.outs > 0 }

// dests calls f with each room r's members were introduced to, and that
// introduction. f may forget the room.
func (h *Hub) dests(r *room, f func(d *room, in intro)) {
	if !r.source() {
		return
	}
	for _, d := range h.rooms {
		if in, ok := d.introFrom(r); ok {
			f(d, in)
		}
	}
}

// left returns when each socket left r after an introduction.
func (r *room) left() map[*member]uint64 {
	if r.more == nil {
		return nil
	}
	return r.more.left
}

// intros returns how many introductions r has.
func (r *room) intros() int {
	if r.in.src == nil {
		return 0
	}
	if r.more == nil {
		return 1
	}
	return 1 + len(r.more.in)
}

// intro returns r's i-th introduction.
func (r *room) intro(i int) intro {
	if i == 0 {
		return r.in
	}
	return r.more.in[i-1]
}

// introduced sets the seq of src's introduction to r, adding it if new.
func (r *room) introduced(src *room, seq uint64) {
	if _, ok := r.introFrom(src); !ok {
		src.x().outs++
	}
	for i := range r.intros() {
		if r.intro(i).src == src {
			if i == 0 {
				r.in.seq = seq
			} else {
				r.more.in[i-1].seq = seq
			}
			return
		}
	}
	if r.in.src == nil {
		r.in = intro{src: src, seq: seq}
		return
	}
	x := r.x()
	x.in = append(x.in, intro{src: src, seq: seq})
}

// forgetIntro drops src's introduction to r.
func (r *room) forgetIntro(src *room) {
	if _, ok := r.introFrom(src); !ok {
		return
	}
	src.more.outs--
	src.tidy()
	if r.in.src == src {
		r.in = intro{}
		if r.more != nil && len(r.more.in) > 0 {
			r.in = r.more.in[0]
			r.more.in = r.more.in[1:]
		}
	} else if r.more != nil {
		for i, in := range r.more.in {
			if in.src == src {
				r.more.in = append(r.more.in[:i], r.more.in[i+1:]...)
				break
			}
		}
	}
	if r.more != nil && len(r.more.in) == 0 {
		r.more.in = nil
	}
	r.tidy()
}

// introFrom returns src's introduction to r.
func (r *room) introFrom(src *room) (intro, bool) {
	for i := range r.intros() {
		if in := r.intro(i); in.src == src {
			return in, true
		}
	}
	return intro{}, false
}

// member is a registered socket.
type member struct {
	conn Conn
	// rooms are the rooms it joined explicitly.
	rooms map[*room]struct{}
	// left are the rooms whose left map holds it.
	left map[*room]struct{}
}

// joined is an explicit membership: when the member joined, and its
// connection, which a fan-out reads from the room's map itself rather than
// from each member, a cold line apiece.
type joined struct {
	seq  uint64
	conn Conn
}

// through reports whether m is a member of r by the introduction in.
func (r *room) through(m *member, in intro) bool {
	j, ok := in.src.members[m]
	if !ok || j.seq > in.seq {
		return false
	}
	gone, ok := r.left()[m]
	return !ok || gone < in.seq
}

// implicit reports whether m is a member of r by an introduction.
func (r *room) implicit(m *member) bool {
	for i := range r.intros() {
		if r.through(m, r.intro(i)) {
			return true
		}
	}
	return false
}

// has reports whether m is a member of r. (Read lock.)
func (r *room) has(m *member) bool {
	if _, ok := r.members[m]; ok {
		return true
	}
	return r.implicit(m)
}

// each calls f with every member of r and its connection, each once,
// until f returns false. (Read lock.)
func (r *room) each(f func(*member, Conn) bool) {
	for m, j := range r.members {
		if !f(m, j.conn) {
			return
		}
	}
	for i := range r.intros() {
		in := r.intro(i)
		for m, j := range in.src.members {
			if j.seq > in.seq {
				continue
			}
			if _, ok := r.members[m]; ok {
				continue
			}
			if gone, ok := r.left()[m]; ok && gone > in.seq {
				continue
			}
			if i > 0 && r.throughAny(m, i) {
				continue // already seen
			}
			if !f(m, j.conn) {
				return
			}
		}
	}
}

// throughAny reports whether m is a member of r by one of its first n
// introductions.
func (r *room) throughAny(m *member, n int) bool {
	for i := range n {
		if r.through(m, r.intro(i)) {
			return true
		}
	}
	return false
}

// size bounds the number of r's members from above, to size a slice.
func (r *room) size() int {
	n := len(r.members)
	for i := range r.intros() {
		n += len(r.intro(i).src.members)
	}
	return n
}

// empty reports whether r holds nothing and may be forgotten.
func (r *room) empty() bool {
	return len(r.members) == 0 && r.in.src == nil && r.more == nil
}

// next advances the hub's event counter. (Write lock, as below.)
func (h *Hub) next() uint64 {
	h.seq++
	return h.seq
}

// room returns the room named name, made if need be.
func (h *Hub) room(name string) *room {
	r := h.rooms[name]
	if r == nil {
		r = &room{name: name}
		h.rooms[name] = r
	}
	return r
}

// forget drops r from the hub if it holds nothing.
func (h *Hub) forget(r *room) {
	if r.empty() {
		delete(h.rooms, r.name)
	}
}

// join makes m an explicit member of r. A socket already in the room keeps
// its seq: it was in it for every introduction since.
func (h *Hub) join(m *member, r *room) {
	if _, ok := r.members[m]; ok {
		return
	}
	if r.members == nil {
		r.members = map[*member]joined{}
	}
	r.members[m] = joined{seq: h.next(), conn: m.conn}
	m.rooms[r] = struct{}{}
}

// leave takes m out of r, explicitly and implicitly.
func (h *Hub) leave(m *member, r *room) {
	if _, ok := r.members[m]; ok {
		if r.source() {
			h.materialize(m, r)
		}
		delete(r.members, m)
		delete(m.rooms, r)
		if len(r.members) == 0 {
			h.dropOut(r)
		}
	}
	if r.implicit(m) {
		x := r.x()
		if x.left == nil {
			x.left = map[*member]uint64{}
		}
		x.left[m] = h.next()
		if m.left == nil {
			m.left = map[*room]struct{}{}
		}
		m.left[r] = struct{}{}
	}
	h.forget(r)
}

// materialize makes m, about to leave the source room src while staying
// connected, an explicit member of the rooms it is in through src.
func (h *Hub) materialize(m *member, src *room) {
	h.dests(src, func(d *room, in intro) {
		if d.through(m, in) {
			h.join(m, d)
		}
	})
}

// dropOut forgets the introductions of src, which has no member left:
// nobody is in a room through them any more.
func (h *Hub) dropOut(src *room) {
	h.dests(src, func(d *room, _ intro) {
		d.forgetIntro(src)
		if d.intros() == 0 {
			h.clearLeft(d)
		}
		h.forget(d)
	})
}

// clearLeft forgets who left r after its introductions.
func (h *Hub) clearLeft(r *room) {
	for m := range r.left() {
		delete(m.left, r)
	}
	if r.more != nil {
		r.more.left = nil
		r.tidy()
	}
}

// introduce puts every member of src in each room of dest.
func (h *Hub) introduce(src *room, dest []string) {
	var snapshot []*member // src's members, for explicit joins
	for _, name := range dest {
		if name == src.name {
			continue
		}
		d := h.room(name)
		if src.intros() > 0 || d.source() {
			if snapshot == nil {
				src.each(func(m *member, _ Conn) bool { snapshot = append(snapshot, m); return true })
			}
			for _, m := range snapshot {
				h.join(m, d)
			}
			h.forget(d)
			continue
		}
		d.introduced(src, h.next())
	}
}

// emptyRoom takes every socket out of r.
func (h *Hub) emptyRoom(r *room) {
	if r.source() {
		for m := range r.members {
			h.materialize(m, r)
		}
		h.dropOut(r)
	}
	for m := range r.members {
		delete(m.rooms, r)
	}
	r.members = nil
	for r.intros() > 0 {
		r.forgetIntro(r.in.src)
	}
	h.clearLeft(r)
	h.forget(r)
}

// unregister forgets m: a socket that is gone needs no materialising.
func (h *Hub) unregister(m *member) {
	for r := range m.rooms {
		delete(r.members, m)
		if len(r.members) == 0 {
			h.dropOut(r)
		}
		h.forget(r)
	}
	for r := range m.left {
		if x := r.more; x != nil {
			delete(x.left, m)
			if len(x.left) == 0 {
				x.left = nil
			}
			r.tidy()
		}
		h.forget(r)
	}
	m.rooms, m.left = nil, nil
}

// roomsOf returns the names of the rooms m is in. (Read lock.)
func (h *Hub) roomsOf(m *member) []string {
	out := make([]string, 0, len(m.rooms))
	for r := range m.rooms {
		out = append(out, r.name)
	}
	var seen map[*room]struct{}
	for src := range m.rooms {
		h.dests(src, func(d *room, _ intro) {
			if _, explicit := d.members[m]; explicit || !d.implicit(m) {
				return
			}
			if _, dup := seen[d]; dup {
				return
			}
			if seen == nil {
				seen = map[*room]struct{}{}
			}
			seen[d] = struct{}{}
			out = append(out, d.name)
		})
	}
	return out
}
