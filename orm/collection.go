package orm

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// collection checks that alias is a plural association of m and normalises
// the parent's key; it returns the attribute and the key.
func (o *ORM) collection(m *model.Model, alias string, parent any) (*model.Attribute, any, error) {
	a := m.Attr(alias)
	switch {
	case a == nil || !a.IsAssociation():
		return nil, nil, model.Errorf(model.Invalid, "E_INVALID_COLLECTION_ATTR_NAME",
			"`%s` is not an association of %s.", alias, m.Identity)
	case a.IsSingular():
		return nil, nil, model.Errorf(model.Invalid, "E_INVALID_COLLECTION_ATTR_NAME",
			"`%s` is a singular association of %s: set it with update (PATCH /%s/:id) instead.", alias, m.Identity, m.Identity)
	}
	pk, err := m.NormalizePK(parent)
	if err != nil {
		return nil, nil, model.Errorf(model.Invalid, model.CodeInvalidTargetIDs,
			"%s is not a valid primary key for %s.", model.Describe(parent), m.Identity)
	}
	return a, pk, nil
}

// childIDs normalises ids to the target's key type and removes duplicates.
func childIDs(a *model.Attribute, ids []any) ([]any, error) {
	target := a.Assoc.Target
	if len(ids) > model.MaxIDs {
		return nil, model.Errorf(model.Invalid, model.CodeInvalidAssociatedIDs, "Could not use specified `%s`: %s", a.Name, model.TooManyIDs(len(ids)))
	}
	out := make([]any, 0, len(ids))
	seen := make(map[any]struct{}, len(ids))
	for _, id := range ids {
		v, err := target.NormalizePK(id)
		if err != nil {
			return nil, model.Errorf(model.Invalid, model.CodeInvalidAssociatedIDs,
				"%s is not a valid primary key for %s.", model.Describe(id), target.Identity)
		}
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out, nil
}

// members returns the current member ids of the parent's collection.
func (o *ORM) members(ctx context.Context, a *model.Attribute, parent any) ([]any, error) {
	me, q, attr, err := o.membersQuery(a, parent, nil)
	if err != nil {
		return nil, err
	}
	rows, err := o.adapter(ctx, me).Find(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", me.model.Identity, err)
	}
	return memberIDs(me, rows, attr), nil
}

// membersQuery returns the query that reads the member ids of the parent's
// collection (only those among only, when it is not nil), the entry of the
// table it reads and the attribute that holds the ids there: the children's
// key (one-to-many) or the join rows' child.
func (o *ORM) membersQuery(a *model.Attribute, parent any, only []any) (*entry, *datastore.Query, string, error) {
	var me *entry
	var parentAttr, childAttr string
	if a.Assoc.Kind == model.HasMany {
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return nil, nil, "", err
		}
		me, parentAttr, childAttr = te, a.Assoc.Inverse.Name, te.model.PrimaryKey
	} else {
		join := a.Assoc.Join
		je, err := o.entry(join.Model)
		if err != nil {
			return nil, nil, "", err
		}
		me, parentAttr, childAttr = je, join.ParentAttr, join.ChildAttr
	}
	var where criteria.Expr = &criteria.Cmp{Attr: parentAttr, Op: criteria.Eq, Value: parent}
	if only != nil {
		where = &criteria.And{Exprs: []criteria.Expr{where, &criteria.Cmp{Attr: childAttr, Op: criteria.In, Value: only}}}
	}
	return me, me.query(&criteria.Criteria{
		Where: where, Limit: criteria.Unlimited, Select: []string{childAttr},
	}), childAttr, nil
}

// memberIDs returns the distinct ids in attr of the rows a membersQuery
// read from the table of me.
func memberIDs(me *entry, rows []datastore.Record, attr string) []any {
	recs := make([]model.Record, len(rows))
	for i, row := range rows {
		recs[i] = me.fromRow(row)
	}
	return distinct(recs, attr)
}

// AddTo makes child a member of the collection alias of the record of m
// with key parent and reports the changes on every side. Adding a member
// again changes nothing.
func (o *ORM) AddTo(ctx context.Context, m *model.Model, alias string, parent, child any) (Changes, error) {
	return o.addOrRemove(ctx, m, alias, parent, child, true)
}

