package orm

import (
	"context"
	"fmt"

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
	rows, err := o.adapter(ctx, e).Find(ctx, e.query(c))
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", m.Identity, err)
	}
	recs := make([]model.Record, len(rows))
	for i, row := range rows {
		recs[i] = e.fromRow(row)
	}
	if err := o.populate(ctx, e, recs, pops); err != nil {
		return nil, err
	}
	omit(recs, c.Omit)
	return recs, nil
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
	recs, err := o.Find(ctx, m, &one, pops)
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

// populate fills the requested associations of recs with one query per
// association (two for join tables), whatever the number of records.
func (o *ORM) populate(ctx context.Context, e *entry, recs []model.Record, pops []Populate) error {
	if len(recs) == 0 {
		return nil
	}
	for _, p := range pops {
		a := e.model.Attributes[p.Attr]
		if a == nil || a.Assoc == nil {
			return model.Errorf(model.Invalid, model.CodeInvalidPopulates,
				"Could not populate `%s`: it is not an association of %s.", p.Attr, e.model.Identity)
		}
		if a.Assoc.Kind == model.BelongsTo {
			if err := o.populateSingular(ctx, e, a, recs); err != nil {
				return fmt.Errorf("populate %s.%s: %w", e.model.Identity, p.Attr, err)
			}
			continue
		}
		// Every parent gets a list, empty unless children are found below.
		for _, r := range recs {
			r[a.Name] = []model.Record{}
		}
		sub := childCriteria(p.Criteria)
		if sub.Noop {
			continue
		}
		var err error
		if a.Assoc.Kind == model.HasMany {
			err = o.populateHasMany(ctx, e, a, sub, recs)
		} else {
			err = o.populateJoined(ctx, e, a, sub, recs)
		}
		if err != nil {
			return fmt.Errorf("populate %s.%s: %w", e.model.Identity, p.Attr, err)
		}
	}
	return nil
}

func (o *ORM) populateSingular(ctx context.Context, e *entry, a *model.Attribute, recs []model.Record) error {
	target := a.Assoc.Target
	ids := distinct(recs, a.Name)
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

// populateHasMany reads the children of every parent in one query, with
// skip and limit applied per parent (PartitionBy).
func (o *ORM) populateHasMany(ctx context.Context, e *entry, a *model.Attribute, sub criteria.Criteria, recs []model.Record) error {
	target, via := a.Assoc.Target, a.Assoc.Inverse
	pk := e.model.PrimaryKey
	te, err := o.entry(target)
	if err != nil {
		return err
	}
	sub.Where = andIn(sub.Where, via.Name, distinct(recs, pk))
	q := te.query(&sub)
	if q.Select != nil {
		q.Select = appendMissing(q.Select, via.ColumnName)
	}
	rows, err := o.childRows(ctx, te, q, via.ColumnName, len(recs))
	if err != nil {
		return err
	}
	byParent := map[any][]model.Record{}
	for _, row := range rows {
		child := te.fromRow(row)
		parent := child[via.Name]
		if int64(len(byParent[parent])) < sub.Limit {
			byParent[parent] = append(byParent[parent], child)
		}
	}
	for _, r := range recs {
		if kids := byParent[r[pk]]; kids != nil {
			omit(kids, sub.Omit)
			r[a.Name] = kids
		}
	}
	return nil
}

// childRows reads the children of up to parents parents, at most q.Limit
// each (after q.Skip). Small collections are read with one plain query
// capped at parents*limit+1 rows: when fewer come back, that was every
// child, and the caller trims each parent's list. Otherwise the query is run
// again with per-parent limits in the database (window functions), which
// is slower on small sets but bounded on large ones.
func (o *ORM) childRows(ctx context.Context, te *entry, q *datastore.Query, partition string, parents int) ([]datastore.Record, error) {
	a := o.adapter(ctx, te)
	if q.Skip == 0 && q.Limit < criteria.Unlimited/int64(parents+1) {
		plain := *q
		plain.Limit = int64(parents)*q.Limit + 1
		rows, err := a.Find(ctx, &plain)
		if err != nil || int64(len(rows)) < plain.Limit {
			return rows, err
		}
	}
	q.PartitionBy = partition
	return a.Find(ctx, q)
}

// populateJoined reads the join rows of every parent, then their children,
// and applies skip and limit per parent while distributing them.
func (o *ORM) populateJoined(ctx context.Context, e *entry, a *model.Attribute, sub criteria.Criteria, recs []model.Record) error {
	target, join := a.Assoc.Target, a.Assoc.Join
	pk := e.model.PrimaryKey
	links, err := o.Find(ctx, join.Model, &criteria.Criteria{
		Where: &criteria.Cmp{Attr: join.ParentAttr, Op: criteria.In, Value: distinct(recs, pk)},
		Limit: criteria.Unlimited,
	}, nil)
	if err != nil {
		return err
	}
	if len(links) == 0 {
		return nil
	}
	all := sub
	all.Limit, all.Skip = criteria.Unlimited, 0
	all.Where = andIn(all.Where, target.PrimaryKey, distinct(links, join.ChildAttr))
	children, err := o.Find(ctx, target, &all, nil)
	if err != nil {
		return err
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
	for _, r := range recs {
		if kids := byParent[r[pk]]; kids != nil {
			r[a.Name] = kids
		}
	}
	return nil
}

// distinct returns the distinct non-nil values of attr in recs, in order.
func distinct(recs []model.Record, attr string) []any {
	seen := make(map[any]bool, len(recs))
	out := make([]any, 0, len(recs))
	for _, r := range recs {
		v := r[attr]
		if v == nil || seen[v] {
			continue
		}
		if _, isRec := v.(model.Record); isRec {
			continue
		}
		seen[v] = true
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
