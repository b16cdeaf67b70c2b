package orm

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// errNotAtOnce makes Replace take its other paths: replaceAtOnce could not
// make the change, and nothing changed.
var errNotAtOnce = errors.New("replace not made in one round trip")

// replaceAtOnce is Replace in one round trip to the engine, BEGIN to
// COMMIT, where the adapter can (datastore.CollectionReplacer) and the
// parent, children and join table share its datastore: the parent's lock,
// for which concurrent replaces of one parent queue, is then held only
// while the server runs the change. It takes the locks of lockParentFirst,
// so it may only run in a transaction of its own, which it may share with
// concurrent replaces of the same collection (see combiner). When answer is
// set, the record and the replaced collection are read from the locks and
// the rest with the change (see lockedAnswer), and answered is set once
// they are. It answers errNotAtOnce
// when the adapter cannot, or when the engine refused a change that the
// locked rows say is valid (a member joined without locking the parent),
// and an error wrapping datastore.ErrLockBusy when a child was busy; either
// way nothing changed and the caller goes the slower way.
func (o *ORM) replaceAtOnce(ctx context.Context, cs *changeSet, m *model.Model, a *model.Attribute, pk any, want []any, answer *keyRead) (answered bool, err error) {
	e, err := o.entry(m)
	if err != nil {
		return false, err
	}
	te, err := o.entry(a.Assoc.Target)
	if err != nil {
		return false, err
	}
	// The adapter tells before a transaction begins (SQLite's would take
	// the database's write lock for nothing).
	if _, ok := e.adapter.(datastore.CollectionReplacer); !ok || !o.sameStore(e, a) {
		return false, errNotAtOnce
	}
	// The answer's first reads are answered by the locks where they can
	// be, the others go after the commit, in the same round trip.
	var ans lockedAnswer
	if answer != nil && !answer.find {
		ans = answer.fromLocks(a)
	}
	sets, err := o.parentFirstSets(e, te, a, pk, want)
	if err != nil {
		return false, err
	}
	sets[0].whole, sets[1].whole = ans.self != nil, ans.members != nil
	// The parent's lock is taken first; the children's is the change's own
	// (see datastore.Replacement).
	rep := &datastore.Replacement{
		Locks: []datastore.Lock{sets[0].lock()}, ChildColumns: sets[1].columns(),
		Parent: e.table, Key: pk, Child: te.table, Want: want,
	}
	for _, r := range ans.rest {
		rep.After = append(rep.After, r.read)
	}
	if a.Assoc.Kind == model.HasMany {
		rep.Via, rep.Required = te.column(a.Assoc.Inverse.Name), a.Assoc.Inverse.Required
	} else {
		rep.Through = sets[1].linked
	}
	var done *datastore.Replaced
	if len(rep.After) == 0 {
		// Reads after the commit of several changes would see those
		// after this one: only a change that needs none goes with others.
		done, err = o.combine.run(ctx, combineKey{m.Datastore, e.table.Name, a.Name, pk}, rep, o.replaceAll(m.Datastore, e))
	} else {
		done, err = alone(ctx, rep, o.replaceAll(m.Datastore, e))
	}
	if err != nil {
		return false, err
	}
	// Before lockedFrom, which takes the rows over.
	if answer != nil && !answer.find && done.Applied && len(done.After) == len(ans.rest) {
		ans.fill(done.Locked, e, te, want)
		for i, r := range ans.rest {
			r.into(done.After[i])
		}
		answered = true
	}
	return answered, o.report(ctx, cs, done, lockedFrom(sets, done.Locked), m, a, te, pk, want)
}

// report records in cs what the replace done of the collection a of the
// record pk made, or returns why it refused (see refusal); locked are the
// rows it locked.
func (o *ORM) report(ctx context.Context, cs *changeSet, done *datastore.Replaced, locked lockedRows, m *model.Model, a *model.Attribute, te *entry, pk any, want []any) error {
	if !done.Applied {
		return o.refusal(locked, done.Locked[1], m, a, te, pk, want)
	}
	removed := make([]any, len(done.Removed))
	for i, id := range done.Removed {
		removed[i] = te.key(id)
	}
	added := make([]any, 0, len(done.Added))
	for _, id := range done.Added {
		added = append(added, te.key(id))
	}
	// Added in the order of the ids given, as Replace reports them.
	isAdded := keySet(added)
	added = slices.DeleteFunc(slices.Clone(want), func(id any) bool { return !has(isAdded, id) })
	cs.collectionChanged(m, a, pk, added, removed)
	// Every added child was locked with its parent: takeFrom reads nothing.
	return o.takeFrom(ctx, cs, locked, m, a, pk, added)
}

