package sqlgen

import (
	"fmt"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// unionKey names the derived table of keys, and its one column, where the
// dialect joins it (Dialect.UnionJoin).
const unionKey = "__skiff_k"

// SelectUnion compiles a SELECT of q.Select (or every column) of the rows
// of q.Table that q.Where matches, or that or matches, or that the join
// table j links to one of j.Parents, each row once, ordered by q.Sort then
// the primary key; or and j may be nil. A change of a collection locks with
// it, in one statement, the members it is given and those the collection
// has when the statement runs. Each condition finds its rows on its own, in
// one IN over a UNION ALL, so that each can use its own index: an OR of
// the conditions needs a bitmap scan for that, and without one it scans the
// whole table. Skip, Limit and PartitionBy must be unset.
func SelectUnion(d *Dialect, q *datastore.Query, or criteria.Expr, j *datastore.Through) (Stmt, error) {
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	if q.Skip != 0 || q.Limit != criteria.Unlimited || q.PartitionBy != "" {
		return Stmt{}, fmt.Errorf("select %s: skip, limit and partition are not supported in a union", q.Table.Name)
	}
	pk, err := b.column(q.Table.PrimaryKey)
	if err != nil {
		return Stmt{}, fmt.Errorf("select %s: %w", q.Table.Name, err)
	}
	var parent, child *datastore.Column
	if j != nil {
		if j.Table == nil {
			return Stmt{}, fmt.Errorf("select %s linked: no join table", q.Table.Name)
		}
		parent, child = j.Table.Column(j.ParentColumn), j.Table.Column(j.ChildColumn)
		if parent == nil || child == nil {
			return Stmt{}, fmt.Errorf("join table %s has no column %q or %q", j.Table.Name, j.ParentColumn, j.ChildColumn)
		}
	}
	cols, err := b.columns(q.Select)
	if err != nil {
		return Stmt{}, err
	}
	b.str("SELECT ")
	b.tableResultList(q.Table, cols)
	b.str(" FROM ")
	b.ident(q.Table.Name)
	union, all, as := "", " UNION ALL ", ""
	switch {
	case b.d.UnionJoin:
		// The keys are a derived table, joined by key: each row once
		// (UNION, not UNION ALL), and under their own column name so
		// that the table's columns need no qualifier.
		b.str(" JOIN (")
		all, as = " UNION ", " AS "+b.d.Ident(unionKey)
	case b.d.ArrayIn:
		// Where lists bind as arrays (PostgreSQL), the keys are gathered
		// into one array first (an init plan, run once) rather than
		// joined: a lock (FOR UPDATE) of a row that a concurrent
		// transaction changed and committed rechecks the condition on the
		// row's new version, and over a join with a subquery reading the
		// same table that recheck can drop rows that still match
		// (PostgreSQL skipped a moved child, and a valid change of a
		// collection was refused as naming a missing one). Against an
		// array the recheck is a comparison of the row's own key.
		b.str(" WHERE ")
		b.ident(pk.Name)
		b.str(" = ANY(ARRAY(")
	default:
		b.str(" WHERE ")
		b.ident(pk.Name)
		b.str(" IN (")
	}
	for _, e := range []criteria.Expr{q.Where, or} {
		if e == nil {
			continue
		}
		b.str(union + "SELECT ")
		b.ident(pk.Name)
		b.str(as)
		as = ""
		b.str(" FROM ")
		b.ident(q.Table.Name)
		b.str(" WHERE ")
		// A list of keys binds as one array where the dialect can: one
		// prepared statement then serves every number of keys, planned
		// once, where a parameter per key makes one per number, each
		// planned again at every lock.
		b.arrays = b.d.ArrayIn
		err := b.where(e)
		b.arrays = false
		if err != nil {
			return Stmt{}, err
		}
		union = all
	}
	if j != nil {
		b.str(union + "SELECT ")
		b.ident(child.Name)
		b.str(as)
		b.str(" FROM ")
		b.ident(j.Table.Name)
		b.str(" WHERE ")
		b.t, b.arrays = j.Table, b.d.ArrayIn
		err = b.in(parent, false, j.Parents)
		b.t, b.arrays = q.Table, false
		if err != nil {
			return Stmt{}, err
		}
		union = all
	}
	if union == "" {
		return Stmt{}, fmt.Errorf("select %s: a union of no condition", q.Table.Name)
	}
	switch {
	case b.d.UnionJoin:
		b.str(") AS " + b.d.Ident(unionKey) + " ON ")
		b.ident(pk.Name)
		b.str(" = " + b.d.Ident(unionKey) + "." + b.d.Ident(unionKey) + " ")
	case b.d.ArrayIn:
		b.str(")) ")
	default:
		b.str(") ")
	}
	if err := b.orderBy(q.Sort); err != nil {
		return Stmt{}, err
	}
	return b.stmt(cols), nil
}
