package sqlgen

import (
	"errors"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/datastore"
)

// Columns of the rows ReplaceCollection's statement returns: whether the
// change was valid (every row), then for each child it locked (op 0), with
// the columns r.ChildColumns name, unlinked (op 1) or linked (op 2) its
// key, and for an unlinked one the key of its link (see ReplaceCollection).
// The prefix keeps them apart from any model attribute.
const (
	ReplaceOK    = "__skiff_ok"
	ReplaceOp    = "__skiff_op"
	ReplaceChild = "__skiff_child"
	ReplaceOrd   = "__skiff_ord"
)

// Values of the ReplaceOp column.
const (
	ReplaceLocked  = 0
	ReplaceRemoved = 1
	ReplaceAdded   = 2
)

// ReplaceCollectionArgs returns the arguments of ReplaceCollection's
// statement for r, or why it cannot be compiled. They alone differ between
// changes of one collection that lock the same columns, so a caller that
// keeps the statement's text may compile only them.
func ReplaceCollectionArgs(d *Dialect, r *datastore.Replacement) ([]any, error) {
	if !d.Numbered || !d.Returning {
		return nil, fmt.Errorf("replace collection on %s: %w", d.Name, errors.ErrUnsupported)
	}
	if r.Parent == nil || r.Child == nil {
		return nil, errors.New("replace collection: no parent or child table")
	}
	pk, ck := r.Parent.Column(r.Parent.PrimaryKey), r.Child.Column(r.Child.PrimaryKey)
	if pk == nil || ck == nil {
		return nil, fmt.Errorf("replace collection %s.%s: no primary key column", r.Parent.Name, r.Child.Name)
	}
	key, err := Encode(pk.Kind, r.Key)
	if err != nil {
		return nil, err
	}
	want := make([]any, len(r.Want))
	for i, v := range r.Want {
		if want[i], err = Encode(ck.Kind, v); err != nil {
			return nil, err
		}
	}
	arr := typedArray(ck.Kind, want)
	if pk.Type != "" || ck.Type != "" || d.Types[pk.Kind] == "" || d.Types[ck.Kind] == "" || arr == nil || key == nil {
		return nil, fmt.Errorf("replace collection %s.%s: keys not bound as an array: %w", r.Parent.Name, r.Child.Name, errors.ErrUnsupported)
	}
	return []any{key, arr, int64(len(want))}, nil
}