// RemoveFrom removes child from the collection alias of the record of m
// with key parent and reports the changes on every side. Removing a record
// that is not a member changes nothing.
func (o *ORM) RemoveFrom(ctx context.Context, m *model.Model, alias string, parent, child any) (Changes, error) {
	return o.addOrRemove(ctx, m, alias, parent, child, false)
}

func (o *ORM) addOrRemove(ctx context.Context, m *model.Model, alias string, parent, child any, add bool) (Changes, error) {
	a, pk, err := o.collection(m, alias, parent)
	if err != nil {
		return nil, err
	}
	ids, err := childIDs(a, []any{child})
	if err != nil {
		return nil, err
	}
	id := ids[0]
	var cs changeSet
	err = o.InTx(ctx, m.Datastore, func(ctx context.Context) error {
		cs = changeSet{}
		have, locked, err := o.lockedMembers(ctx, m, a, pk, ids, lockTouched, false)
		if err != nil {
			return err
		}
		if err := o.requireLocked(ctx, locked, m, pk); err != nil {
			return err
		}
		if err := o.requireLocked(ctx, locked, a.Assoc.Target, id); err != nil {
			return err
		}
		switch member := slices.Contains(have, id); {
		case add && !member:
			return o.apply(ctx, &cs, locked, m, a, pk, []any{id}, nil)
		case !add && member:
			return o.apply(ctx, &cs, locked, m, a, pk, nil, []any{id})
		}
		return nil
	})
	if err != nil {
		op := "remove"
		if add {
			op = "add"
		}
		return nil, wrap(op, m, err)
	}
	return cs.changes(), nil
}

// apply writes a computed change of the parent's collection and records it
// in cs, with the parents the added children are taken from (read from
// locked when lockedMembers read them there).
func (o *ORM) apply(ctx context.Context, cs *changeSet, locked lockedRows, m *model.Model, a *model.Attribute, parent any, added, removed []any) error {
	cs.collectionChanged(m, a, parent, added, removed)
	if len(removed) > 0 {
		if err := o.unlink(ctx, a, parent, removed); err != nil {
			return err
		}
	}
	if len(added) > 0 {
		if err := o.takeFrom(ctx, cs, locked, m, a, parent, added); err != nil {
			return err
		}
		e, err := o.entry(a.Assoc.Target)
		if err != nil {
			return err
		}
		return o.link(ctx, e, a, parent, added)
	}
	return nil
}

// unlink removes ids from the parent's collection: one-to-many children get
// a null key (refused when that key is required), join rows are deleted.
func (o *ORM) unlink(ctx context.Context, a *model.Attribute, parent any, ids []any) error {
	if a.Assoc.Kind == model.HasMany {
		via := a.Assoc.Inverse
		if via.Required {
			return requiredError(a, ids)
		}
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return err
		}
		where := &criteria.And{Exprs: []criteria.Expr{
			&criteria.Cmp{Attr: via.Name, Op: criteria.Eq, Value: parent},
			&criteria.Cmp{Attr: te.model.PrimaryKey, Op: criteria.In, Value: ids},
		}}
		err = updateLater(ctx, o.adapter(ctx, te), &datastore.Query{
			Table: te.table, Limit: criteria.Unlimited, Where: criteria.Rename(where, te.column),
		}, te.toRow(model.Record{via.Name: nil}))
		return err
	}
	join := a.Assoc.Join
	je, err := o.entry(join.Model)
	if err != nil {
		return err
	}
	where := &criteria.And{Exprs: []criteria.Expr{
		&criteria.Cmp{Attr: join.ParentAttr, Op: criteria.Eq, Value: parent},
		&criteria.Cmp{Attr: join.ChildAttr, Op: criteria.In, Value: ids},
	}}
	err = destroyLater(ctx, o.adapter(ctx, je), &datastore.Query{
		Table: je.table, Limit: criteria.Unlimited, Where: criteria.Rename(where, je.column),
	})
	return err
}

