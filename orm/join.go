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
	// page is set for a find of more than two records, whose shares of
	// distinct associated records assign notes in from.
	page bool
	from *entry
	// The slices above start in these, so that a plan of up to
	// maxInlineJoins joins and rest is one allocation (a FindOne of a
	// model with associations makes one per request).
	joinsBuf   [maxInlineJoins]datastore.Join
	attrsBuf   [maxInlineJoins]string
	targetsBuf [maxInlineJoins]*entry
	restBuf    [maxInlineJoins]Populate
}

// maxInlineJoins is how many joins, and populates left, a joinPlan holds
// without allocating more.
const maxInlineJoins = 2

// pageJoinShare is the share of distinct associated records among a
// page's records, in thousandths, from which the next pages read the
// association by a join. The second query's cost is mostly its own (a
// statement, a read transaction), the join's grows with the records
// pointing at the same one: measured at 30 of 30 distinct (join a fifth
// cheaper) and 3 of 30 (the second query 11-15% cheaper), they break even
// near half.
const pageJoinShare = 500

// minNotedPage is the fewest records whose share of distinct associated
// records is noted: fewer tell little about the pages.
const minNotedPage = 3

// noteShare notes, for the singular association attr of e, that a page of
// n records pointed at distinct different records.
func (e *entry) noteShare(attr string, distinct, n int) {
	if n < minNotedPage {
		return
	}
	if s := e.shares[attr]; s != nil {
		s.Store(int32(distinct * 1000 / n))
	}
}

// joinsPages reports whether pages of e read the singular association
// attr by a join: whether the last page noted pointed at distinct records
// enough. Until a page is noted they read it by a second query.
func (e *entry) joinsPages(attr string) bool {
	s := e.shares[attr]
	return s != nil && s.Load() >= pageJoinShare
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
// then a join is always taken. A page joins an association only when the
// pages of e read lately pointed at distinct records (joinsPages): a join
// reads an associated row once per record pointing at it, where a second
// query reads it once. On the example app's page of 30 pets of 3 owners
// the join read 27 owners more: on SQLite it took 11-15% more instructions
// than the second query (bench/instructions.sh, pet-list), and on
// PostgreSQL, where it saved a round trip, 7% more of Skiff's CPU per
// request (bench/ab.sh, GET /pet?limit=30, 2026-11-26). On bench/floor's
// page of 30 pets of 30 owners it took a fifth less CPU per request than
// the second query (bench/floor.sh, SQLite: 113 against 140 µs).
func (o *ORM) joinPlan(e *entry, a datastore.Adapter, pops []Populate, few bool) *joinPlan {
	if len(pops) == 0 {
		return nil
	}
	if _, ok := a.(datastore.JoinFinder); !ok {
		return nil
	}
	var j *joinPlan
	for i, p := range pops {
		attr := e.model.Attributes[p.Attr]
		if attr == nil || attr.Assoc == nil {
			return nil
		}
		te := o.joinable(e, attr, p)
		if te == nil || !few && !e.joinsPages(p.Attr) || j != nil && slices.Contains(j.attrs, p.Attr) {
			if j != nil {
				j.rest = append(j.rest, p)
			}
			continue
		}
		if j == nil {
			j = &joinPlan{page: !few, from: e}
			j.joins, j.attrs, j.targets = j.joinsBuf[:0], j.attrsBuf[:0], j.targetsBuf[:0]
			j.rest = append(j.restBuf[:0], pops[:i]...)
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
	// The keys of each association's rows, for its share of distinct
	// records: association i's from keys[i*len(recs)].
	var keys []any
	var countsBuf [maxInlineJoins]int
	counts := countsBuf[:]
	note := j.page && len(recs) >= minNotedPage
	if note {
		var buf [maxPairwise]any
		if n := len(recs) * len(j.attrs); n <= len(buf) {
			keys = buf[:n]
		} else {
			keys = make([]any, n)
		}
		if len(j.attrs) > len(counts) {
			counts = make([]int, len(j.attrs))
		}
	}
	for _, rec := range recs {
		for i, name := range j.attrs {
			if row, ok := rec[name].(datastore.Record); ok {
				if note {
					keys[i*len(recs)+counts[i]] = row[j.targets[i].table.PrimaryKey]
					counts[i]++
				}
				rec[name] = j.targets[i].fromRow(row)
			} else {
				rec[name] = nil
			}
		}
	}
	if note {
		for i, name := range j.attrs {
			j.from.noteShare(name, countDistinct(keys[i*len(recs):i*len(recs)+counts[i]]), len(recs))
		}
	}
}

// maxPairwise is the most keys countDistinct compares pairwise, without a map.
const maxPairwise = 64

// countDistinct returns how many different values keys holds. A page's keys
// (30 by default) are compared each with those before it: a map of them
// cost two allocations and 1.75 KB per page read (GET /pet?limit=30).
// Numbers, what keys mostly are, are compared unboxed. Values compare as
// map keys do (NaN differs from itself, -0 equals 0).
func countDistinct(keys []any) int {
	if len(keys) > maxPairwise {
		set := make(map[any]struct{}, len(keys))
		for _, k := range keys {
			set[k] = struct{}{}
		}
		return len(set)
	}
	var nums [maxPairwise]float64
	for i, k := range keys {
		f, ok := k.(float64)
		if !ok {
			n := 0
			for i, k := range keys {
				if !slices.Contains(keys[:i], k) {
					n++
				}
			}
			return n
		}
		nums[i] = f
	}
	n := 0
	for i, f := range nums[:len(keys)] {
		if !slices.Contains(nums[:i], f) {
			n++
		}
	}
	return n
}

// find runs the read of q on a, with j's joins when there are any.
func (j *joinPlan) find(ctx context.Context, a datastore.Adapter, q *datastore.Query) ([]datastore.Record, error) {
	if j == nil {
		return a.Find(ctx, q)
	}
	return a.(datastore.JoinFinder).FindJoined(ctx, q, j.joins)
}
