package orm

// Replace (PUT /:model/:id/:association) lives here, whole: the generic
// path, over the Adapter's reads and writes in a transaction, with the row
// locks every collection change takes (see lockedMembers), and the fast
// path behind datastore.CollectionReplacer, which makes the change in one
// round trip and groups concurrent replaces of one collection (combiner).
// The fast path is tried first; what it does not make it leaves unchanged,
// for the generic path.

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// Replace makes ids exactly the members of the collection alias of the
// record of m with key parent, in one transaction, and reports the changes
// on every side. A missing parent is a NotFound error and ids of records
// that do not exist an Invalid one; either way nothing changes.
func (o *ORM) Replace(ctx context.Context, m *model.Model, alias string, parent any, ids []any) (Changes, error) {
	changes, _, err := o.replace(ctx, m, alias, parent, ids, nil)
	return changes, err
}

// ReplaceThenFind is Replace followed by FindByPK of the parent with pops,
// the answer blueprint's replace gives. Where the change goes in one round
// trip (see replaceAtOnce), the record and the replaced collection come
// from its locks, so they are as the change left them, and the other
// collections are read in the same round trip, just after the commit.
// Otherwise the record is read once the change is committed, and may show
// changes made just after it: reading it in the change's transaction would
// hold SQLite's one writer's lock that much longer (a quarter fewer
// replaces of one busy record per second).
func (o *ORM) ReplaceThenFind(ctx context.Context, m *model.Model, alias string, parent any, ids []any, pops []Populate) (Changes, model.Record, error) {
	pk, err := m.NormalizePK(parent)
	if err != nil {
		// Replace answers the client's error for a key of the wrong type.
		_, _, err := o.replace(ctx, m, alias, parent, ids, nil)
		return nil, nil, err
	}
	k, err := o.keyReads(ctx, m, &criteria.Criteria{Where: pkWhere(m, pk), Limit: 2}, pk, pops)
	if err != nil {
		return nil, nil, err
	}
	changes, answered, err := o.replace(ctx, m, alias, parent, ids, k)
	if err != nil {
		return nil, nil, err
	}
	if !answered {
		rec, err := o.FindByPK(ctx, m, pk, pops)
		return changes, rec, err
	}
	recs, err := o.finishKeyReads(ctx, k)
	if err != nil || len(recs) == 0 {
		return changes, nil, err
	}
	return changes, recs[0], nil
}

// replace is Replace; when answer is set and the change went in one round
// trip, answer's first reads were made with it, and answered is set.
func (o *ORM) replace(ctx context.Context, m *model.Model, alias string, parent any, ids []any, answer *keyRead) (changes Changes, answered bool, err error) {
	a, pk, err := o.collection(m, alias, parent)
	if err != nil {
		return nil, false, err
	}
	want, err := childIDs(a, ids)
	if err != nil {
		return nil, false, err
	}
	// The fast path needs a transaction of its own: one it joined may hold
	// locks already, and waiting for the parent's would break their order.
	if ctx.Value(o.txKeys[m.Datastore]) == nil {
		var cs changeSet
		switch answered, err := o.replaceAtOnce(ctx, &cs, m, a, pk, want, answer); {
		case errors.Is(err, datastore.ErrLockBusy), errors.Is(err, errNotAtOnce):
			// Nothing changed. The generic path waits for a busy child
			// in the global lock order, or tells why the change is
			// refused.
		case err != nil:
			return nil, false, wrap("replace", m, err)
		default:
			return cs.changes(), answered, nil
		}
	}
	cs, err := o.replaceLocked(ctx, m, a, pk, want)
	if err != nil {
		return nil, false, wrap("replace", m, err)
	}
	return cs.changes(), false, nil
}

