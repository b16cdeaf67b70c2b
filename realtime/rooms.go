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
// something.
type room struct {
	name string
	// members are the explicit members, with the seq of their joining.
	members map[*member]uint64
	// out (source side) maps each room the members were introduced to, to
	// the seq of the latest introduction.
	out map[*room]uint64
	// in (destination side) lists the introductions: usually one, by the
	// watch room of the record's model.
	in []intro
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

// member is a registered socket.
type member struct {
	conn Conn
	// rooms are the rooms it joined explicitly.
	rooms map[*room]struct{}
	// left are the rooms whose left map holds it.
	left map[*room]struct{}
}

// through reports whether m is a member of r by the introduction in.
func (r *room) through(m *member, in intro) bool {
	joined, ok := in.src.members[m]
	if !ok || joined > in.seq {
		return false
	}
	gone, ok := r.left[m]
	return !ok || gone < in.seq
}

// implicit reports whether m is a member of r by an introduction.
func (r *room) implicit(m *member) bool {
	for _, in := range r.in {
		if r.through(m, in) {
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

// each calls f with every member of r, each once, until f returns false.
// (Read lock.)
func (r *room) each(f func(*member) bool) {
	for m := range r.members {
		if !f(m) {
			return
		}
	}
	for i, in := range r.in {
		for m, joined := range in.src.members {
			if joined > in.seq {
				continue
			}
			if _, ok := r.members[m]; ok {
				continue
			}
			if gone, ok := r.left[m]; ok && gone > in.seq {
				continue
			}
			if i > 0 && r.throughAny(m, r.in[:i]) {
				continue // already seen
			}
			if !f(m) {
				return
			}
		}
	}
}

func (r *room) throughAny(m *member, ins []intro) bool {
	for _, in := range ins {
		if r.through(m, in) {
			return true
		}
	}
	return false
}

// size bounds the number of r's members from above, to size a slice.
func (r *room) size() int {
	n := len(r.members)
	for _, in := range r.in {
		n += len(in.src.members)
	}
	return n
}

// empty reports whether r holds nothing and may be forgotten.
func (r *room) empty() bool {
	return len(r.members) == 0 && len(r.out) == 0 && len(r.in) == 0 && len(r.left) == 0
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
		r.members = map[*member]uint64{}
	}
	r.members[m] = h.next()
	m.rooms[r] = struct{}{}
}

// leave takes m out of r, explicitly and implicitly.
func (h *Hub) leave(m *member, r *room) {
	if _, ok := r.members[m]; ok {
		if len(r.out) > 0 {
			h.materialize(m, r)
		}
		delete(r.members, m)
		delete(m.rooms, r)
		if len(r.members) == 0 {
			h.dropOut(r)
		}
	}
	if r.implicit(m) {
		if r.left == nil {
			r.left = map[*member]uint64{}
		}
		r.left[m] = h.next()
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
	for d, seq := range src.out {
		if d.through(m, intro{src: src, seq: seq}) {
			h.join(m, d)
		}
	}
}

// dropOut forgets the introductions of src, which has no member left:
// nobody is in a room through them any more.
func (h *Hub) dropOut(src *room) {
	for d := range src.out {
		d.in = deleteIntro(d.in, src)
		if len(d.in) == 0 {
			h.clearLeft(d)
		}
		h.forget(d)
	}
	src.out = nil
}

func deleteIntro(ins []intro, src *room) []intro {
	for i, in := range ins {
		if in.src == src {
			ins = append(ins[:i], ins[i+1:]...)
			break
		}
	}
	if len(ins) == 0 {
		return nil
	}
	return ins
}

// clearLeft forgets who left r after its introductions.
func (h *Hub) clearLeft(r *room) {
	for m := range r.left {
		delete(m.left, r)
	}
	r.left = nil
}

// introduce puts every member of src in each room of dest.
func (h *Hub) introduce(src *room, dest []string) {
	var snapshot []*member // src's members, for explicit joins
	for _, name := range dest {
		if name == src.name {
			continue
		}
		d := h.room(name)
		if len(src.in) > 0 || len(d.out) > 0 {
			if snapshot == nil {
				src.each(func(m *member) bool { snapshot = append(snapshot, m); return true })
			}
			for _, m := range snapshot {
				h.join(m, d)
			}
			h.forget(d)
			continue
		}
		seq := h.next()
		if src.out == nil {
			src.out = map[*room]uint64{}
		}
		src.out[d] = seq
		replaced := false
		for i := range d.in {
			if d.in[i].src == src {
				d.in[i].seq, replaced = seq, true
			}
		}
		if !replaced {
			d.in = append(d.in, intro{src: src, seq: seq})
		}
	}
}

// emptyRoom takes every socket out of r.
func (h *Hub) emptyRoom(r *room) {
	if len(r.out) > 0 {
		for m := range r.members {
			h.materialize(m, r)
		}
		h.dropOut(r)
	}
	for m := range r.members {
		delete(m.rooms, r)
	}
	r.members = nil
	for _, in := range r.in {
		delete(in.src.out, r)
	}
	r.in = nil
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
		delete(r.left, m)
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
		for d := range src.out {
			if _, explicit := d.members[m]; explicit || !d.implicit(m) {
				continue
			}
			if _, dup := seen[d]; dup {
				continue
			}
			if seen == nil {
				seen = map[*room]struct{}{}
			}
			seen[d] = struct{}{}
			out = append(out, d.name)
		}
	}
	return out
}
