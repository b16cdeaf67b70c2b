package orm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// Create normalises in as a new record of m (Waterline's create rules),
// checks that every associated id names an existing record, and inserts the
// record and its collection links in one transaction. It returns the record
// as stored, without population, and the association changes on every side.
func (o *ORM) Create(ctx context.Context, m *model.Model, in map[string]any) (model.Record, Changes, error) {
	rec, _, _, changes, err := o.CreateAnswer(ctx, m, in, nil)
	return rec, changes, err
}

// CreateAnswer is Create that also reads, with the insert when the engine
// can (datastore.GuardedCreator), the records the singular associations
// of pops point at, as Populate would read them, for the answer. It
// returns the record as stored; answer, a copy of it with those
// associations populated (rec itself when none was read so); and rest,
// the populates of pops left to do on answer.
func (o *ORM) CreateAnswer(ctx context.Context, m *model.Model, in map[string]any, pops []Populate) (rec, answer model.Record, rest []Populate, changes Changes, err error) {
	e, err := o.entry(m)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	rec, err = m.NewRecord(in, o.now())
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var plural map[string][]any
	for name, v := range rec {
		if a := m.Attributes[name]; a != nil && a.IsPlural() {
			if ids, _ := v.([]any); len(ids) > 0 {
				if plural == nil {
					plural = map[string][]any{}
				}
				plural[name] = ids
			}
			delete(rec, name)
		}
	}
	var created model.Record
	answer, rest = nil, pops
	var cs changeSet
	switch {
	case len(plural) == 0 && !hasSingularValue(m, rec):
		// One INSERT is atomic on its own: skip the transaction round trips.
		created, cs, err = o.insert(ctx, e, rec, plural)
	case len(plural) == 0:
		var g *guarded
		g, err = o.createGuarded(ctx, e, rec, pops)
		if err == nil && g == nil {
			created, cs, err = o.insertInTx(ctx, e, rec, plural)
		} else if g != nil {
			created, answer, rest, cs = g.created, g.answer, g.rest, g.cs
		}
	default:
		created, cs, err = o.insertInTx(ctx, e, rec, plural)
	}
	if err != nil {
		return nil, nil, nil, nil, wrap("create", m, err)
	}
	if answer == nil {
		answer = created
	}
	return created, answer, rest, cs.changes(), nil
}

// insertInTx is insert in a transaction. It is a function of its own so
// that the variables its closure shares live on the heap only on this
// path, not on a guarded create's.
func (o *ORM) insertInTx(ctx context.Context, e *entry, rec model.Record, plural map[string][]any) (created model.Record, cs changeSet, err error) {
	err = o.InTx(ctx, e.store, func(ctx context.Context) error {
		var err error
		created, cs, err = o.insert(ctx, e, rec, plural)
		return err
	})
	return created, cs, err
}