// replaceLocked is replace's generic path: in one transaction, it reads the
// members, locks the parent, the wanted children and the members in the
// global order (see lockedMembers), and makes the change it computes from
// what it locked. When members joined between that read and the locks it
// starts again with them.
func (o *ORM) replaceLocked(ctx context.Context, m *model.Model, a *model.Attribute, pk any, want []any) (*changeSet, error) {
	var cs changeSet
	var extra []any
	for attempt := 0; ; attempt++ {
		err := o.InTx(ctx, m.Datastore, func(ctx context.Context) error {
			cs = changeSet{}
			have, locked, err := o.lockedMembers(ctx, m, a, pk, union(slices.Clone(want), extra), lockOrdered, attempt < maxLockAttempts)
			if err != nil {
				return err
			}
			if err := o.requireLocked(ctx, locked, m, pk); err != nil {
				return err
			}
			removed := except(have, want)
			// One read (none where the locks already read those rows)
			// refuses wanted ids of records that do not exist and
			// finds the join rows a child destroyed without cascadeOnDestroy
			// left behind: those are dropped without a report, since that
			// destroy already reported the child gone from this parent.
			exist, err := o.existingLocked(ctx, locked, a.Assoc.Target, union(slices.Clone(want), removed))
			if err != nil {
				return err
			}
			if err := requireAll(a, want, exist); err != nil {
				return err
			}
			var stale []any
			existing := keySet(exist)
			removed = slices.DeleteFunc(removed, func(id any) bool {
				if has(existing, id) {
					return false
				}
				stale = append(stale, id)
				return true
			})
			if len(stale) > 0 {
				if err := o.unlink(ctx, a, pk, stale); err != nil {
					return err
				}
			}
			return o.apply(ctx, &cs, locked, m, a, pk, except(want, have), removed)
		})
		var late lateMembers
		if !errors.As(err, &late) {
			return &cs, err
		}
		extra = union(extra, late)
	}
}

// errNotAtOnce makes replace take its generic path: replaceAtOnce could not
// make the change, and nothing changed.
var errNotAtOnce = errors.New("replace not made in one round trip")

// replaceAtOnce is replace's fast path: the change in one round trip to the
// engine, BEGIN to COMMIT, where the adapter can
// (datastore.CollectionReplacer) and the parent, children and join table
// share its datastore. The parent's lock, for which concurrent replaces of
// one parent queue, is then held only while the server runs the change. It
// may only run in a transaction of its own, which it may share with
// concurrent replaces of the same collection (see combiner). When answer is
// set, the record and the replaced collection are read from the locked
// rows and the rest with the change (see lockedAnswer), and answered is
// set once they are. It answers errNotAtOnce when the adapter cannot, or
// when the engine refused a change that the locked rows say is valid (a
// member joined without locking the parent), and an error wrapping
// datastore.ErrLockBusy when a child was busy; either way nothing changed.
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
	// The answer's first reads are answered by the locked rows where they
	// can be, the others go after the commit, in the same round trip.
	var ans lockedAnswer
	if answer != nil && !answer.find {
		ans = answer.fromLocks(a)
	}
	rep := &datastore.Replacement{Parent: e.table, Key: pk, Child: te.table, Want: want}
	if ans.self != nil {
		rep.ParentColumns = columnNames(e.table)
	}
	if ans.members != nil {
		rep.ChildColumns = columnNames(te.table)
	}
	for _, r := range ans.rest {
		rep.After = append(rep.After, r.read)
	}
	if a.Assoc.Kind == model.HasMany {
		rep.Via, rep.Required = te.column(a.Assoc.Inverse.Name), a.Assoc.Inverse.Required
	} else {
		join := a.Assoc.Join
		je, err := o.entry(join.Model)
		if err != nil {
			return false, err
		}
		rep.Through = &datastore.Through{Table: je.table, ParentColumn: je.column(join.ParentAttr), ChildColumn: je.column(join.ChildAttr)}
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
	// Before lockedOf, which takes the rows over.
	if answer != nil && !answer.find && done.Applied && len(done.After) == len(ans.rest) {
		ans.fill(done, e, te, want)
		for i, r := range ans.rest {
			r.deliver(done.After[i])
		}
		answered = true
	}
	return answered, o.report(ctx, cs, done, lockedOf(done, e, te, pk, want), m, a, te, pk, want)
}

// columnNames returns the names of t's columns.
func columnNames(t *datastore.Table) []string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name
	}
	return cols
}

