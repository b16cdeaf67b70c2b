package orm

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// Populate asks for one association to be filled in on each record found.
// Criteria applies to the children of a plural association (nil means all
// of them); it must be nil for a singular one.
type Populate struct {
	Attr     string
	Criteria *criteria.Criteria
}

// Find returns the records of m matching c, with the requested associations
// populated. It returns an empty slice when nothing matches.
func (o *ORM) Find(ctx context.Context, m *model.Model, c *criteria.Criteria, pops []Populate) ([]model.Record, error) {
	e, err := o.entry(m)
	if err != nil {
		return nil, err
	}
	if c.Noop {
		return []model.Record{}, nil
	}
	c = selectPopulatedKeys(m, c, pops)
	a := o.adapter(ctx, e)
	q := e.query(c)
	j := o.joinPlan(e, a, pops, q.Limit <= 2)
	rows, err := j.find(ctx, a, q)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", m.Identity, err)
	}
	recs := e.records(rows)
	j.assign(recs)
	if err := o.populate(ctx, e, recs, j.populates(pops)); err != nil {
		return nil, err
	}
	omit(recs, c.Omit)
	return recs, nil
}

// selectPopulatedKeys returns c with the singular associations of pops
// added to an explicit select, as Waterline's stage-three query adds their
// foreign keys: the key is what populating reads, so select=name still
// answers each record's owner populated. c itself is left as it is.
func selectPopulatedKeys(m *model.Model, c *criteria.Criteria, pops []Populate) *criteria.Criteria {
	if len(c.Select) == 0 {
		return c
	}
	var sel []string
	for _, p := range pops {
		a := m.Attributes[p.Attr]
		if a == nil || a.Assoc == nil || a.Assoc.Kind != model.BelongsTo || slices.Contains(c.Select, p.Attr) {
			continue
		}
		if sel == nil {
			sel = slices.Clip(c.Select)
		}
		sel = appendMissing(sel, p.Attr)
	}
	if sel == nil {
		return c
	}
	with := *c
	with.Select = sel
	return &with
}

// records maps rows of e's table to records.
func (e *entry) records(rows []datastore.Record) []model.Record {
	recs := make([]model.Record, len(rows))
	for i, row := range rows {
		recs[i] = e.fromRow(row)
	}
	return recs
}

// Populate fills the requested associations of records already read (for
// instance the record Create returned), with the same queries Find uses.
func (o *ORM) Populate(ctx context.Context, m *model.Model, recs []model.Record, pops []Populate) error {
	e, err := o.entry(m)
	if err != nil {
		return err
	}
	return o.populate(ctx, e, recs, pops)
}

// FindOne returns the one record of m matching c, or nil when none does.
// Matching more than one record is an error (Kind Conflict).
func (o *ORM) FindOne(ctx context.Context, m *model.Model, c *criteria.Criteria, pops []Populate) (model.Record, error) {
	one := *c
	one.Limit, one.Skip, one.Sort = 2, 0, nil
	var recs []model.Record
	var err error
	if pk, ok := pinnedKey(m, one.Where); ok && !one.Noop {
		recs, err = o.findByKey(ctx, m, &one, pk, pops)
	} else {
		recs, err = o.Find(ctx, m, &one, pops)
	}
	if err != nil {
		return nil, err
	}
	switch len(recs) {
	case 0:
		return nil, nil
	case 1:
		return recs[0], nil
	}
	return nil, model.Errorf(model.Conflict, model.CodeTooMany,
		"More than one matching record found for a query that must match at most one %s.", m.Identity)
}

// FindByPK returns the record of m with primary key pk, or nil.
func (o *ORM) FindByPK(ctx context.Context, m *model.Model, pk any, pops []Populate) (model.Record, error) {
	return o.FindOne(ctx, m, &criteria.Criteria{Where: pkWhere(m, pk), Limit: 2}, pops)
}

