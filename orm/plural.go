package orm

import (
	"context"
	"errors"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// plural is the read of one plural association's children for a set of
// parents, and how its rows are shared out among them. Its query depends
// only on the parents' keys, so it can travel with other reads (see
// readPlurals): next gives the read still needed, got takes its rows, and
// assign fills the parents once no read is left.
type plural struct {
	attr *model.Attribute
	pk   string // the parents' primary key attribute
	te   *entry // the children's model
	// sub is the children's criteria; Limit and Omit apply again while
	// sharing the rows out.
	sub   criteria.Criteria
	query datastore.Query
	// link is the join table of a many-to-many collection (its Table nil
	// otherwise), held by value: one allocation less per plan.
	link datastore.Through
	// key is the rows' column holding their parent's key, and the
	// partition of per-parent limits.
	key     string
	parents int
	// cap is the limit of the plain query in flight (see next), 0 when
	// the read in flight is the last.
	cap        int64
	triedPlain bool
	// inFlight is the query of the read next returned, which is done
	// before next is called again.
	inFlight datastore.Query
	rows     []datastore.Record
	done     bool
}

// plan prepares the read of the plural association a of e's records whose
// keys are parents: a one-to-many collection in one query, a many-to-many
// one in one query joining the join table when the adapter can
// (datastore.ThroughFinder, join table and children in one datastore). It
// returns nil for a many-to-many collection it cannot read so, which
// populateByLinks reads in two dependent queries instead.
func (o *ORM) plan(ctx context.Context, e *entry, a *model.Attribute, sub criteria.Criteria, parents []any) (*plural, error) {
	te, err := o.entry(a.Assoc.Target)
	if err != nil {
		return nil, err
	}
	// Without parents there is nothing to read: every list stays empty.
	p := &plural{attr: a, pk: e.model.PrimaryKey, te: te, sub: sub, parents: len(parents), done: len(parents) == 0}
	if a.Assoc.Kind == model.HasMany {
		via := a.Assoc.Inverse
		sub.Where = andIn(sub.Where, via.Name, parents)
		q := te.query(&sub)
		if q.Select != nil {
			q.Select = appendMissing(q.Select, via.ColumnName)
		}
		// Only the order within each parent matters, and reading the rows
		// grouped by parent lets the engine walk the key's index instead
		// of sorting (a fifth of the query on SQLite).
		q.Sort = append([]criteria.Sort{{Attr: via.ColumnName}}, q.Sort...)
		p.query, p.key = *q, via.ColumnName
		return p, nil
	}
	je, err := o.entry(a.Assoc.Join.Model)
	if err != nil {
		return nil, err
	}
	if _, ok := o.adapter(ctx, te).(datastore.ThroughFinder); !ok || je.store != te.store {
		return nil, nil
	}
	join := a.Assoc.Join
	p.query, p.key = *te.query(&sub), datastore.ParentKey
	p.link = datastore.Through{
		Table:        je.table,
		ParentColumn: je.column(join.ParentAttr),
		ChildColumn:  je.column(join.ChildAttr),
		Parents:      parents,
	}
	return p, nil
}

// through is the join table p's reads go through, or nil for a
// one-to-many collection.
func (p *plural) through() *datastore.Through {
	if p.link.Table == nil {
		return nil
	}
	return &p.link
}

// next returns the read p still needs, if any. The children of one parent
// are read with the collection's own skip, limit and sort. Those of
// several are first read with one plain query capped at parents*limit+1
// rows: when fewer come back, that was every child, and assign trims each
// parent's list. Otherwise the query is read again with per-parent limits
// in the database (window functions partitioned by the parent key), which
// is slower on small sets but bounded on large ones.
func (p *plural) next() (datastore.Read, bool) {
	if p.done {
		return datastore.Read{}, false
	}
	p.inFlight = p.query
	q := &p.inFlight
	p.cap = 0
	if p.parents > 1 {
		if !p.triedPlain && q.Skip == 0 && q.Limit < criteria.Unlimited/int64(p.parents+1) {
			p.triedPlain = true
			q.Limit = int64(p.parents)*q.Limit + 1
			p.cap = q.Limit
		} else {
			q.PartitionBy = p.key
		}
	}
	return datastore.Read{Query: q, Through: p.through()}, true
}

// wholeInKeyOrder reports whether p reads every column of one parent's
// children, in key order, unfiltered and from the first: the rows that a
// lock of the children, ordered by key, returns too.
func (p *plural) wholeInKeyOrder() bool {
	s := p.sub
	if p.parents != 1 || s.Where != nil || s.Skip != 0 || p.query.Select != nil {
		return false
	}
	switch len(s.Sort) {
	case 0:
		return true
	case 1:
		return s.Sort[0] == criteria.Sort{Attr: p.te.model.PrimaryKey}
	}
	return false
}

// got takes the rows of the read next returned.
func (p *plural) got(rows []datastore.Record) {
	if p.cap > 0 && int64(len(rows)) >= p.cap {
		return
	}
	p.rows, p.done = rows, true
}

// assign sets p's association of each of recs to its children among the
// rows read, at most p.sub.Limit of them, or to an empty list.
func (p *plural) assign(recs []model.Record) {
	byParent := map[any][]model.Record{}
	for _, row := range p.rows {
		parent := row[p.key]
		if p.link.Table != nil {
			delete(row, datastore.ParentKey)
		}
		if int64(len(byParent[parent])) < p.sub.Limit {
			byParent[parent] = append(byParent[parent], p.te.fromRow(row))
		}
	}
	setChildren(recs, p.attr, p.pk, byParent, p.sub.Omit)
}

// pending is a read waiting to be sent, and where its rows go: to the
// plural whose read it is, else to into.
type pending struct {
	e      *entry // the read goes to e's datastore
	read   datastore.Read
	plural *plural
	into   func([]datastore.Record)
}

// deliver hands the read's rows over. A plural is named rather than its
// method value taken, which would cost an allocation per read.
func (r *pending) deliver(rows []datastore.Record) {
	if r.plural != nil {
		r.plural.got(rows)
		return
	}
	r.into(rows)
}

// readPlurals reads the rows of every plural in ps, and the reads of
// extra with the first of them: in steps, each sending every read still
// needed (see plural.next) in one round trip per datastore (see findAll).
// The second step, when there is one, re-reads only the collections whose
// plain query hit its cap.
func (o *ORM) readPlurals(ctx context.Context, ps []*plural, extra ...pending) error {
	reads := extra
	for {
		for _, p := range ps {
			if r, ok := p.next(); ok {
				reads = append(reads, pending{e: p.te, read: r, plural: p})
			}
		}
		if len(reads) == 0 {
			return nil
		}
		if err := o.findAll(ctx, reads); err != nil {
			return err
		}
		reads = nil
	}
}

// findAll runs reads, those going to one datastore together.
func (o *ORM) findAll(ctx context.Context, reads []pending) error {
	for len(reads) > 0 {
		e := reads[0].e
		var batch []datastore.Read
		var rest []pending
		for _, r := range reads {
			if r.e.store != e.store {
				rest = append(rest, r)
				continue
			}
			batch = append(batch, r.read)
		}
		rows, err := findReads(ctx, o.adapter(ctx, e), batch)
		if err != nil {
			return err
		}
		i := 0
		for k := range reads {
			if r := &reads[k]; r.e.store == e.store {
				r.deliver(rows[i])
				i++
			}
		}
		reads = rest
	}
	return nil
}

// findReads runs reads on a and returns each one's rows: in one round trip
// when there are several and a is a datastore.BatchFinder, else one by one.
func findReads(ctx context.Context, a datastore.Adapter, reads []datastore.Read) ([][]datastore.Record, error) {
	if bf, ok := a.(datastore.BatchFinder); ok && len(reads) > 1 {
		return bf.FindBatch(ctx, reads)
	}
	out := make([][]datastore.Record, len(reads))
	for i, r := range reads {
		var err error
		switch tf, ok := a.(datastore.ThroughFinder); {
		case r.Joins != nil:
			jf, ok := a.(datastore.JoinFinder)
			if !ok {
				return nil, errors.New("the adapter cannot join")
			}
			out[i], err = jf.FindJoined(ctx, r.Query, r.Joins)
		case r.Through == nil:
			out[i], err = a.Find(ctx, r.Query)
		case ok:
			out[i], err = tf.FindThrough(ctx, r.Query, r.Through)
		default:
			err = errors.New("the adapter cannot read through a join table")
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
