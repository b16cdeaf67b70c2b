package orm

import (
	"context"
	"slices"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

// A Link is how one write changed one association of one record: the
// members a collection gained and lost, or the new key of a singular
// association. The realtime layer turns each Link into one notification
// (addedTo, removedFrom or updated) without reading anything again.
type Link struct {
	Model *model.Model
	// ID is the primary key of the record whose association changed.
	ID any
	// Attr names the association on Model.
	Attr string
	// Added and Removed are the ids that became and stopped being members
	// of a plural association, in the order the write applied them.
	Added, Removed []any
	// Key is the new value of a singular association, nil when cleared.
	Key any
}

// Plural reports whether l is about a collection.
func (l *Link) Plural() bool { return l.Model.Attributes[l.Attr].IsPlural() }

// Changes lists every association change of one write, on every side: the
// written record's own links first, then the records at the other end
// (children whose key or collection moved, parents a child was taken from).
// It holds at most one Link per record and attribute, and is empty when the
// write changed no association.
type Changes []Link

// changeSet builds Changes, merging what one write did to the same record
// and attribute into one Link.
type changeSet struct {
	links []Link
	index map[linkKey]int
}

type linkKey struct {
	model *model.Model
	id    any
	attr  string
}

// indexedLinks is the number of links from which a changeSet finds a
// record's link through its index; below it, by looking at each: most
// writes change a few links (a create with an owner, two), for which the
// map cost more than the search (an allocation of its own, the hashing).
const indexedLinks = 8

// grow makes room for n more links, so that a write that knows how many
// records it touches fills the set without growing it step by step.
func (cs *changeSet) grow(n int) {
	if cs.index == nil && len(cs.links)+n >= indexedLinks {
		cs.makeIndex(len(cs.links) + n)
	}
	cs.links = slices.Grow(cs.links, n)
}

// makeIndex indexes the links, with room for n.
func (cs *changeSet) makeIndex(n int) {
	cs.index = make(map[linkKey]int, n)
	for i, l := range cs.links {
		cs.index[linkKey{l.Model, l.ID, l.Attr}] = i
	}
}

// link returns the link of attr of record id of m, added when it has none.
// Once the set is indexed, every link is in the index.
func (cs *changeSet) link(m *model.Model, id any, attr string) *Link {
	if cs.index == nil {
		for i := range cs.links {
			if l := &cs.links[i]; l.Model == m && l.Attr == attr && l.ID == id {
				return l
			}
		}
		if len(cs.links) < indexedLinks {
			cs.links = append(cs.links, Link{Model: m, ID: id, Attr: attr})
			return &cs.links[len(cs.links)-1]
		}
		cs.makeIndex(2 * len(cs.links))
	}
	k := linkKey{m, id, attr}
	if i, ok := cs.index[k]; ok {
		return &cs.links[i]
	}
	cs.index[k] = len(cs.links)
	cs.links = append(cs.links, Link{Model: m, ID: id, Attr: attr})
	return &cs.links[len(cs.links)-1]
}

// plural records that ids joined (added) or left the collection attr of
// record id. An id leaving and joining in one write cancels out.
func (cs *changeSet) plural(m *model.Model, id any, attr string, ids []any, added bool) {
	if len(ids) == 0 {
		return
	}
	l := cs.link(m, id, attr)
	from, to := &l.Removed, &l.Added
	if !added {
		from, to = to, from
	}
	if len(ids) > 1 && len(ids)+len(*from)+len(*to) > smallList {
		pluralMany(from, to, ids)
		return
	}
	for _, c := range ids {
		if i := slices.Index(*from, c); i >= 0 {
			*from = slices.Delete(*from, i, i+1)
			continue
		}
		if !slices.Contains(*to, c) {
			*to = append(*to, c)
		}
	}
}

// smallList is the length up to which a list is searched element by
// element; longer ones are indexed first, so that a write naming many
// records costs time in proportion to their number.
const smallList = 32

// pluralMany is plural's loop for many ids: each of ids leaves from, or
// else joins to, once.
func pluralMany(from, to *[]any, ids []any) {
	inFrom, inTo := keySet(*from), keySet(*to)
	var cancelled map[any]struct{}
	for _, c := range ids {
		if _, ok := inFrom[c]; ok {
			delete(inFrom, c)
			if cancelled == nil {
				cancelled = map[any]struct{}{}
			}
			cancelled[c] = struct{}{}
			continue
		}
		if _, ok := inTo[c]; !ok {
			inTo[c] = struct{}{}
			*to = append(*to, c)
		}
	}
	if cancelled != nil {
		*from = slices.DeleteFunc(*from, func(c any) bool {
			_, ok := cancelled[c]
			return ok
		})
	}
}

// keySet indexes ids.
func keySet(ids []any) map[any]struct{} {
	set := make(map[any]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	return set
}

// except returns the ids that are not in others, in their order (nil when
// there are none).
func except(ids, others []any) []any {
	set := keySet(others)
	var out []any
	for _, id := range ids {
		if !has(set, id) {
			out = append(out, id)
		}
	}
	return out
}

// has reports whether set holds id.
func has(set map[any]struct{}, id any) bool {
	_, ok := set[id]
	return ok
}

// singular records that the key attr of record id is now key.
func (cs *changeSet) singular(m *model.Model, id any, attr string, key any) {
	cs.link(m, id, attr).Key = key
}

// changes returns the links that still say something. It ends cs: the
// result reuses its links.
func (cs *changeSet) changes() Changes {
	out := Changes(cs.links[:0])
	for _, l := range cs.links {
		if l.Plural() && len(l.Added) == 0 && len(l.Removed) == 0 {
			continue
		}
		out = append(out, l)
	}
	*cs = changeSet{}
	if out == nil {
		return Changes{}
	}
	return out
}

// collectionChanged records that the collection a of parent gained added
// and lost removed, with what that means on the other side: the children's
// key (one-to-many) or their mirror collection (many-to-many with via).
func (cs *changeSet) collectionChanged(m *model.Model, a *model.Attribute, parent any, added, removed []any) {
	// The parent's link and one per child.
	cs.grow(1 + len(added) + len(removed))
	cs.plural(m, parent, a.Name, added, true)
	cs.plural(m, parent, a.Name, removed, false)
	inv := a.Assoc.Inverse
	if inv == nil {
		return
	}
	target := a.Assoc.Target
	for _, c := range added {
		if inv.IsSingular() {
			cs.singular(target, c, inv.Name, parent)
		} else {
			cs.plural(target, c, inv.Name, []any{parent}, true)
		}
	}
	for _, c := range removed {
		if inv.IsSingular() {
			cs.singular(target, c, inv.Name, nil)
		} else {
			cs.plural(target, c, inv.Name, []any{parent}, false)
		}
	}
}

// keyChanged records that the singular association a of record id went
// from old to key, with the parents' collections on the other side.
func (cs *changeSet) keyChanged(m *model.Model, a *model.Attribute, id, old, key any) {
	if old == key {
		return
	}
	cs.singular(m, id, a.Name, key)
	inv := a.Assoc.Inverse
	if inv == nil || !inv.IsPlural() {
		return
	}
	if old != nil {
		cs.plural(a.Assoc.Target, old, inv.Name, []any{id}, false)
	}
	if key != nil {
		cs.plural(a.Assoc.Target, key, inv.Name, []any{id}, true)
	}
}

// takeFrom records the parents that children about to join parent's
// one-to-many collection a leave: a child has one parent, so linking it
// takes it from the one it had. It must run before the children are linked.
// The parents are read from locked (see lockedMembers) when it holds every
// child, else from the store.
func (o *ORM) takeFrom(ctx context.Context, cs *changeSet, locked lockedRows, m *model.Model, a *model.Attribute, parent any, children []any) error {
	if a.Assoc.Kind != model.HasMany || len(children) == 0 {
		return nil
	}
	target, via := a.Assoc.Target, a.Assoc.Inverse.Name
	if te, err := o.entry(target); err == nil && locked != nil {
		owner := make(map[any]any, len(children))
		for _, c := range children {
			v, read := locked.row(te, c)[via]
			if !read {
				owner = nil
				break
			}
			owner[c] = v
		}
		if owner != nil {
			leave(cs, m, a, parent, children, owner)
			return nil
		}
	}
	recs, err := o.Find(ctx, target, &criteria.Criteria{
		Where: &criteria.Cmp{Attr: target.PrimaryKey, Op: criteria.In, Value: children},
		Limit: criteria.Unlimited, Select: []string{target.PrimaryKey, via},
	}, nil)
	if err != nil {
		return err
	}
	owner := make(map[any]any, len(recs))
	for _, r := range recs {
		owner[r[target.PrimaryKey]] = r[via]
	}
	leave(cs, m, a, parent, children, owner)
	return nil
}

// leave records the children leaving the one-to-many parent owner names
// for each of them, when it is not parent.
func leave(cs *changeSet, m *model.Model, a *model.Attribute, parent any, children []any, owner map[any]any) {
	// Grouped by the parent they leave, so that a parent losing many
	// children records them in one call.
	var froms []any
	leaving := map[any][]any{}
	for _, c := range children {
		if from := owner[c]; from != nil && from != parent {
			if _, seen := leaving[from]; !seen {
				froms = append(froms, from)
			}
			leaving[from] = append(leaving[from], c)
		}
	}
	for _, from := range froms {
		cs.plural(m, from, a.Name, leaving[from], false)
	}
}