// requiredError refuses to remove ids from the one-to-many collection a
// whose children's key to their parent is required.
func requiredError(a *model.Attribute, ids []any) error {
	return model.Errorf(model.Invalid, model.CodeInvalidAssociatedIDs,
		"Cannot remove %s from `%s`: their `%s` is required.", describeIDs(ids), a.Name, a.Assoc.Inverse.Name)
}

// lockMode is how lockedMembers takes its locks.
type lockMode uint8

const (
	// lockTouched locks the parent and the touched children in the
	// global order, and reads only the touched children's membership: add
	// and remove.
	lockTouched lockMode = iota
	// lockOrdered reads the members without locks, then locks the parent,
	// the touched children and those members in the global order:
	// replace's generic path.
	lockOrdered
)

// lockedMembers returns the members of the parent's collection, read after
// locking (on engines whose transactions run concurrently) the parent's row
// and the row of every child whose membership the change may touch: touched,
// and with all the current members too when they may be removed. A change
// made from the other side of the association locks the same pair of rows,
// so the two run one after the other and both sides keep agreeing. Rows are
// locked in one global order (table name, then key), so that such changes
// never deadlock. It also returns the locked rows (nil when the engine does
// not lock), which tell which of those records exist and, for a one-to-many
// collection, which parent each child has: the change needs no other read
// for that.
//
// When the members include some that were not locked (they joined after
// the unlocked read of lockOrdered, or they are links to destroyed
// children), lockedMembers answers a lateMembers error if canRetry, so the
// caller rolls back and starts again with them.
func (o *ORM) lockedMembers(ctx context.Context, m *model.Model, a *model.Attribute, pk any, touched []any, mode lockMode, canRetry bool) ([]any, lockedRows, error) {
	e, err := o.entry(m)
	if err != nil {
		return nil, nil, err
	}
	te, err := o.entry(a.Assoc.Target)
	if err != nil {
		return nil, nil, err
	}
	l, ok := o.adapter(ctx, e).(datastore.Locker)
	if !ok {
		have, err := o.members(ctx, a, pk)
		return have, nil, err
	}
	var childAttrs []string
	if a.Assoc.Kind == model.HasMany {
		childAttrs = []string{a.Assoc.Inverse.Name}
	}
	// The members are read again once the locks are held, in the same
	// round trip when they live in the same datastore; add and remove only
	// need to know about the child they touch.
	var only []any
	if mode == lockTouched {
		only = slices.Clip(touched)
	}
	me, mq, mattr, err := o.membersQuery(a, pk, only)
	if err != nil {
		return nil, nil, err
	}
	var reads []*datastore.Query
	if me.store == e.store {
		reads = append(reads, mq)
	}
	children := slices.Clone(touched)
	if mode == lockOrdered {
		// A first read without locks tells which members to lock.
		have, err := o.members(ctx, a, pk)
		if err != nil {
			return nil, nil, err
		}
		children = union(children, have)
	}
	locked, read, err := lockRows(ctx, l, []lockSet{{e: e, ids: []any{pk}}, {e: te, ids: children, attrs: childAttrs}}, reads...)
	if err != nil {
		return nil, nil, err
	}
	var have []any
	if len(read) == 1 {
		have = memberIDs(me, read[0], mattr)
	} else {
		rows, err := o.adapter(ctx, me).Find(ctx, mq)
		if err != nil {
			return nil, nil, fmt.Errorf("find %s: %w", me.model.Identity, err)
		}
		have = memberIDs(me, rows, mattr)
	}
	if mode == lockTouched {
		return have, locked, nil
	}
	var late lateMembers
	for _, id := range have {
		if _, ok := locked[te.table.Name][id]; !ok {
			late = append(late, id)
		}
	}
	if len(late) == 0 {
		return have, locked, nil
	}
	if canRetry {
		return nil, nil, late
	}
	// Out of retries: lock them now, out of order; PostgreSQL reports the
	// rare deadlock this may cause rather than hanging.
	more, _, err := runLocks(ctx, l, []lockSet{{e: te, ids: late, attrs: childAttrs}})
	if err != nil {
		return nil, nil, err
	}
	locked.merge(more)
	have, err = o.members(ctx, a, pk)
	return have, locked, err
}

