package orm

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// RowShape is how the values FindRows hands over make the records Find
// would return: which attribute each value is, and which values make the
// records populated by a join.
type RowShape struct {
	// Names[i] is the attribute the i-th value is in its record: in the
	// record itself for the values before the first of Joined's From, in
	// that joined record for the values of a Joined's range. "" means the
	// record has no such attribute (a key a joined record replaces, an
	// attribute the criteria omit).
	Names []string
	// Joined are the associations populated by the join, in turn.
	Joined []JoinedShape
}

// JoinedShape is a singular association a RowShape's values populate.
type JoinedShape struct {
	// Attr is the association; Model is the model it points at.
	Attr  string
	Model *model.Model
	// The values [From:To] make the associated record, which is null when
	// the value at PK (its primary key) is nil.
	From, To, PK int
}

// FindRows is Find handing each record to each as the values of one row,
// laid out as shape says, instead of making it a record, when it can do
// so: the adapter must implement datastore.RowFinder, every populate be
// read by a join (see joinPlan) and no model involved be schemaless. When
// it cannot, ok is false, nothing is read and the caller uses Find. The
// shape and values belong to FindRows and are valid only during the call
// of each that is given them. An error from each ends the read and is
// returned as it is.
func (o *ORM) FindRows(ctx context.Context, m *model.Model, c *criteria.Criteria, pops []Populate, each func(shape *RowShape, vals []any) error) (ok bool, err error) {
	e, err := o.entry(m)
	if err != nil {
		return false, err
	}
	if !o.rowsReadable(ctx, e, c, pops) {
		return false, nil
	}
	a := o.adapter(ctx, e)
	rf := a.(datastore.RowFinder)
	q := e.query(selectPopulatedKeys(m, c, pops))
	j := o.joinPlan(e, a, pops, q.Limit <= 2)
	if len(pops) > 0 && (j == nil || len(j.rest) > 0) {
		return false, nil
	}
	var joins []datastore.Join
	if j != nil {
		for _, te := range j.targets {
			if te.extra != "" {
				return false, nil
			}
		}
		joins = j.joins
	}
	if c.Noop {
		return true, nil
	}
	r := rowReader{e: e, j: j, omit: c.Omit, each: each}
	if j != nil && j.page {
		r.keys = make([][]any, len(j.attrs))
		for i := range r.keys {
			r.keys[i] = make([]any, 0, min(max(q.Limit, 0), maxPairwise))
		}
	}
	var eachErr error
	err = rf.FindRows(ctx, q, joins, func(row *datastore.Row) error {
		eachErr = r.row(row)
		return eachErr
	})
	if eachErr != nil {
		return true, eachErr
	}
	if err != nil {
		return true, fmt.Errorf("find %s: %w", m.Identity, err)
	}
	if r.keys != nil && r.n >= minNotedPage {
		for i, name := range j.attrs {
			e.noteShare(name, countDistinct(r.keys[i]), r.n)
		}
	}
	return true, nil
}

// RowsReadable reports whether FindRows may read m's records matching c
// with pops, as far as can be told without building the query: a caller
// that would prepare for the rows can skip that when it is false (FindRows
// then says no). The adapter must hand rows over, m not be schemaless, and
// every populate be of a singular association that the read joins (see
// joinPlan): collections, and pages whose records point at the same
// records, need records.
func (o *ORM) RowsReadable(ctx context.Context, m *model.Model, c *criteria.Criteria, pops []Populate) bool {
	e, err := o.entry(m)
	return err == nil && o.rowsReadable(ctx, e, c, pops)
}