// lockedOf returns the rows that the change done locked, as lockedMembers
// returns them: the parent's and the children's, every key asked for
// present, nil when it names no record.
func lockedOf(done *datastore.Replaced, e, te *entry, pk any, want []any) lockedRows {
	out := lockedRows{e.table.Name: {pk: nil}}
	if done.Parent != nil {
		rec := e.fromRow(done.Parent)
		out[e.table.Name][rec[e.model.PrimaryKey]] = rec
	}
	recs := out[te.table.Name]
	if recs == nil {
		recs = make(map[any]model.Record, len(want))
		out[te.table.Name] = recs
	}
	for _, id := range want {
		if _, ok := recs[id]; !ok {
			recs[id] = nil
		}
	}
	for _, row := range done.Children {
		rec := te.fromRow(row)
		recs[rec[te.model.PrimaryKey]] = rec
	}
	return out
}

// report records in cs what the replace done of the collection a of the
// record pk made, or returns why it refused (see refusal); locked are the
// rows it locked.
func (o *ORM) report(ctx context.Context, cs *changeSet, done *datastore.Replaced, locked lockedRows, m *model.Model, a *model.Attribute, te *entry, pk any, want []any) error {
	if !done.Applied {
		return o.refusal(ctx, locked, done.Children, m, a, te, pk, want)
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
// when they show none of these.
func (o *ORM) refusal(ctx context.Context, locked lockedRows, kids []datastore.Record, m *model.Model, a *model.Attribute, te *entry, pk any, want []any) error {
	e, err := o.entry(m)
	if err != nil {
		return err
	}
	if locked.row(e, pk) == nil {
		return notFoundRecord(m, pk)
	}
	var exist, unlocked []any
	for _, id := range want {
		if locked.row(te, id) == nil {
			unlocked = append(unlocked, id)
		} else {
			exist = append(exist, id)
		}
	}
	if len(unlocked) > 0 {
		// A wanted child that was not locked is missing, or a child a
		// concurrent change had just moved (and committed): PostgreSQL's
		// row lock can skip it, as its recheck of the statement's
		// condition on the new version of the row reads the statement's
		// snapshot, in which the link it followed is gone. One read
		// tells: children missing now were missing then or destroyed
		// since, and the refusal stands either way; if any exists, the
		// generic path locks the children by key and decides.
		found, err := o.existing(ctx, a.Assoc.Target, unlocked)
		if err != nil {
			return err
		}
		if len(found) > 0 {
			return errNotAtOnce
		}
		return requireAll(a, want, exist)
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

// sameStore reports whether the collection a of e's model, its children
// and its join table, if any, live in e's datastore.
func (o *ORM) sameStore(e *entry, a *model.Attribute) bool {
	te := o.entries[a.Assoc.Target.Identity]
	if te == nil || te.store != e.store {
		return false
	}
	if a.Assoc.Join == nil {
		return true
	}
	je := o.entries[a.Assoc.Join.Model.Identity]
	return je != nil && je.store == e.store
}

// key returns the key of e's model that v, a value of its key column,
// stands for.
func (e *entry) key(v any) any {
	return e.fromRow(datastore.Record{e.table.PrimaryKey: v})[e.model.PrimaryKey]
}

// lockedAnswer is the answer to a replace made at once, split between
// what the change's locks read and what is read after the commit (rest):
// the record itself, when its read wants every column (self), and the
// replaced collection, when its read wants every column of the members, in
// key order, unfiltered, from the first (members). The locks then select
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
	// The lock reads the parent's row alone: a record read with joined
	// associations is read again after the change.
	if self := k.self(); k.c.Select == nil && k.c.Skip == 0 && len(k.c.Sort) == 0 && k.joins == nil {
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
			out.rest = append(out.rest, pending{e: p.te, read: r, plural: p})
		}
	}
	return out
}

// fill gives the reads l answers from locks the rows they would have read
// once the members of the collection became want: the parent's and the
// children's rows of done (e's and te's), copied, since lockedOf takes
// them over.
func (l *lockedAnswer) fill(done *datastore.Replaced, e, te *entry, want []any) {
	if done.Parent == nil {
		return
	}
	if l.self != nil {
		l.self([]datastore.Record{maps.Clone(done.Parent)})
	}
	p := l.members
	if p == nil {
		return
	}
	key := done.Parent[e.table.PrimaryKey]
	wanted := make(map[any]bool, len(want))
	for _, id := range want {
		wanted[id] = true
	}
	var rows []datastore.Record
	// The children's lock returns them in key order.
	for _, row := range done.Children {
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

// combiner lets the replaces of one collection of one record that arrive
// while others are under way wait in the process, then go together, in the
// order they came, in one transaction (datastore.CollectionReplacer takes
// several). They could not run side by side anyway: each locks the record.
// Waiting in the engine instead, each would hold a connection and wait
// for the one before it to commit, its wait for the disk included; so on
// a busy record one commit serves several of them. Two groups may be under
// way at once, the second waiting in the engine for the first's lock, so
// that it starts the moment that lock is free; only what comes while both
// are under way waits here.
type combiner struct {
	mu     sync.Mutex
	queues map[combineKey]*combineQueue
}

// combineQueue is the state of one collection in a combiner.
type combineQueue struct {
	running int // groups under way, at most maxRunning
	waiting []*combined
}

// maxRunning is how many groups of one collection may be under way.
const maxRunning = 2

// combineKey names one collection of one record.
type combineKey struct {
	store, table, attr string
	key                any
}

// combined is one replace in a combiner.
type combined struct {
	rep *datastore.Replacement
	// ready is closed when done and err are set, or when group is: the
	// replace is then to run it.
	ready chan struct{}
	group []*combined
	done  *datastore.Replaced
	err   error
}

// maxCombined bounds a group, and so the work one transaction does while
// it holds the record's lock.
const maxCombined = 16

// errGroupFailed is the error of each replace of a group that failed: each
// then runs alone, so that one failing replace fails no other.
var errGroupFailed = errors.New("group of replaces failed")

// run makes the change rep with the others queued for k, through
// replaceAll (see ORM.replaceAll), and returns what it did. A group runs
// under its leader's context; a replace waiting here whose own context
// ends still runs with its group, a wait bounded by one transaction of
// at most maxCombined changes.
func (c *combiner) run(ctx context.Context, k combineKey, rep *datastore.Replacement, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) (*datastore.Replaced, error) {
	me := &combined{rep: rep, ready: make(chan struct{})}
	c.mu.Lock()
	if c.queues == nil {
		c.queues = map[combineKey]*combineQueue{}
	}
	q := c.queues[k]
	if q == nil {
		q = &combineQueue{}
		c.queues[k] = q
	}
	switch {
	case q.running < maxRunning:
		q.running++
		me.group = []*combined{me}
		c.mu.Unlock()
	case len(q.waiting) < maxCombined:
		q.waiting = append(q.waiting, me)
		c.mu.Unlock()
		<-me.ready
	default:
		c.mu.Unlock()
		return alone(ctx, rep, replaceAll)
	}
	if me.group != nil {
		c.lead(ctx, k, me.group, replaceAll)
	}
	if errors.Is(me.err, errGroupFailed) {
		return alone(ctx, rep, replaceAll)
	}
	return me.done, me.err
}

// lead runs group (its leader first, then those that waited), gives each
// its result, then hands the replaces that queued meanwhile to the first of
// them.
func (c *combiner) lead(ctx context.Context, k combineKey, group []*combined, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) {
	defer func() {
		// Even when replaceAll panics, so that no one waits for ever.
		for _, w := range group[1:] {
			close(w.ready)
		}
		c.mu.Lock()
		q := c.queues[k]
		next := q.waiting
		q.waiting = nil
		if len(next) == 0 {
			if q.running--; q.running == 0 {
				delete(c.queues, k)
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		next[0].group = next
		close(next[0].ready)
	}()
	reps := make([]*datastore.Replacement, len(group))
	for i, w := range group {
		reps[i], w.err = w.rep, errGroupFailed
	}
	done, err := replaceAll(ctx, reps)
	for i, w := range group {
		switch {
		case err == nil:
			w.done, w.err = done[i], nil
		case len(group) == 1:
			w.err = err
		}
	}
}

// alone makes the change rep in a transaction of its own.
func alone(ctx context.Context, rep *datastore.Replacement, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) (*datastore.Replaced, error) {
	done, err := replaceAll(ctx, []*datastore.Replacement{rep})
	if err != nil {
		return nil, err
	}
	return done[0], nil
}