// maxLockAttempts bounds how often Replace starts again because members
// joined between its first read and its locks.
const maxLockAttempts = 5

// lateMembers aborts a transaction whose locks miss members of the
// collection: taking their locks now could break the lock order, so the
// change starts again with them.
type lateMembers []any

func (l lateMembers) Error() string {
	return fmt.Sprintf("members %s joined before the locks were taken", describeIDs(l))
}

// lockSet names rows of one table by primary key, and the attributes
// besides the key to read from them once locked.
type lockSet struct {
	e     *entry
	ids   []any
	attrs []string
}

// lockedRows are the rows lockRows locked, by table name and key: a key
// that is missing names no record, and none can appear before the
// transaction ends.
type lockedRows map[string]map[any]model.Record

// row returns the locked record of e with key pk, nil when there is none.
func (l lockedRows) row(e *entry, pk any) model.Record {
	return l[e.table.Name][pk]
}

// lockRows locks the rows of sets table by table in name order (a
// self-referencing association has both sides in one table, so they are
// merged), each table's rows in key order, and returns them; then it runs
// reads (see datastore.Locker) and returns their rows too.
func lockRows(ctx context.Context, l datastore.Locker, sets []lockSet, reads ...*datastore.Query) (lockedRows, [][]datastore.Record, error) {
	byTable := map[string]*lockSet{}
	var names []string
	for _, s := range sets {
		if len(s.ids) == 0 {
			continue
		}
		if have := byTable[s.e.table.Name]; have != nil {
			have.ids = union(have.ids, s.ids)
			have.attrs = appendNew(have.attrs, s.attrs)
			continue
		}
		byTable[s.e.table.Name] = &lockSet{e: s.e, ids: slices.Clone(s.ids), attrs: slices.Clone(s.attrs)}
		names = append(names, s.e.table.Name)
	}
	slices.Sort(names)
	ordered := make([]lockSet, len(names))
	for i, name := range names {
		ordered[i] = *byTable[name]
	}
	return runLocks(ctx, l, ordered, reads...)
}

// runLocks locks the rows of sets, set after set, each set's rows in key
// order, and returns them; then it runs reads and returns their rows too.
func runLocks(ctx context.Context, l datastore.Locker, sets []lockSet, reads ...*datastore.Query) (lockedRows, [][]datastore.Record, error) {
	locks, kept := locksOf(sets)
	if len(locks) == 0 && len(reads) == 0 {
		return lockedRows{}, nil, nil
	}
	rows, err := l.Lock(ctx, locks, reads...)
	if err != nil {
		return nil, nil, err
	}
	return lockedFrom(kept, rows), rows[len(locks):], nil
}

// locksOf returns the datastore.Locks of those of sets that name rows, and
// those sets.
func locksOf(sets []lockSet) ([]datastore.Lock, []lockSet) {
	locks := make([]datastore.Lock, 0, len(sets))
	kept := make([]lockSet, 0, len(sets))
	for _, s := range sets {
		if lk := s.lock(); lk.Query != nil {
			locks, kept = append(locks, lk), append(kept, s)
		}
	}
	return locks, kept
}

// lockedFrom returns the rows that the locks of sets (see locksOf) locked,
// rows[i] those of sets[i].
func lockedFrom(sets []lockSet, rows [][]datastore.Record) lockedRows {
	out := make(lockedRows, len(sets))
	for i, s := range sets {
		e := s.e
		// Every key asked for is present, nil when it names no record.
		recs := out[e.table.Name]
		if recs == nil {
			recs = make(map[any]model.Record, len(s.ids))
			out[e.table.Name] = recs
		}
		for _, id := range s.ids {
			if _, ok := recs[id]; !ok {
				recs[id] = nil
			}
		}
		for _, row := range rows[i] {
			rec := e.fromRow(row)
			recs[rec[e.model.PrimaryKey]] = rec
		}
	}
	return out
}

