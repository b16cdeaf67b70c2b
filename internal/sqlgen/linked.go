package sqlgen

import (
	"fmt"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// SelectLinked compiles a SELECT of q.Select (or every column) of the rows
// of q.Table that q.Where matches or that the join table j links to one of
// j.Parents, each once, ordered by q.Sort then the primary key. A change of
// a many-to-many collection locks with it, in one statement, the members
// it is given and those the collection has when the statement runs.
// Skip, Limit and PartitionBy must be unset.
func SelectLinked(d *Dialect, q *datastore.Query, j *datastore.Through) (Stmt, error) {
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	if j == nil || j.Table == nil {
		return Stmt{}, fmt.Errorf("select %s linked: no join table", q.Table.Name)
	}
	if q.Skip != 0 || q.Limit != criteria.Unlimited || q.PartitionBy != "" {
		return Stmt{}, fmt.Errorf("select %s linked through %s: skip, limit and partition are not supported", q.Table.Name, j.Table.Name)
	}
	pk, err := b.column(q.Table.PrimaryKey)
	if err != nil {
		return Stmt{}, fmt.Errorf("select %s linked through %s: %w", q.Table.Name, j.Table.Name, err)
	}
	parent, child := j.Table.Column(j.ParentColumn), j.Table.Column(j.ChildColumn)
	if parent == nil || child == nil {
		return Stmt{}, fmt.Errorf("join table %s has no column %q or %q", j.Table.Name, j.ParentColumn, j.ChildColumn)
	}
	cols, err := b.columns(q.Select)
	if err != nil {
		return Stmt{}, err
	}
	b.str("SELECT ")
	b.columnList(cols)
	b.str(" FROM ")
	b.ident(q.Table.Name)
	// One IN over a UNION ALL, not an OR of two conditions: the planner
	// turns it into key lookups, where the OR scanned the whole table.
	b.str(" WHERE ")
	b.ident(pk.Name)
	b.str(" IN (")
	if q.Where != nil {
		b.str("SELECT ")
		b.ident(pk.Name)
		b.str(" FROM ")
		b.ident(q.Table.Name)
		b.str(" WHERE ")
		if err := b.where(q.Where); err != nil {
			return Stmt{}, err
		}
		b.str(" UNION ALL ")
	}
	b.str("SELECT ")
	b.ident(child.Name)
	b.str(" FROM ")
	b.ident(j.Table.Name)
	b.str(" WHERE ")
	b.t, b.arrays = j.Table, b.d.ArrayIn
	err = b.in(parent, false, j.Parents)
	b.t, b.arrays = q.Table, false
	if err != nil {
		return Stmt{}, err
	}
	b.str(") ")
	if err := b.orderBy(q.Sort); err != nil {
		return Stmt{}, err
	}
	return b.stmt(cols), nil
}