// insert checks rec's associations, inserts it and links it to the
// members of its plural associations (plural, by name), and returns it as
// stored with the association changes.
func (o *ORM) insert(ctx context.Context, e *entry, rec model.Record, plural map[string][]any) (model.Record, changeSet, error) {
	m := e.model
	var cs changeSet
	if err := o.checkAssociated(ctx, m, nil, rec, plural, model.CodeInvalidNewRecord); err != nil {
		return nil, cs, err
	}
	rows, err := o.adapter(ctx, e).Create(ctx, e.table, []datastore.Record{e.toRow(rec)})
	if err != nil {
		return nil, cs, e.classify(err)
	}
	created := e.fromRow(rows[0])
	id := created[m.PrimaryKey]
	for _, name := range m.Order {
		if a := m.Attributes[name]; a.IsSingular() {
			cs.keyChanged(m, a, id, nil, created[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(plural)) {
		a := m.Attributes[name]
		ids, err := childIDs(a, plural[name])
		if err != nil {
			return nil, cs, err
		}
		cs.collectionChanged(m, a, id, ids, nil)
		if err := o.takeFrom(ctx, &cs, nil, m, a, id, ids); err != nil {
			return nil, cs, err
		}
		if err := o.link(ctx, e, a, id, ids); err != nil {
			return nil, cs, err
		}
	}
	return created, cs, nil
}

// guarded is what createGuarded did: the record as stored, the answer
// with the associations it read, the populates left, and the changes.
type guarded struct {
	created, answer model.Record
	rest            []Populate
	cs              changeSet
}

// createGuarded inserts rec, whose only associations are singular, with
// the adapter's datastore.GuardedCreator when it has one: the check that
// the records it points at exist, their locks and the insert in one step
// instead of a transaction, which also reads the records of those of pops
// a find could read by a join (see joinable). It returns nil, having
// changed nothing, when the adapter cannot, or when a record pointed at is
// missing: the transaction's path then runs, and refuses with the error
// naming it.
func (o *ORM) createGuarded(ctx context.Context, e *entry, rec model.Record, pops []Populate) (*guarded, error) {
	gc, ok := o.adapter(ctx, e).(datastore.GuardedCreator)
	if !ok {
		return nil, nil
	}
	m := e.model
	var guards []datastore.Guard
	var joined []string // the associations whose records the guards read
	var targets []*entry
	for _, name := range m.Order {
		a := m.Attributes[name]
		v := rec[name]
		if !a.IsSingular() || v == nil {
			continue
		}
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return nil, err
		}
		if te.store != e.store {
			// The engine sees only its own tables.
			return nil, nil
		}
		if c := te.table.Column(te.table.PrimaryKey); c != nil && c.Kind == datastore.Integer {
			if f, ok := v.(float64); ok {
				v = int64(f)
			}
		}
		g := datastore.Guard{Table: te.table, Key: v}
		for _, p := range pops {
			if p.Attr == name && o.joinable(e, a, p) != nil {
				g.Column = a.ColumnName
				joined, targets = append(joined, name), append(targets, te)
				break
			}
		}
		guards = append(guards, g)
	}
	row, err := gc.CreateGuarded(ctx, e.table, e.toRow(rec), guards)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, nil
	}
	if err != nil {
		return nil, e.classify(err)
	}
	if row == nil {
		return nil, nil
	}
	g := &guarded{rest: pops}
	var reads []model.Record
	if len(joined) > 0 {
		// Each guard's row is under its column, in place of the key.
		reads = make([]model.Record, len(joined))
		for i, name := range joined {
			col := m.Attributes[name].ColumnName
			nested, ok := row[col].(datastore.Record)
			if !ok {
				// Deleted between the insert and its read, on an
				// engine that makes them two statements: populated
				// below as any other.
				continue
			}
			reads[i] = targets[i].fromRow(nested)
			row[col] = nested[targets[i].table.PrimaryKey]
		}
		g.rest = make([]Populate, 0, len(pops))
		done := make(map[string]bool, len(joined))
		for _, p := range pops {
			if k := slices.Index(joined, p.Attr); k >= 0 && reads[k] != nil && !done[p.Attr] {
				done[p.Attr] = true
				continue
			}
			g.rest = append(g.rest, p)
		}
	}
	g.created = e.fromRow(row)
	g.answer = g.created
	if len(joined) > 0 {
		g.answer = maps.Clone(g.created)
		for i, name := range joined {
			if reads[i] != nil {
				g.answer[name] = reads[i]
			}
		}
	}
	id := g.created[m.PrimaryKey]
	for _, name := range m.Order {
		if a := m.Attributes[name]; a.IsSingular() {
			g.cs.keyChanged(m, a, id, nil, g.created[name])
		}
	}
	return g, nil
}

func hasSingularValue(m *model.Model, rec model.Record) bool {
	for name, v := range rec {
		if a := m.Attributes[name]; a != nil && a.IsSingular() && v != nil {
			return true
		}
	}
	return false
}

// Update normalises in as values to set on the record of m with primary key
// pk and applies them in one transaction. It returns the record before and
// after the change (both nil when no record has that key) and the
// association changes on every side. A plural association in in is
// refused: collections change through replace.
func (o *ORM) Update(ctx context.Context, m *model.Model, pk any, in map[string]any) (before, after model.Record, changes Changes, err error) {
	return o.UpdateWithPrevious(ctx, m, pk, in, nil)
}

// UpdateWithPrevious is Update returning the record as it was with the
// associations pops name populated, read in the same transaction before the
// change (what Sails' updated notification calls previous): singular
// associations hold the records the keys pointed at before. With no pops
// it is Update.
func (o *ORM) UpdateWithPrevious(ctx context.Context, m *model.Model, pk any, in map[string]any, pops []Populate) (previous, after model.Record, changes Changes, err error) {
	var before model.Record
	e, err := o.entry(m)
	if err != nil {
		return nil, nil, nil, err
	}
	vals, err := m.ValuesToSet(in, o.now())
	if err != nil {
		return nil, nil, nil, err
	}
	for name := range vals {
		a := m.Attributes[name]
		if a != nil && a.IsPlural() {
			return nil, nil, nil, &model.Error{Kind: model.Invalid, Code: model.CodeInvalidValuesToSet, Attrs: []string{name},
				Msg: fmt.Sprintf("Cannot set the collection `%s` with update: use the replace action (PUT /%s/:id/%s) instead.", name, m.Identity, name)}
		}
	}
	// The path's key wins over one in the body, as in Sails.
	delete(vals, m.PrimaryKey)
	err = o.InTx(ctx, e.store, func(ctx context.Context) error {
		before, err = o.FindByPK(ctx, m, pk, nil)
		if err != nil || before == nil {
			return err
		}
		if previous, err = o.recall(ctx, e, before, pops); err != nil {
			return err
		}
		if err := o.checkAssociated(ctx, m, pk, vals, nil, model.CodeInvalidValuesToSet); err != nil {
			return err
		}
		if len(vals) == 0 {
			after = before
			return nil
		}
		rows, err := o.adapter(ctx, e).Update(ctx, &datastore.Query{
			Table: e.table, Where: criteria.Rename(pkWhere(m, pk), e.column), Limit: criteria.Unlimited, Fetch: true,
		}, e.toRow(vals))
		if err != nil {
			return e.classify(err)
		}
		if len(rows) == 1 {
			after = e.fromRow(rows[0])
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, wrap("update", m, err)
	}
	if after != nil {
		var cs changeSet
		for _, name := range m.Order {
			if a := m.Attributes[name]; a.IsSingular() {
				cs.keyChanged(m, a, after[m.PrimaryKey], before[name], after[name])
			}
		}
		changes = cs.changes()
	}
	return previous, after, changes, nil
}

// recall returns rec, or a copy of it with pops populated: rec itself keeps
// the keys the change sets work from.
func (o *ORM) recall(ctx context.Context, e *entry, rec model.Record, pops []Populate) (model.Record, error) {
	if len(pops) == 0 {
		return rec, nil
	}
	out := maps.Clone(rec)
	if err := o.populate(ctx, e, []model.Record{out}, pops); err != nil {
		return nil, err
	}
	return out, nil
}

// Destroy deletes the record of m with primary key pk and returns it as it
// was, or nil when there is none, with the association changes on the other
// sides: the parents it leaves and the members that no longer have it. With
// cascadeOnDestroy its collections are emptied first, in the same
// transaction; without, the rows keep their dangling keys but every read
// sees the record gone, so the changes are the same.
func (o *ORM) Destroy(ctx context.Context, m *model.Model, pk any) (model.Record, Changes, error) {
	return o.DestroyWithPrevious(ctx, m, pk, nil)
}

// DestroyWithPrevious is Destroy returning the record with the
// associations pops name populated, read in the same transaction once the
// record is locked and before any of its links is undone.
func (o *ORM) DestroyWithPrevious(ctx context.Context, m *model.Model, pk any, pops []Populate) (model.Record, Changes, error) {
	e, err := o.entry(m)
	if err != nil {
		return nil, nil, err
	}
	var gone, previous model.Record
	var cs changeSet
	err = o.InTx(ctx, e.store, func(ctx context.Context) error {
		cs = changeSet{}
		// Collection changes lock both records of each pair they touch;
		// locking this one first keeps them from linking it while it goes.
		if l, ok := o.adapter(ctx, e).(datastore.Locker); ok {
			if _, _, err := lockRows(ctx, l, []lockSet{{e: e, ids: []any{pk}}}); err != nil {
				return err
			}
		}
		gone, err = o.FindByPK(ctx, m, pk, nil)
		if err != nil || gone == nil {
			return err
		}
		if previous, err = o.recall(ctx, e, gone, pops); err != nil {
			return err
		}
		if err := o.departures(ctx, &cs, m, gone); err != nil {
			return err
		}
		if m.CascadeOnDestroy {
			for _, name := range m.Order {
				if a := m.Attributes[name]; a.IsPlural() {
					if err := o.unlinkAll(ctx, a, pk); err != nil {
						return err
					}
				}
			}
			if err := o.clearReferences(ctx, m, pk); err != nil {
				return err
			}
		}
		return destroyLater(ctx, o.adapter(ctx, e), &datastore.Query{
			Table: e.table, Where: criteria.Rename(pkWhere(m, pk), e.column), Limit: criteria.Unlimited,
		})
	})
	if err != nil {
		return nil, nil, wrap("destroy", m, err)
	}
	return previous, cs.changes(), nil
}

// departures records what destroying rec does to the other sides of its
// associations, read from the stored links rather than from a capped
// population so that no member is left out.
func (o *ORM) departures(ctx context.Context, cs *changeSet, m *model.Model, rec model.Record) error {
	id := rec[m.PrimaryKey]
	for _, name := range m.Order {
		a := m.Attributes[name]
		switch {
		case a.IsSingular():
			if inv := a.Assoc.Inverse; inv != nil && rec[name] != nil {
				cs.plural(a.Assoc.Target, rec[name], inv.Name, []any{id}, false)
			}
		case a.IsPlural() && a.Assoc.Inverse != nil:
			members, err := o.members(ctx, a, id)
			if err != nil {
				return err
			}
			for _, c := range members {
				if inv := a.Assoc.Inverse; inv.IsSingular() {
					cs.singular(a.Assoc.Target, c, inv.Name, nil)
				} else {
					cs.plural(a.Assoc.Target, c, inv.Name, []any{id}, false)
				}
			}
		}
	}
	return nil
}

// checkAssociated refuses ids of records that do not exist: Sails would
// store dangling keys, Skiff answers 400 naming the attribute. self is the
// key of the record being updated, nil on create.
func (o *ORM) checkAssociated(ctx context.Context, m *model.Model, self any, rec model.Record, plural map[string][]any, code string) error {
	type check struct {
		a   *model.Attribute
		ids []any
	}
	var checks []check
	var locks []lockSet
	for _, name := range m.Order {
		a := m.Attributes[name]
		var ids []any
		switch {
		case a.IsSingular():
			if v, ok := rec[name]; ok && v != nil {
				ids = []any{v}
			}
		case a.IsPlural():
			ids = plural[name]
		}
		if len(ids) == 0 {
			continue
		}
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return err
		}
		checks = append(checks, check{a, ids})
		locks = append(locks, lockSet{e: te, ids: ids})
	}
	if len(checks) == 0 {
		return nil
	}
	e, err := o.entry(m)
	if err != nil {
		return err
	}
	// Lock what the record will point at (and the record itself, on
	// update) so a concurrent cascading destroy cannot remove it between
	// this check and the write.
	if l, ok := o.adapter(ctx, e).(datastore.Locker); ok {
		if self != nil {
			locks = append(locks, lockSet{e: e, ids: []any{self}})
		}
		if _, _, err := lockRows(ctx, l, locks); err != nil {
			return err
		}
	}
	for _, c := range checks {
		target := c.a.Assoc.Target
		n, err := o.Count(ctx, target, &criteria.Cmp{Attr: target.PrimaryKey, Op: criteria.In, Value: c.ids})
		if err != nil {
			return err
		}
		if n == int64(len(c.ids)) {
			continue
		}
		// Refused: name the keys that are missing, not all of them.
		exist, err := o.existing(ctx, target, c.ids)
		if err != nil {
			return err
		}
		missing := except(c.ids, exist)
		if len(missing) == 0 {
			missing = c.ids
		}
		return &model.Error{Kind: model.Invalid, Code: code, Model: m.Identity, Attrs: []string{c.a.Name},
			Msg: fmt.Sprintf("Could not use specified `%s`: no %s record has the primary key %s.", c.a.Name, target.Identity, describeIDs(missing))}
	}
	return nil
}

// link makes ids members of the collection a of the parent record.
func (o *ORM) link(ctx context.Context, e *entry, a *model.Attribute, parent any, ids []any) error {
	switch a.Assoc.Kind {
	case model.HasMany:
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return err
		}
		err = updateLater(ctx, o.adapter(ctx, te), &datastore.Query{
			Table: te.table, Limit: criteria.Unlimited,
			Where: criteria.Rename(&criteria.Cmp{Attr: te.model.PrimaryKey, Op: criteria.In, Value: ids}, te.column),
		}, te.toRow(model.Record{a.Assoc.Inverse.Name: parent}))
		return err
	default:
		join := a.Assoc.Join
		je, err := o.entry(join.Model)
		if err != nil {
			return err
		}
		rows := make([]datastore.Record, len(ids))
		for i, id := range ids {
			rows[i] = je.toRow(model.Record{join.ParentAttr: parent, join.ChildAttr: id})
		}
		err = createLater(ctx, o.adapter(ctx, je), je.table, rows)
		return je.classify(err)
	}
}

// clearReferences sets to null every singular key, on any user model, that
// points at the record of m with key pk (those without an inverse
// collection too), so no dangling key survives a cascading destroy.
func (o *ORM) clearReferences(ctx context.Context, m *model.Model, pk any) error {
	for _, other := range o.schema.Models() {
		for _, name := range other.Order {
			a := other.Attributes[name]
			if !a.IsSingular() || a.Model != m.Identity || a.Required {
				continue
			}
			oe, err := o.entry(other)
			if err != nil {
				return err
			}
			if err := updateLater(ctx, o.adapter(ctx, oe), &datastore.Query{
				Table: oe.table, Limit: criteria.Unlimited,
				Where: criteria.Rename(&criteria.Cmp{Attr: name, Op: criteria.Eq, Value: pk}, oe.column),
			}, oe.toRow(model.Record{name: nil})); err != nil {
				return fmt.Errorf("clear %s.%s: %w", other.Identity, name, err)
			}
		}
	}
	return nil
}

// unlinkAll empties the collection a of the parent record.
func (o *ORM) unlinkAll(ctx context.Context, a *model.Attribute, parent any) error {
	switch a.Assoc.Kind {
	case model.HasMany:
		te, err := o.entry(a.Assoc.Target)
		if err != nil {
			return err
		}
		via := a.Assoc.Inverse
		err = updateLater(ctx, o.adapter(ctx, te), &datastore.Query{
			Table: te.table, Limit: criteria.Unlimited,
			Where: criteria.Rename(&criteria.Cmp{Attr: via.Name, Op: criteria.Eq, Value: parent}, te.column),
		}, te.toRow(model.Record{via.Name: nil}))
		return err
	default:
		join := a.Assoc.Join
		je, err := o.entry(join.Model)
		if err != nil {
			return err
		}
		err = destroyLater(ctx, o.adapter(ctx, je), &datastore.Query{
			Table: je.table, Limit: criteria.Unlimited,
			Where: criteria.Rename(&criteria.Cmp{Attr: join.ParentAttr, Op: criteria.Eq, Value: parent}, je.column),
		})
		return err
	}
}

// wrap adds the operation to errors the client will not see; model errors
// pass through unchanged so their kind and message stay intact.
func wrap(op string, m *model.Model, err error) error {
	if _, ok := model.AsError(err); ok {
		return err
	}
	return fmt.Errorf("%s %s: %w", op, m.Identity, err)
}

// describedIDs is how many keys an error message names at most.
const describedIDs = 5

// describeIDs names ids for an error message: at most describedIDs of
// them, and how many more there are, so that a message stays short
// however many keys a request names.
func describeIDs(ids []any) string {
	if len(ids) == 1 {
		return model.Describe(ids[0])
	}
	var b strings.Builder
	b.WriteString("among ")
	for i, id := range ids[:min(len(ids), describedIDs)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(model.Describe(id))
	}
	if more := len(ids) - describedIDs; more > 0 {
		fmt.Fprintf(&b, " (and %d more)", more)
	}
	return b.String()
}