// lock returns the datastore.Lock of s, with no Query when s names no row:
// its rows by key, selecting the key and attrs.
func (s *lockSet) lock() datastore.Lock {
	if len(s.ids) == 0 {
		return datastore.Lock{}
	}
	e := s.e
	pk := e.model.PrimaryKey
	cols := []string{e.column(pk)}
	for _, a := range s.attrs {
		cols = append(cols, e.column(a))
	}
	return datastore.Lock{Query: &datastore.Query{
		Table: e.table, Limit: criteria.Unlimited, Select: cols,
		Where: criteria.Rename(&criteria.Cmp{Attr: pk, Op: criteria.In, Value: s.ids}, e.column),
		Sort:  []criteria.Sort{{Attr: e.column(pk)}},
	}}
}

// merge adds the rows of more to l.
func (l lockedRows) merge(more lockedRows) {
	for name, recs := range more {
		if l[name] == nil {
			l[name] = recs
			continue
		}
		for k, rec := range recs {
			l[name][k] = rec
		}
	}
}

// appendNew returns list with the names of more it lacks appended.
func appendNew(list, more []string) []string {
	for _, s := range more {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// union returns a with the elements of b it lacks appended.
func union(a, b []any) []any {
	if len(b) == 0 {
		return a
	}
	in := keySet(a)
	for _, v := range b {
		if !has(in, v) {
			in[v] = struct{}{}
			a = append(a, v)
		}
	}
	return a
}

// requireRecord answers NotFound when m has no record with key pk.
func (o *ORM) requireRecord(ctx context.Context, m *model.Model, pk any) error {
	n, err := o.Count(ctx, m, pkWhere(m, pk))
	if err != nil {
		return err
	}
	if n == 0 {
		return notFoundRecord(m, pk)
	}
	return nil
}

// notFoundRecord is the NotFound error for a missing record of m.
func notFoundRecord(m *model.Model, pk any) error {
	return &model.Error{Kind: model.NotFound, Msg: fmt.Sprintf("no %s record has the primary key %s", m.Identity, model.Describe(pk))}
}

// requireLocked is requireRecord answered from the rows lockedMembers
// locked when it locked that record.
func (o *ORM) requireLocked(ctx context.Context, locked lockedRows, m *model.Model, pk any) error {
	e, err := o.entry(m)
	if err != nil {
		return err
	}
	rec, tried := locked[e.table.Name][pk]
	switch {
	case !tried:
		return o.requireRecord(ctx, m, pk)
	case rec == nil:
		return notFoundRecord(m, pk)
	}
	return nil
}

// existingLocked is existing answered from the rows lockedMembers locked
// when it locked all of ids.
func (o *ORM) existingLocked(ctx context.Context, locked lockedRows, target *model.Model, ids []any) ([]any, error) {
	te, err := o.entry(target)
	if err != nil {
		return nil, err
	}
	rows := locked[te.table.Name]
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		rec, tried := rows[id]
		if !tried {
			return o.existing(ctx, target, ids)
		}
		if rec != nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// existing returns those of ids that name records of target.
func (o *ORM) existing(ctx context.Context, target *model.Model, ids []any) ([]any, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	recs, err := o.Find(ctx, target, &criteria.Criteria{
		Where: &criteria.Cmp{Attr: target.PrimaryKey, Op: criteria.In, Value: ids},
		Limit: criteria.Unlimited, Select: []string{target.PrimaryKey},
	}, nil)
	if err != nil {
		return nil, err
	}
	return distinct(recs, target.PrimaryKey), nil
}

// requireAll refuses ids naming records that are not in exist, naming
// the missing ones.
func requireAll(a *model.Attribute, ids, exist []any) error {
	missing := except(ids, exist)
	if len(missing) == 0 {
		return nil
	}
	return &model.Error{Kind: model.Invalid, Code: model.CodeInvalidAssociatedIDs, Attrs: []string{a.Name},
		Msg: fmt.Sprintf("Could not use specified `%s`: no %s record has the primary key %s.", a.Name, a.Assoc.Target.Identity, describeIDs(missing))}
}