// ReplaceCollection compiles the one statement that makes r.Want exactly
// the members of the collection r describes (see datastore.Replacement;
// the parent's lock is the adapter's): it locks, without waiting, the wanted
// children and the current members, then makes the change with
// data-modifying WITH queries guarded by one validity test, so that an
// invalid change writes nothing: the parent exists, every wanted child
// exists and, for a required one-to-many key, no member would leave. All
// its parts see one snapshot, taken after the locks the statements before
// it took (the parent's, which every change of the collection takes
// first, so no member can join or leave through such a change between
// that snapshot and the children's locks). It returns one row per child
// locked, in key order, then one per child unlinked, with the key of its
// join row (one-to-many: the child's key), then one per child linked (join
// rows are inserted in the order of r.Want); or one row with the test alone
// when there are none. Nothing sorts the whole, which costs the server a
// sort node for rows whose order is already known: each part comes in the
// order it is made (a statement that locks rows or writes never runs in
// parallel, so its UNION ALL runs its parts one after the other), and the
// caller orders the unlinked children by their join rows' keys. An
// unlinked child that is not locked no longer exists: its link was left
// by a destroy.
// The keys are bound once, as an array; dialects without numbered
// placeholders, RETURNING and row locks, and key columns of an explicit
// type, are refused with errors.ErrUnsupported.
func ReplaceCollection(d *Dialect, r *datastore.Replacement) (Stmt, error) {
	args, err := ReplaceCollectionArgs(d, r)
	if err != nil {
		return Stmt{}, err
	}
	pk, ck := r.Parent.Column(r.Parent.PrimaryKey), r.Child.Column(r.Child.PrimaryKey)
	keyType, wantType := d.Types[pk.Kind], d.Types[ck.Kind]
	// The statement is long: one allocation for it rather than a dozen.
	b := &builder{d: d, t: r.Child, args: args, buf: make([]byte, 0, 2048)}
	k, w := "$1::"+keyType, "$2::"+wantType+"[]"

	// The membership: the table holding it, its column of parent keys and
	// of child keys, and the column ordering the members.
	var links, parentCol, childCol string
	orderCol := ck
	if j := r.Through; j != nil {
		if j.Table == nil || j.Table.Column(j.ParentColumn) == nil || j.Table.Column(j.ChildColumn) == nil || j.Table.Column(j.Table.PrimaryKey) == nil {
			return Stmt{}, fmt.Errorf("replace collection %s.%s: bad join table", r.Parent.Name, r.Child.Name)
		}
		links, parentCol, childCol, orderCol = j.Table.Name, j.ParentColumn, j.ChildColumn, j.Table.Column(j.Table.PrimaryKey)
	} else {
		if r.Child.Column(r.Via) == nil {
			return Stmt{}, fmt.Errorf("table %s has no column %q", r.Child.Name, r.Via)
		}
		links, parentCol, childCol = r.Child.Name, r.Via, ck.Name
	}
	// members writes the condition on the rows of links that link the
	// parent to a child not wanted.
	members := func() {
		b.ident(parentCol)
		b.str(" = " + k + " AND ")
		b.ident(childCol)
		b.str(" <> ALL(" + w + ")")
	}
	guard := " AND (SELECT " + d.Ident("v") + " FROM " + d.Ident("ok") + ")"

	// The children locked: those wanted and the members, each found
	// through its own index (see SelectUnion).
	locked := r.ChildColumns
	if locked == nil {
		locked = []string{ck.Name}
		if r.Through == nil {
			locked = append(locked, r.Via)
		}
	}
	if !slices.Contains(locked, ck.Name) {
		locked = append([]string{ck.Name}, locked...)
	}
	lockedCols := make([]*datastore.Column, len(locked))
	for i, name := range locked {
		if lockedCols[i] = r.Child.Column(name); lockedCols[i] == nil {
			return Stmt{}, fmt.Errorf("table %s has no column %q", r.Child.Name, name)
		}
	}
	lk := d.Ident("lk")
	b.str("WITH " + lk + " AS MATERIALIZED (SELECT ")
	b.columnList(lockedCols)
	b.str(" FROM ")
	b.ident(r.Child.Name)
	b.str(" WHERE ")
	b.ident(ck.Name)
	// The wanted keys need no index to be listed; the members are found
	// through the links' index. (On a small table without statistics the
	// planner may still merge them with a scan of the key's whole index;
	// on a large one it looks each key up.)
	// Gathered into one array, not joined: see SelectUnion.
	b.str(" = ANY(ARRAY(SELECT unnest(" + w + ") UNION ALL SELECT ")
	b.ident(childCol)
	b.str(" FROM ")
	b.ident(links)
	b.str(" WHERE ")
	b.ident(parentCol)
	b.str(" = " + k + ")) ORDER BY ")
	b.ident(ck.Name)
	b.str(" FOR UPDATE NOWAIT), ")
	b.ident("ok")
	b.str(" AS (SELECT EXISTS (SELECT 1 FROM ")
	b.ident(r.Parent.Name)
	b.str(" WHERE ")
	b.ident(pk.Name)
	b.str(" = " + k + ") AND (SELECT count(*) FROM " + lk + " WHERE ")
	b.ident(ck.Name)
	b.str(" = ANY(" + w + ")) = $3::BIGINT")
	if r.Through == nil && r.Required {
		b.str(" AND NOT EXISTS (SELECT 1 FROM ")
		b.ident(links)
		b.str(" WHERE ")
		members()
		b.str(")")
	}
	b.str(" AS ")
	b.ident("v")
	b.str("), ")
	b.ident("del")
	if r.Through != nil {
		b.str(" AS (DELETE FROM ")
		b.ident(links)
	} else {
		b.str(" AS (UPDATE ")
		b.ident(links)
		b.str(" SET ")
		b.ident(parentCol)
		b.str(" = NULL")
	}
	b.str(" WHERE ")
	members()
	b.str(guard + " RETURNING ")
	b.ident(orderCol.Name)
	b.str(" AS ")
	b.ident("ord")
	b.str(", ")
	b.ident(childCol)
	b.str(" AS ")
	b.ident("child")
	b.str("), ")
	b.ident("ins")
	if r.Through != nil {
		// The links are inserted in the order of Want, which the join
		// rows' keys then keep.
		b.str(" AS (INSERT INTO ")
		b.ident(links)
		b.str(" (")
		b.ident(parentCol)
		b.str(", ")
		b.ident(childCol)
		b.str(") SELECT " + k + ", " + d.Ident("w") + "." + d.Ident("c") + " FROM unnest(" + w + ") WITH ORDINALITY AS " +
			d.Ident("w") + " (" + d.Ident("c") + ", " + d.Ident("n") + ") WHERE NOT EXISTS (SELECT 1 FROM ")
		b.ident(links)
		b.str(" WHERE ")
		b.ident(parentCol)
		b.str(" = " + k + " AND ")
		b.ident(childCol)
		b.str(" = " + d.Ident("w") + "." + d.Ident("c") + ")" + guard + " ORDER BY " + d.Ident("w") + "." + d.Ident("n"))
	} else {
		b.str(" AS (UPDATE ")
		b.ident(links)
		b.str(" SET ")
		b.ident(parentCol)
		b.str(" = " + k + " WHERE ")
		b.ident(childCol)
		b.str(" = ANY(" + w + ") AND ")
		b.ident(parentCol)
		b.str(" IS DISTINCT FROM " + k + guard)
	}
	b.str(" RETURNING ")
	b.ident(childCol)
	b.str(" AS ")
	b.ident("child")
	b.str(") SELECT " + d.Ident("ok") + "." + d.Ident("v") + ", ")
	x := d.Ident("x") + "."
	b.str(x + d.Ident("op") + ", " + x + d.Ident("child") + ", " + x + d.Ident("ord"))
	// The locked children's columns go by position, apart from x's own.
	nulls := ""
	for i := range lockedCols {
		b.str(", " + x + d.Ident(fmt.Sprint("c", i)))
		nulls += ", NULL"
	}
	b.str(" FROM ")
	b.ident("ok")
	b.str(" LEFT JOIN (SELECT " + fmt.Sprint(ReplaceLocked) + " AS " + d.Ident("op") + ", ")
	b.ident(ck.Name)
	b.str(" AS " + d.Ident("child") + ", NULL AS " + d.Ident("ord"))
	for i, c := range lockedCols {
		b.str(", ")
		b.ident(c.Name)
		b.str(" AS " + d.Ident(fmt.Sprint("c", i)))
	}
	b.str(" FROM " + lk + " UNION ALL SELECT " + fmt.Sprint(ReplaceRemoved) + ", " + d.Ident("del") + "." + d.Ident("child") + ", " +
		d.Ident("del") + "." + d.Ident("ord") + nulls + " FROM " + d.Ident("del") +
		" UNION ALL SELECT " + fmt.Sprint(ReplaceAdded) + ", " + d.Ident("ins") + "." + d.Ident("child") + ", NULL" + nulls +
		" FROM " + d.Ident("ins") + ") AS " + d.Ident("x") + " ON TRUE")
	cols := []*datastore.Column{
		{Name: ReplaceOK, Kind: datastore.Boolean},
		{Name: ReplaceOp, Kind: datastore.Integer},
		{Name: ReplaceChild, Kind: ck.Kind},
		{Name: ReplaceOrd, Kind: orderCol.Kind},
	}
	return Stmt{SQL: b.text(), Args: b.args, Columns: append(cols, lockedCols...)}, nil
}