// pinnedKey returns the primary key value where requires by equality, if
// it does.
func pinnedKey(m *model.Model, where criteria.Expr) (any, bool) {
	switch w := where.(type) {
	case *criteria.Cmp:
		if w.Attr == m.PrimaryKey && w.Key == "" && w.Op == criteria.Eq && w.Value != nil {
			return w.Value, true
		}
	case *criteria.And:
		for _, x := range w.Exprs {
			if v, ok := pinnedKey(m, x); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// findByKey is Find for criteria c that pin the primary key to pk. The
// children of the plural associations on the record's own datastore depend
// on pk alone, so where that datastore batches reads
// (datastore.BatchFinder) they are read with the record, in one round
// trip, and dropped when no record matches. The other associations are
// populated afterwards, as Find populates them.
func (o *ORM) findByKey(ctx context.Context, m *model.Model, c *criteria.Criteria, pk any, pops []Populate) ([]model.Record, error) {
	c = selectPopulatedKeys(m, c, pops)
	k, err := o.keyReads(ctx, m, c, pk, pops)
	if k == nil || err != nil {
		return nil, err
	}
	if k.find {
		return o.Find(ctx, m, c, pops)
	}
	if err := o.readPlurals(ctx, k.early, k.self()); err != nil {
		return nil, fmt.Errorf("find %s: %w", m.Identity, err)
	}
	return o.finishKeyReads(ctx, k)
}

// keyRead is findByKey's reading of a record by its key with the
// collections it populates in the same round trip.
type keyRead struct {
	e     *entry
	c     *criteria.Criteria
	pops  []Populate
	early []*plural  // read with the record
	rest  []Populate // populated once the record is read
	// joins are the singular associations read with the record.
	joins *joinPlan
	rows  []datastore.Record
	// find is set when the adapter cannot batch reads: Find then reads the
	// record first, so that a missing one wastes no reads of children.
	find bool
}

// keyReads prepares the reads of findByKey.
func (o *ORM) keyReads(ctx context.Context, m *model.Model, c *criteria.Criteria, pk any, pops []Populate) (*keyRead, error) {
	e, err := o.entry(m)
	if err != nil {
		return nil, err
	}
	k := &keyRead{e: e, c: c, pops: pops}
	attrs, err := e.associations(pops)
	ad := o.adapter(ctx, e)
	if _, batches := ad.(datastore.BatchFinder); err != nil || !batches {
		// Find reports a bad populate once it has found a record to
		// populate.
		k.find = true
		return k, nil
	}
	k.joins = o.joinPlan(e, ad, pops, true)
	for i, a := range attrs {
		if k.joins != nil && a.Assoc.Kind == model.BelongsTo && slices.Contains(k.joins.attrs, a.Name) {
			continue
		}
		if sub := childCriteria(pops[i].Criteria); a.Assoc.Kind != model.BelongsTo && !sub.Noop {
			p, err := o.plan(ctx, e, a, sub, []any{pk})
			if err != nil {
				return nil, fmt.Errorf("populate %s.%s: %w", m.Identity, a.Name, err)
			}
			if p != nil && p.te.store == e.store {
				k.early = append(k.early, p)
				continue
			}
		}
		k.rest = append(k.rest, pops[i])
	}
	return k, nil
}

// self is the read of the record itself.
func (k *keyRead) self() pending {
	return pending{e: k.e, read: k.joins.read(k.e.query(k.c)), into: func(r []datastore.Record) { k.rows = r }}
}

// firstReads returns the reads that go out first, the record's and its
// early collections', all to the record's datastore.
func (k *keyRead) firstReads() []pending {
	out := []pending{k.self()}
	for _, p := range k.early {
		if r, ok := p.next(); ok {
			out = append(out, pending{e: p.te, read: r, plural: p})
		}
	}
	return out
}

// finishKeyReads runs what k still needs once its first reads are in and
// returns the records (none or one).
func (o *ORM) finishKeyReads(ctx context.Context, k *keyRead) ([]model.Record, error) {
	if err := o.readPlurals(ctx, k.early); err != nil {
		return nil, fmt.Errorf("find %s: %w", k.e.model.Identity, err)
	}
	recs := k.e.records(k.rows)
	if len(recs) == 0 {
		return recs, nil
	}
	for _, p := range k.early {
		p.assign(recs)
	}
	k.joins.assign(recs)
	if err := o.populate(ctx, k.e, recs, k.rest); err != nil {
		return nil, err
	}
	omit(recs, k.c.Omit)
	return recs, nil
}

// Count returns how many records of m match where.
func (o *ORM) Count(ctx context.Context, m *model.Model, where criteria.Expr) (int64, error) {
	e, err := o.entry(m)
	if err != nil {
		return 0, err
	}
	q := &datastore.Query{Table: e.table, Limit: criteria.Unlimited}
	if where != nil {
		q.Where = e.columns(where)
	}
	n, err := o.adapter(ctx, e).Count(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", m.Identity, err)
	}
	return n, nil
}

func omit(recs []model.Record, names []string) {
	if len(names) == 0 {
		return
	}
	for _, r := range recs {
		for _, n := range names {
			delete(r, n)
		}
	}
}

// populate fills the requested associations of recs, whatever their
// number: each plural one with one query (two for a join table the adapter
// cannot join), the queries on one datastore sent together where it
// batches them (see readPlurals); then each singular one with one query.
func (o *ORM) populate(ctx context.Context, e *entry, recs []model.Record, pops []Populate) error {
	if len(recs) == 0 {
		return nil
	}
	attrs, err := e.associations(pops)
	if err != nil {
		return err
	}
	var plurals []*plural
	for i, a := range attrs {
		if a.Assoc.Kind == model.BelongsTo {
			continue
		}
		sub := childCriteria(pops[i].Criteria)
		if sub.Noop {
			setChildren(recs, a, e.model.PrimaryKey, nil, nil)
			continue
		}
		p, err := o.plan(ctx, e, a, sub, distinct(recs, e.model.PrimaryKey))
		if err == nil && p == nil {
			err = o.populateByLinks(ctx, e, a, sub, recs)
		}
		if err != nil {
			return fmt.Errorf("populate %s.%s: %w", e.model.Identity, a.Name, err)
		}
		if p != nil {
			plurals = append(plurals, p)
		}
	}
	if err := o.readPlurals(ctx, plurals); err != nil {
		return fmt.Errorf("populate %s: %w", e.model.Identity, err)
	}
	for _, a := range attrs {
		if a.Assoc.Kind != model.BelongsTo {
			continue
		}
		if err := o.populateSingular(ctx, e, a, recs); err != nil {
			return fmt.Errorf("populate %s.%s: %w", e.model.Identity, a.Name, err)
		}
	}
	// The collections' keys go in last: a record map holding eight keys
	// grows into a table (three allocations) on any write, even of a key
	// it has, such as the owner replacing its id.
	for _, p := range plurals {
		p.assign(recs)
	}
	return nil
}

// associations returns the association each of pops names, or an Invalid
// error for the first that names none.
func (e *entry) associations(pops []Populate) ([]*model.Attribute, error) {
	attrs := make([]*model.Attribute, len(pops))
	for i, p := range pops {
		a := e.model.Attributes[p.Attr]
		if a == nil || a.Assoc == nil {
			return nil, model.Errorf(model.Invalid, model.CodeInvalidPopulates,
				"Could not populate `%s`: it is not an association of %s.", p.Attr, e.model.Identity)
		}
		attrs[i] = a
	}
	return attrs, nil
}

func (o *ORM) populateSingular(ctx context.Context, e *entry, a *model.Attribute, recs []model.Record) error {
	target := a.Assoc.Target
	ids := distinct(recs, a.Name)
	e.noteShare(a.Name, len(ids), len(recs))
	byPK := map[any]model.Record{}
	if len(ids) > 0 {
		children, err := o.Find(ctx, target, &criteria.Criteria{
			Where: &criteria.Cmp{Attr: target.PrimaryKey, Op: criteria.In, Value: ids},
			Limit: criteria.Unlimited,
		}, nil)
		if err != nil {
			return err
		}
		for _, c := range children {
			byPK[c[target.PrimaryKey]] = c
		}
	}
	for _, r := range recs {
		if c, ok := byPK[r[a.Name]]; ok {
			r[a.Name] = c
		} else {
			// A dangling key reads as null, as an unset one does.
			r[a.Name] = nil
		}
	}
	return nil
}

func childCriteria(c *criteria.Criteria) criteria.Criteria {
	if c == nil {
		return criteria.Criteria{Limit: criteria.Unlimited}
	}
	return *c
}

// andIn restricts where to records whose attr is one of ids.
func andIn(where criteria.Expr, attr string, ids []any) criteria.Expr {
	in := &criteria.Cmp{Attr: attr, Op: criteria.In, Value: ids}
	if where == nil {
		return in
	}
	return &criteria.And{Exprs: []criteria.Expr{in, where}}
}

// setChildren sets the plural association a of each of recs to its
// children in byParent (keyed by the parent's primary key pk), without the
// attributes in omitted, or to an empty list when it has none.
func setChildren(recs []model.Record, a *model.Attribute, pk string, byParent map[any][]model.Record, omitted []string) {
	for _, r := range recs {
		kids := byParent[r[pk]]
		if kids == nil {
			kids = []model.Record{}
		} else {
			omit(kids, omitted)
		}
		r[a.Name] = kids
	}
}

// populateByLinks fills the many-to-many collection a of recs when the
// adapter cannot join its join table (see plan): it reads the join rows,
// then the children.
func (o *ORM) populateByLinks(ctx context.Context, e *entry, a *model.Attribute, sub criteria.Criteria, recs []model.Record) error {
	te, err := o.entry(a.Assoc.Target)
	if err != nil {
		return err
	}
	byParent, err := o.childrenByLinks(ctx, te, a.Assoc.Join, sub, distinct(recs, e.model.PrimaryKey))
	if err != nil {
		return err
	}
	setChildren(recs, a, e.model.PrimaryKey, byParent, sub.Omit)
	return nil
}

// childrenByLinks reads the join rows of parents, then their children, and
// applies skip and limit per parent while distributing them.
func (o *ORM) childrenByLinks(ctx context.Context, te *entry, join *model.JoinTable, sub criteria.Criteria, parents []any) (map[any][]model.Record, error) {
	target := te.model
	links, err := o.Find(ctx, join.Model, &criteria.Criteria{
		Where: &criteria.Cmp{Attr: join.ParentAttr, Op: criteria.In, Value: parents},
		Limit: criteria.Unlimited,
	}, nil)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	all := sub
	all.Limit, all.Skip, all.Omit = criteria.Unlimited, 0, nil
	all.Where = andIn(all.Where, target.PrimaryKey, distinct(links, join.ChildAttr))
	children, err := o.Find(ctx, target, &all, nil)
	if err != nil {
		return nil, err
	}
	parentsOf := map[any][]any{}
	for _, l := range links {
		parentsOf[l[join.ChildAttr]] = append(parentsOf[l[join.ChildAttr]], l[join.ParentAttr])
	}
	// Children arrive in the requested order; skip and limit apply per parent.
	byParent := map[any][]model.Record{}
	seen := map[any]int64{}
	for _, child := range children {
		for _, parent := range parentsOf[child[target.PrimaryKey]] {
			n := seen[parent]
			seen[parent] = n + 1
			if n < sub.Skip || n >= sub.Skip+sub.Limit {
				continue
			}
			byParent[parent] = append(byParent[parent], child)
		}
	}
	return byParent, nil
}

// distinct returns the distinct non-nil values of attr in recs, in order.
// Up to maxPairwise records each value is looked for among those kept (a
// page's 30 are cheaper so than hashed into a map, which also allocates),
// numbers unboxed.
func distinct(recs []model.Record, attr string) []any {
	out := make([]any, 0, len(recs))
	var seen map[any]bool
	if len(recs) > maxPairwise {
		seen = make(map[any]bool, len(recs))
	}
	var nums [maxPairwise]float64
	kept := 0
	for _, r := range recs {
		v := r[attr]
		if v == nil {
			continue
		}
		if _, isRec := v.(model.Record); isRec {
			continue
		}
		if seen != nil {
			if seen[v] {
				continue
			}
			seen[v] = true
		} else if f, ok := v.(float64); ok {
			// A number equals only numbers, and NaN none.
			if slices.Contains(nums[:kept], f) {
				continue
			}
			nums[kept] = f
			kept++
		} else if slices.Contains(out, v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func appendMissing(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