func (o *ORM) rowsReadable(ctx context.Context, e *entry, c *criteria.Criteria, pops []Populate) bool {
	if _, ok := o.adapter(ctx, e).(datastore.RowFinder); !ok || e.extra != "" {
		return false
	}
	// As e.query sets the limit, and Find decides whether it reads few.
	few := c.Limit != 0 && c.Limit <= 2 || c.Limit == 0 && c.Noop
	for _, p := range pops { // the cheap refusals first: collections
		attr := e.model.Attributes[p.Attr]
		if attr == nil || attr.Assoc == nil || attr.Assoc.Kind != model.BelongsTo || p.Criteria != nil {
			return false
		}
	}
	for _, p := range pops {
		if o.joinable(e, e.model.Attributes[p.Attr], p) == nil || !few && !e.joinsPages(p.Attr) {
			return false
		}
	}
	return true
}

// rowReader hands the rows of one FindRows to its callback.
type rowReader struct {
	e     *entry
	j     *joinPlan
	omit  []string
	each  func(*RowShape, []any) error
	shape *RowShape
	cols  []*datastore.Column // the columns shape was made for
	// keys holds, per join, the keys of the records joined so far, for
	// the page's share of distinct ones (see joinPlan.assign); n counts
	// the rows.
	keys [][]any
	n    int
}

func (r *rowReader) row(row *datastore.Row) error {
	if r.shape == nil || !sameColumns(r.cols, row.Columns) {
		r.shape = r.cachedShape(row)
		r.cols = row.Columns
	}
	r.n++
	if r.keys != nil {
		for i, n := range row.Nests { // as the joins, as r.j.attrs
			if k := row.Values[n.PK]; k != nil {
				r.keys[i] = append(r.keys[i], k)
			}
		}
	}
	return r.each(r.shape, row.Values)
}

// cachedShape is shapeOf(row), kept per entry for rows laid out as the
// last ones were when the criteria omit nothing: a page's shape is the same
// from request to request.
func (r *rowReader) cachedShape(row *datastore.Row) *RowShape {
	if len(r.omit) > 0 {
		return r.shapeOf(row)
	}
	if c := r.e.lastShape.Load(); c != nil && slices.Equal(c.cols, row.Columns) && slices.Equal(c.nests, row.Nests) {
		return c.shape
	}
	s := r.shapeOf(row)
	r.e.lastShape.Store(&shapeOfRows{cols: slices.Clone(row.Columns), nests: slices.Clone(row.Nests), shape: s})
	return s
}

// shapeOfRows is a RowShape and the layout of the rows it was made for.
type shapeOfRows struct {
	cols  []*datastore.Column
	nests []datastore.Nest
	shape *RowShape
}

// sameColumns reports whether a and b are the same slice.
func sameColumns(a, b []*datastore.Column) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// shapeOf returns the shape of rows laid out as row is: as fromRow maps a
// record's columns (and a joined record's, for each join), less the
// attributes the criteria omit.
func (r *rowReader) shapeOf(row *datastore.Row) *RowShape {
	s := &RowShape{Names: make([]string, len(row.Columns))}
	own := len(row.Columns)
	if len(row.Nests) > 0 {
		own = row.Nests[0].From
	}
	for i, c := range row.Columns[:own] {
		s.Names[i] = r.e.attrOf(c.Name, r.omit)
	}
	for k, n := range row.Nests {
		for i := range own {
			if row.Columns[i].Name == n.Key {
				s.Names[i] = "" // the joined record replaces the key
			}
		}
		attr := r.e.colToAttr[n.Key]
		if attr == "" || slices.Contains(r.omit, attr) {
			continue
		}
		te := r.j.targets[k]
		for i := n.From; i < n.To; i++ {
			s.Names[i] = te.attrOf(row.Columns[i].Name, nil)
		}
		s.Joined = append(s.Joined, JoinedShape{Attr: attr, Model: te.model, From: n.From, To: n.To, PK: n.PK})
	}
	return s
}

// attrOf is the attribute a record of e holds col's value under, or ""
// when it holds none (as fromRow) or omit names it.
func (e *entry) attrOf(col string, omit []string) string {
	name := e.colToAttr[col]
	if name == "" || slices.Contains(omit, name) {
		return ""
	}
	if a := e.model.Attributes[name]; a == nil || a.IsPlural() {
		return ""
	}
	return name
}
