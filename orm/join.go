package orm

import (
	"context"
	"slices"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// joinPlan is the singular associations a find reads with its records, in
// the same query (datastore.JoinFinder), instead of with a second query
// once they are read (populateSingular).
type joinPlan struct {
	joins   []datastore.Join
	attrs   []string // the associations, as joins
	targets []*entry // their models, as joins
	// rest are the populates left once the joined ones are read.
	rest []Populate
}

// joinPlan returns how a find of e's records on adapter a reads the
// singular associations of pops with them, or nil when it reads none so.
// It reads so those it can read exactly as populateSingular does: the
// adapter must join (datastore.JoinFinder), the associated model live in
// the same datastore, its key column be of the foreign key's kind and
// type, and the populate carry no criteria (which populateSingular would
// ignore). When some populate names no association it joins nothing, so
// that populate reports it as before.
//
// few says that the find reads at most two records (by key, or FindOne):
// only then is a join taken. A join reads an associated row once per
// record pointing at it, where a second query reads it once. On the
// example app's page of 30 pets of 3 owners the join read 27 owners more:
// on SQLite it took 11% more instructions than the second query
// (bench/instructions.sh, pet-list), and on PostgreSQL, where it saved a
// round trip, 7% more of Skiff's CPU per request and 6% fewer requests
// per second (bench/ab.sh, GET /pet?limit=30, 2026-11-26).
func (o *ORM) joinPlan(e *entry, a datastore.Adapter, pops []Populate, few bool) *joinPlan {
	if len(pops) == 0 {
		return nil
	}
	if _, ok := a.(datastore.JoinFinder); !ok {
		return nil
	}
	if !few {
		return nil
	}
	var j *joinPlan
	for i, p := range pops {
		attr := e.model.Attributes[p.Attr]
		if attr == nil || attr.Assoc == nil {
			return nil
		}
		te := o.joinable(e, attr, p)
		if te == nil || j != nil && slices.Contains(j.attrs, p.Attr) {
			if j != nil {
				j.rest = append(j.rest, p)
			}
			continue
		}
		if j == nil {
			j = &joinPlan{rest: append([]Populate(nil), pops[:i]...)}
		}
		j.joins = append(j.joins, datastore.Join{Column: attr.ColumnName, Table: te.table})
		j.attrs = append(j.attrs, p.Attr)
		j.targets = append(j.targets, te)
	}
	return j
}

// joinable returns the entry of the model the singular association attr
// of e points at when a find of e can read it by a join, else nil.
func (o *ORM) joinable(e *entry, attr *model.Attribute, p Populate) *entry {
	if attr.Assoc.Kind != model.BelongsTo || p.Criteria != nil {
		return nil
	}
	te := o.entries[attr.Assoc.Target.Identity]
	if te == nil || te.store != e.store {
		return nil
	}
	fk, pk := e.table.Column(attr.ColumnName), te.table.Column(te.table.PrimaryKey)
	if fk == nil || pk == nil || fk.Kind != pk.Kind || fk.Type != pk.Type {
		return nil
	}
	return te
}

// populates returns the populates left to do after the joined ones: pops
// itself when j is nil.
func (j *joinPlan) populates(pops []Populate) []Populate {
	if j == nil {
		return pops
	}
	return j.rest
}

// read is the datastore read of q with j's joins.
func (j *joinPlan) read(q *datastore.Query) datastore.Read {
	if j == nil {
		return datastore.Read{Query: q}
	}
	return datastore.Read{Query: q, Joins: j.joins}
}

// assign turns the joined rows the adapter left under each association of
// recs into records of the associated model: as populateSingular would
// have read them, a key pointing at no record (or none) reading as null.
func (j *joinPlan) assign(recs []model.Record) {
	if j == nil {
		return
	}
	for _, r := range recs {
		for i, name := range j.attrs {
			if row, ok := r[name].(datastore.Record); ok {
				r[name] = j.targets[i].fromRow(row)
			} else {
				r[name] = nil
			}
		}
	}
}

// find runs the read of q on a, with j's joins when there are any.
func (j *joinPlan) find(ctx context.Context, a datastore.Adapter, q *datastore.Query) ([]datastore.Record, error) {
	if j == nil {
		return a.Find(ctx, q)
	}
	return a.(datastore.JoinFinder).FindJoined(ctx, q, j.joins)
}