// replaceAll returns the function that makes changes of collections of
// e's records in one transaction of their own on the datastore store (see
// datastore.CollectionReplacer), answering errNotAtOnce when the adapter
// cannot.
func (o *ORM) replaceAll(store string, e *entry) func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error) {
	return func(ctx context.Context, rs []*datastore.Replacement) ([]*datastore.Replaced, error) {
		var done []*datastore.Replaced
		err := o.InTx(ctx, store, func(ctx context.Context) error {
			r, ok := o.adapter(ctx, e).(datastore.CollectionReplacer)
			if !ok {
				return errNotAtOnce
			}
			var err error
			done, err = r.ReplaceCollections(ctx, rs)
			if errors.Is(err, errors.ErrUnsupported) {
				return errNotAtOnce
			}
			return err
		})
		return done, err
	}
}

// refusal returns the error Replace answers for the change replaceAtOnce
// refused, found from the rows it locked (members are those of the
// children, kids, that the collection a had): the parent is missing, a
// wanted child is, or a member would lose a required key; errNotAtOnce
// when the locked rows show none of these.
func (o *ORM) refusal(locked lockedRows, kids []datastore.Record, m *model.Model, a *model.Attribute, te *entry, pk any, want []any) error {
	e, err := o.entry(m)
	if err != nil {
		return err
	}
	if locked.row(e, pk) == nil {
		return notFoundRecord(m, pk)
	}
	for _, id := range want {
		if locked.row(te, id) == nil {
			// Not proof that the child is missing: PostgreSQL's row lock
			// of a child that a concurrent change had just moved (and
			// committed) can skip it, as its recheck of the statement's
			// condition on the new version of the row reads the
			// statement's snapshot, in which the link it followed is
			// gone. The slower path locks the children by key and
			// answers the refusal, if it is one, from what it reads.
			return errNotAtOnce
		}
	}
	if a.Assoc.Kind == model.HasMany && a.Assoc.Inverse.Required {
		var leaving []any
		wanted := keySet(want)
		for _, row := range kids {
			rec := te.fromRow(row)
			if id := rec[te.model.PrimaryKey]; rec[a.Assoc.Inverse.Name] == pk && !has(wanted, id) {
				leaving = append(leaving, id)
			}
		}
		if len(leaving) > 0 {
			return requiredError(a, leaving)
		}
	}
	return errNotAtOnce
}

// key returns the key of e's model that v, a value of its key column,
// stands for.
func (e *entry) key(v any) any {
	return e.fromRow(datastore.Record{e.table.PrimaryKey: v})[e.model.PrimaryKey]
}

// lockedAnswer is the answer to a replace made at once, split between
// what its locks read and what is read after the commit (rest): the record
// itself, when its read wants every column (self), and the replaced
// collection, when its read wants every column of the members, in key
// order, unfiltered, from the first (members). The locks then select
// every column. The rows they lock cannot change before the commit, and
// the change only moves links (it sets a one-to-many member's key to the
// parent's, as fill does), so they are the rows those reads would find,
// two statements fewer.
type lockedAnswer struct {
	self    func([]datastore.Record)
	members *plural
	rest    []pending
}

// fromLocks splits k's first reads (see firstReads) for a replace of the
// collection a made at once. k must read its record by key alone, as
// ReplaceThenFind's does.
func (k *keyRead) fromLocks(a *model.Attribute) lockedAnswer {
	var out lockedAnswer
	if self := k.self(); k.c.Select == nil && k.c.Skip == 0 && len(k.c.Sort) == 0 {
		out.self = self.into
	} else {
		out.rest = append(out.rest, self)
	}
	for _, p := range k.early {
		if out.members == nil && p.attr == a && p.wholeInKeyOrder() {
			out.members = p
			continue
		}
		if r, ok := p.next(); ok {
			out.rest = append(out.rest, pending{e: p.te, read: r, into: p.got})
		}
	}
	return out
}

// fill gives the reads l answers from locks the rows they would have read
// once the members of the collection became want: the parent's and the
// children's rows of locked (as parentFirstSets locks them, e's and te's),
// copied, since lockedFrom takes them over.
func (l *lockedAnswer) fill(locked [][]datastore.Record, e, te *entry, want []any) {
	if len(locked[0]) == 0 {
		return
	}
	if l.self != nil {
		l.self([]datastore.Record{maps.Clone(locked[0][0])})
	}
	p := l.members
	if p == nil {
		return
	}
	key := locked[0][0][e.table.PrimaryKey]
	wanted := make(map[any]bool, len(want))
	for _, id := range want {
		wanted[id] = true
	}
	var rows []datastore.Record
	// The children's lock returns them in key order.
	for _, row := range locked[1] {
		if int64(len(rows)) == p.query.Limit {
			break
		}
		if wanted[te.key(row[te.table.PrimaryKey])] {
			row = maps.Clone(row)
			row[p.key] = key
			rows = append(rows, row)
		}
	}
	p.got(rows)
}
