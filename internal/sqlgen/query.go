package sqlgen

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// Stmt is one compiled statement: SQL text, its parameters in order, and
// the columns its result rows hold (nil when it returns no rows).
type Stmt struct {
	SQL     string
	Args    []any
	Columns []*datastore.Column
	// Nests, set for a statement reading joined rows (SelectJoined), say
	// which columns make each joined row; see NestedRecord.
	Nests []Nest
	// MaxRows is the most rows a page (Select, SelectJoined) returns,
	// its LIMIT, or 0 when it has none or it is not a page. Readers size
	// their record lists by it (see DriverRecords). A read of children
	// leaves it 0: its limit is per parent, which most do not reach.
	MaxRows int64
}

// ErrNoValues is returned by Update when there is nothing to set.
var ErrNoValues = errors.New("sqlgen: update without values")

// rowNumber names the window column; the prefix keeps it apart from any
// model attribute.
const rowNumber = "__skiff_rn"

func newBuilder(d *Dialect, t *datastore.Table) (*builder, error) {
	if t == nil {
		return nil, errors.New("sqlgen: query without table")
	}
	p := d.texts.buffer()
	b := &builder{d: d, t: t, buf: *p, pooled: p}
	b.args = b.argsBuf[:0]
	return b, nil
}

// Select compiles q into a SELECT returning q.Select (or every column of
// q.Table) ordered by q.Sort then the primary key, with Skip and Limit
// applied over the whole result or, when q.PartitionBy is set, within each
// partition through ROW_NUMBER().
func Select(d *Dialect, q *datastore.Query) (Stmt, error) {
	if st, ok := d.reads.stmt(d, q, nil, nil); ok {
		return st, nil
	}
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	if q.Limit < 0 || q.Skip < 0 {
		return Stmt{}, fmt.Errorf("select %s: negative limit or skip", q.Table.Name)
	}
	cols, err := b.columns(q.Select)
	if err != nil {
		return Stmt{}, err
	}
	windowed := q.PartitionBy != "" && (q.Skip > 0 || q.Limit < criteria.Unlimited)
	b.str("SELECT ")
	b.tableResultList(q.Table, cols)
	b.str(" FROM ")
	if windowed {
		if _, err := b.column(q.PartitionBy); err != nil {
			return Stmt{}, err
		}
		b.str("(SELECT ")
		b.columnList(b.allColumns())
		b.str(", ROW_NUMBER() OVER (PARTITION BY ")
		b.ident(q.PartitionBy)
		b.str(" ")
		if err := b.orderBy(q.Sort); err != nil {
			return Stmt{}, err
		}
		b.str(") AS ")
		b.ident(rowNumber)
		b.str(" FROM ")
		b.ident(q.Table.Name)
		if err := b.whereClause(q.Where); err != nil {
			return Stmt{}, err
		}
		b.partitionPage(q.Skip, q.Limit)
		b.str(" ")
		if err := b.orderBy(q.Sort); err != nil {
			return Stmt{}, err
		}
		return b.stmt(cols), nil
	}
	b.ident(q.Table.Name)
	if err := b.whereClause(q.Where); err != nil {
		return Stmt{}, err
	}
	b.str(" ")
	if err := b.orderBy(q.Sort); err != nil {
		return Stmt{}, err
	}
	b.page(q.Skip, q.Limit)
	st := b.stmt(cols)
	st.MaxRows = pageRows(q.Limit)
	d.reads.put(d, q, nil, nil, st)
	return st, nil
}

// pageRows is Stmt.MaxRows for a page of limit rows.
func pageRows(limit int64) int64 {
	if limit >= criteria.Unlimited {
		return 0
	}
	return limit
}

// limit writes a LIMIT clause of n rows, as a number when the dialect
// wants it (Dialect.LiteralLimit), else as a parameter.
// partitionPage closes a subquery that numbers the rows of each partition
// and keeps, in every partition, the rows after skip up to limit of them.
func (b *builder) partitionPage(skip, limit int64) {
	b.str(") AS ")
	b.ident("__skiff_p")
	b.str(" WHERE ")
	b.ident(rowNumber)
	b.str(" > ")
	b.param(skip)
	if limit < criteria.Unlimited {
		b.str(" AND ")
		b.ident(rowNumber)
		b.str(" <= ")
		b.param(skip + limit)
	}
}

// page writes the LIMIT and OFFSET that keep the rows after skip, up to
// limit of them; a dialect that cannot write OFFSET alone gets its
// OffsetOnlyLimit.
func (b *builder) page(skip, limit int64) {
	switch {
	case limit < criteria.Unlimited:
		b.limit(limit)
	case skip > 0 && b.d.OffsetOnlyLimit != "":
		b.str(" LIMIT " + b.d.OffsetOnlyLimit)
	}
	if skip > 0 {
		b.str(" OFFSET ")
		b.param(skip)
	}
}

func (b *builder) limit(n int64) {
	b.str(" LIMIT ")
	if b.d.LiteralLimit {
		b.str(strconv.FormatInt(n, 10))
		return
	}
	b.param(n)
}

// Count compiles a COUNT(*) of the rows matching q.Where.
func Count(d *Dialect, q *datastore.Query) (Stmt, error) {
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	b.str("SELECT COUNT(*) FROM ")
	b.ident(q.Table.Name)
	if err := b.whereClause(q.Where); err != nil {
		return Stmt{}, err
	}
	return b.stmt(nil), nil
}

// Insert compiles the insertion of one record, returning the stored row
// when the dialect supports RETURNING. Columns absent from rec are left to
// their defaults (so an auto-increment key is generated).
func Insert(d *Dialect, t *datastore.Table, rec datastore.Record) (Stmt, error) {
	b, err := newBuilder(d, t)
	if err != nil {
		return Stmt{}, err
	}
	cols, vals, err := b.values(rec)
	if err != nil {
		return Stmt{}, err
	}
	b.str("INSERT INTO ")
	b.ident(t.Name)
	if len(cols) == 0 {
		b.str(" DEFAULT VALUES")
	} else {
		b.str(" (")
		b.columnList(cols)
		b.str(") VALUES ")
		b.row(vals)
	}
	return b.returning(true), nil
}

// InsertGuarded compiles the insertion of one record that inserts it only
// if each guard's row exists, locking those rows with lock (a clause such
// as PostgreSQL's FOR KEY SHARE) until the statement's transaction ends:
// an INSERT ... SELECT whose WHERE holds one EXISTS per guard. It returns
// the stored row, as Insert does, or none when a guard's row is missing;
// the rows of the guards with a Column are read by subqueries of its
// RETURNING clause and nested in it as SelectJoined nests a joined row
// (see the statement's Nests). The dialect must support RETURNING.
func InsertGuarded(d *Dialect, t *datastore.Table, rec datastore.Record, guards []datastore.Guard, lock string) (Stmt, error) {
	b, cols, vals, err := guardedInsert(d, t, rec)
	if err != nil {
		return Stmt{}, err
	}
	keys := make([]any, len(guards))
	for i, g := range guards {
		if _, keys[i], err = guardKey(t, g); err != nil {
			return Stmt{}, err
		}
	}
	shape, cacheable := guardedShape(t, cols, guards, lock, false)
	if cacheable {
		if e := d.guarded.get(shape, t, guards); e != nil {
			b.discard()
			return e.stmt(false, vals, keys, guards), nil
		}
	}
	b.insertSelect(t, cols, vals)
	for i, g := range guards {
		if i == 0 {
			b.str(" WHERE ")
		} else {
			b.str(" AND ")
		}
		b.str("EXISTS (SELECT 1 FROM ")
		b.ident(g.Table.Name)
		b.str(" WHERE ")
		b.ident(g.Table.PrimaryKey)
		b.str(" = ")
		b.param(keys[i])
		if lock != "" {
			b.str(" ")
			b.str(lock)
		}
		b.str(")")
	}
	// The guards' rows to return are read by the RETURNING clause, one
	// subquery per column, by key: in the statement that checked them,
	// which nothing can change in between.
	own := b.allColumns()
	out := own[:len(own):len(own)]
	var nests []Nest
	b.str(" RETURNING ")
	b.resultList(own)
	for i, g := range guards {
		if g.Column == "" {
			continue
		}
		pk := g.Table.Column(g.Table.PrimaryKey)
		var n Nest
		if out, n, err = guardNest(t, g, pk, out, nests); err != nil {
			return Stmt{}, err
		}
		nests = append(nests, n)
		alias := guardAlias + strconv.Itoa(i)
		for _, c := range out[n.From:n.To] {
			b.str(", (SELECT ")
			b.qual = alias
			b.resultList([]*datastore.Column{c})
			b.qual = ""
			b.str(" FROM ")
			b.ident(g.Table.Name)
			b.str(" AS ")
			b.ident(alias)
			b.str(" WHERE ")
			b.ident(alias)
			b.str(".")
			b.ident(g.Table.PrimaryKey)
			b.str(" = ")
			b.param(keys[i])
			b.str(")")
		}
	}
	st := b.stmt(out)
	st.Nests = nests
	if cacheable {
		d.guarded.put(shape, t, guards, st)
	}
	return st, nil
}

// guardNest returns the nest of guard g's row, whose primary key column is
// pk, appended to the result columns out of an insertion into t, after
// checking that t has g's column and that no earlier nest names it.
func guardNest(t *datastore.Table, g datastore.Guard, pk *datastore.Column, out []*datastore.Column, nests []Nest) ([]*datastore.Column, Nest, error) {
	if t.Column(g.Column) == nil {
		return nil, Nest{}, fmt.Errorf("insert into %s: guard on column %q, which it does not have", t.Name, g.Column)
	}
	for _, n := range nests {
		if n.Key == g.Column {
			return nil, Nest{}, fmt.Errorf("insert into %s: two guards on column %q", t.Name, g.Column)
		}
	}
	n := Nest{Key: g.Column, From: len(out)}
	for k := range g.Table.Columns {
		c := &g.Table.Columns[k]
		if c == pk {
			n.PK = len(out)
		}
		out = append(out, c)
	}
	n.To = len(out)
	return out, n, nil
}

// guardedInsert starts a guarded insertion of rec into t: the builder,
// and the columns and values rec sets.
func guardedInsert(d *Dialect, t *datastore.Table, rec datastore.Record) (*builder, []*datastore.Column, []any, error) {
	if !d.Returning {
		return nil, nil, nil, fmt.Errorf("insert into %s: guarded inserts need RETURNING", t.Name)
	}
	b, err := newBuilder(d, t)
	if err != nil {
		return nil, nil, nil, err
	}
	cols, vals, err := b.values(rec)
	if err != nil {
		return nil, nil, nil, err
	}
	return b, cols, vals, nil
}

// guardKey returns the primary key column of g's table and g's key
// encoded for it, for an insertion into t guarded by g.
func guardKey(t *datastore.Table, g datastore.Guard) (*datastore.Column, any, error) {
	pk := g.Table.Column(g.Table.PrimaryKey)
	if pk == nil {
		return nil, nil, fmt.Errorf("insert into %s: guard table %s has no primary key column", t.Name, g.Table.Name)
	}
	key, err := Encode(pk.Kind, g.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("insert into %s: guard %s: %w", t.Name, g.Table.Name, err)
	}
	return pk, key, nil
}

// insertSelect writes the head of a guarded insertion of vals into cols
// of t: INSERT INTO t (cols) SELECT vals, to which the guards' WHERE is
// added.
func (b *builder) insertSelect(t *datastore.Table, cols []*datastore.Column, vals []any) {
	b.str("INSERT INTO ")
	b.ident(t.Name)
	if len(cols) > 0 {
		b.str(" (")
		b.columnList(cols)
		b.str(")")
	}
	b.str(" SELECT ")
	b.params(vals)
}

// guardAlias names the common table expressions of InsertGuardedWith's
// guards, numbered, and insertAlias its insert's.
const (
	guardAlias  = "__skiff_g"
	insertAlias = "__skiff_ins"
)

// InsertGuardedWith is InsertGuarded for a dialect whose common table
// expressions may lock rows and insert (PostgreSQL): each guard's row is
// read, and locked, by a WITH query of its own, which the insert's EXISTS
// reads, so that the rows of the guards with a Column are returned as they
// were once locked, nested in the inserted row as SelectJoined nests a
// joined row (see the statement's Nests).
func InsertGuardedWith(d *Dialect, t *datastore.Table, rec datastore.Record, guards []datastore.Guard, lock string) (Stmt, error) {
	b, cols, vals, err := guardedInsert(d, t, rec)
	if err != nil {
		return Stmt{}, err
	}
	shape, cacheable := guardedShape(t, cols, guards, lock, true)
	if cacheable {
		if e := d.guarded.get(shape, t, guards); e != nil {
			// A shape is cached once compiled, so its guards name columns
			// of t, each once: only a key's value can fail here.
			keys := make([]any, len(guards))
			for i, g := range guards {
				if _, keys[i], err = guardKey(t, g); err != nil {
					b.discard()
					return Stmt{}, err
				}
			}
			b.discard()
			return e.stmt(true, vals, keys, guards), nil
		}
	}
	own := b.allColumns()
	out := own[:len(own):len(own)]
	var nests []Nest
	b.str("WITH ")
	for i, g := range guards {
		pk, key, err := guardKey(t, g)
		if err != nil {
			return Stmt{}, err
		}
		b.str(guardAlias)
		b.str(strconv.Itoa(i))
		b.str(" AS (SELECT ")
		if g.Column == "" {
			b.str("1")
		} else {
			var n Nest
			if out, n, err = guardNest(t, g, pk, out, nests); err != nil {
				return Stmt{}, err
			}
			nests = append(nests, n)
			b.qual = ""
			b.columnList(out[n.From:n.To])
		}
		b.str(" FROM ")
		b.ident(g.Table.Name)
		b.str(" WHERE ")
		b.ident(g.Table.PrimaryKey)
		b.str(" = ")
		b.param(key)
		if lock != "" {
			b.str(" ")
			b.str(lock)
		}
		b.str("), ")
	}
	b.str(insertAlias)
	b.str(" AS (")
	b.insertSelect(t, cols, vals)
	for i := range guards {
		if i == 0 {
			b.str(" WHERE ")
		} else {
			b.str(" AND ")
		}
		b.str("EXISTS (SELECT 1 FROM ")
		b.str(guardAlias)
		b.str(strconv.Itoa(i))
		b.str(")")
	}
	b.str(" RETURNING ")
	b.columnList(own)
	b.str(") SELECT ")
	b.qual = insertAlias
	b.resultList(own)
	for i, g := range guards {
		if g.Column == "" {
			continue
		}
		n := nests[0]
		for _, m := range nests {
			if m.Key == g.Column {
				n = m
			}
		}
		b.str(", ")
		b.qual = guardAlias + strconv.Itoa(i)
		b.resultList(out[n.From:n.To])
	}
	b.qual = ""
	b.str(" FROM ")
	b.str(insertAlias)
	for i, g := range guards {
		if g.Column != "" {
			b.str(" CROSS JOIN ")
			b.str(guardAlias)
			b.str(strconv.Itoa(i))
		}
	}
	st := b.stmt(out)
	st.Nests = nests
	if cacheable {
		d.guarded.put(shape, t, guards, st)
	}
	return st, nil
}

// InsertRows compiles the insertion of recs in one statement that returns
// nothing, for writes whose stored rows the caller does not need. Every
// record must set the same columns; absent ones are left to their defaults.
func InsertRows(d *Dialect, t *datastore.Table, recs []datastore.Record) (Stmt, error) {
	b, err := newBuilder(d, t)
	if err != nil {
		return Stmt{}, err
	}
	if len(recs) == 0 {
		return Stmt{}, fmt.Errorf("insert into %s: no rows", t.Name)
	}
	cols, _, err := b.values(recs[0])
	if err != nil {
		return Stmt{}, err
	}
	if len(cols) == 0 {
		return Stmt{}, fmt.Errorf("insert into %s: rows without values", t.Name)
	}
	b.str("INSERT INTO ")
	b.ident(t.Name)
	b.str(" (")
	b.columnList(cols)
	b.str(") VALUES ")
	for i, rec := range recs {
		rc, vals, err := b.values(rec)
		if err != nil {
			return Stmt{}, err
		}
		if !slices.Equal(rc, cols) {
			return Stmt{}, fmt.Errorf("insert into %s: row %d sets other columns than row 0", t.Name, i)
		}
		if i > 0 {
			b.str(", ")
		}
		b.row(vals)
	}
	return b.stmt(nil), nil
}

// row writes one parenthesised row of VALUES, each value a parameter.
func (b *builder) row(vals []any) {
	b.str("(")
	b.params(vals)
	b.str(")")
}

// params writes vals as parameters, separated by commas.
func (b *builder) params(vals []any) {
	for i, v := range vals {
		if i > 0 {
			b.str(", ")
		}
		b.param(v)
	}
}

// Update compiles an UPDATE of the rows matching q.Where, returning them
// when q.Fetch is set and the dialect supports RETURNING. It returns
// ErrNoValues when values is empty.
func Update(d *Dialect, q *datastore.Query, values datastore.Record) (Stmt, error) {
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	cols, vals, err := b.values(values)
	if err != nil {
		return Stmt{}, err
	}
	if len(cols) == 0 {
		return Stmt{}, ErrNoValues
	}
	b.str("UPDATE ")
	b.ident(q.Table.Name)
	b.str(" SET ")
	for i, c := range cols {
		if i > 0 {
			b.str(", ")
		}
		b.ident(c.Name)
		b.str(" = ")
		if c.Merge && vals[i] != nil {
			if err := b.mergeValue(c, values[c.Name]); err != nil {
				return Stmt{}, err
			}
			continue
		}
		b.param(vals[i])
	}
	if err := b.whereClause(q.Where); err != nil {
		return Stmt{}, err
	}
	return b.returning(q.Fetch), nil
}

// Delete compiles a DELETE of the rows matching q.Where, returning them
// when q.Fetch is set and the dialect supports RETURNING.
func Delete(d *Dialect, q *datastore.Query) (Stmt, error) {
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	b.str("DELETE FROM ")
	b.ident(q.Table.Name)
	if err := b.whereClause(q.Where); err != nil {
		return Stmt{}, err
	}
	return b.returning(q.Fetch), nil
}

func (b *builder) stmt(cols []*datastore.Column) Stmt {
	args := b.args
	if len(args) == 0 {
		args = nil // as before argsBuf
	}
	return Stmt{SQL: b.text(), Args: args, Columns: cols}
}

// text returns the SQL written, as the dialect's cached copy of that text
// when it has one, and gives the buffer back.
func (b *builder) text() string {
	s := b.d.texts.intern(b.buf)
	b.discard()
	return s
}

// discard gives the builder's buffer back, unused or once its text is
// taken.
func (b *builder) discard() {
	if b.pooled != nil {
		*b.pooled = b.buf
		b.d.texts.release(b.pooled)
		b.buf, b.pooled = nil, nil
	}
}

func (b *builder) returning(want bool) Stmt {
	if !want || !b.d.Returning {
		return b.stmt(nil)
	}
	cols := b.allColumns()
	b.str(" RETURNING ")
	b.resultList(cols)
	return b.stmt(cols)
}

func (b *builder) whereClause(e criteria.Expr) error {
	if e == nil {
		return nil
	}
	b.str(" WHERE ")
	return b.where(e)
}

func (b *builder) allColumns() []*datastore.Column {
	cols := make([]*datastore.Column, len(b.t.Columns))
	for i := range b.t.Columns {
		cols[i] = &b.t.Columns[i]
	}
	return cols
}

func (b *builder) columns(names []string) ([]*datastore.Column, error) {
	if names == nil {
		if cols := b.d.lists.columns(b.t); cols != nil {
			return cols, nil
		}
		return b.allColumns(), nil
	}
	cols := make([]*datastore.Column, 0, len(names))
	for _, n := range names {
		c, err := b.column(n)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, nil
}

func (b *builder) columnList(cols []*datastore.Column) {
	for i, c := range cols {
		if i > 0 {
			b.str(", ")
		}
		b.colRef(c.Name)
	}
}

// resultList writes cols as the columns of the rows a statement returns:
// as columnList, but with the dialect's RealIntegers.
func (b *builder) resultList(cols []*datastore.Column) {
	if !b.d.RealIntegers {
		b.columnList(cols)
		return
	}
	for i, c := range cols {
		if i > 0 {
			b.str(", ")
		}
		if c.Kind == datastore.Integer && (c.Type == "" || c.Type[0] == '_') {
			b.str("CAST(")
			b.colRef(c.Name)
			b.str(" AS REAL)")
			continue
		}
		b.colRef(c.Name)
	}
}

// values lists rec's columns in table order with their encoded values.
func (b *builder) values(rec datastore.Record) ([]*datastore.Column, []any, error) {
	for name := range rec {
		if b.t.Column(name) == nil {
			return nil, nil, fmt.Errorf("table %s has no column %q", b.t.Name, name)
		}
	}
	if len(rec) == 0 {
		return nil, nil, nil
	}
	cols := make([]*datastore.Column, 0, len(rec))
	vals := make([]any, 0, len(rec))
	for i := range b.t.Columns {
		c := &b.t.Columns[i]
		v, ok := rec[c.Name]
		if !ok {
			continue
		}
		ev, err := Encode(c.Kind, v)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		cols = append(cols, c)
		vals = append(vals, ev)
	}
	return cols, vals, nil
}

// orderBy writes ORDER BY sorts, then the primary key ascending so that
// every result order is deterministic. NULL sorts lowest on every engine.
func (b *builder) orderBy(sorts []criteria.Sort) error {
	b.str("ORDER BY ")
	return b.sortTerms(sorts, false)
}

// sortTerms writes the terms of orderBy; after is set when terms precede
// them.
func (b *builder) sortTerms(sorts []criteria.Sort, after bool) error {
	return b.sortTermsBy(sorts, after, func() { b.colRef(b.t.PrimaryKey) })
}

// sortTermsBy is sortTerms writing the primary key tie-break with pk.
func (b *builder) sortTermsBy(sorts []criteria.Sort, after bool, pkTerm func()) error {
	pk := b.t.PrimaryKey
	seenPK := false
	for i, s := range sorts {
		var c *datastore.Column
		var err error
		if s.Key != "" {
			c, err = b.jsonColumn(s.Attr, s.Key)
		} else {
			c, err = b.column(s.Attr)
		}
		if err != nil {
			return err
		}
		if i > 0 || after {
			b.str(", ")
		}
		switch {
		case s.Key != "" && b.d.JSON == JSONMySQL:
			b.mysqlKeySort(c, s.Key, s.Desc)
		case s.Key != "":
			b.keyValue(c, s.Key)
		default:
			b.colRef(s.Attr)
		}
		isPK := s.Attr == pk && s.Key == ""
		seenPK = seenPK || isPK
		switch {
		case s.Desc && b.d.NullsClause && !isPK:
			b.str(" DESC NULLS LAST")
		case s.Desc:
			b.str(" DESC")
		case b.d.NullsClause && !isPK:
			b.str(" ASC NULLS FIRST")
		default:
			b.str(" ASC")
		}
	}
	if seenPK || pk == "" {
		if len(sorts) == 0 && !after {
			// ORDER BY needs a term; with no key, keep engine order.
			b.str("(SELECT NULL)")
		}
		return nil
	}
	if len(sorts) > 0 || after {
		b.str(", ")
	}
	pkTerm()
	b.str(" ASC")
	return nil
}

// Aliases of the two tables SelectThrough joins; the prefix keeps them
// apart from table names.
const (
	childAlias = "__skiff_c"
	linkAlias  = "__skiff_j"
)

// SelectThrough compiles q joined through the join table j: the rows of
// q.Table linked to j.Parents, one per link, with the link's parent key
// under datastore.ParentKey (see datastore.ThroughFinder). Skip and Limit
// apply per parent, through ROW_NUMBER(), when q.PartitionBy is
// datastore.ParentKey.
func SelectThrough(d *Dialect, q *datastore.Query, j *datastore.Through) (Stmt, error) {
	if j != nil {
		if st, ok := d.reads.stmt(d, q, nil, j); ok {
			return st, nil
		}
	}
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	if j == nil || j.Table == nil {
		return Stmt{}, fmt.Errorf("select %s through: no join table", q.Table.Name)
	}
	if q.Limit < 0 || q.Skip < 0 {
		return Stmt{}, fmt.Errorf("select %s: negative limit or skip", q.Table.Name)
	}
	if q.Table.PrimaryKey == "" {
		return Stmt{}, fmt.Errorf("select %s through %s: the table has no primary key", q.Table.Name, j.Table.Name)
	}
	if q.PartitionBy != "" && q.PartitionBy != datastore.ParentKey {
		return Stmt{}, fmt.Errorf("select %s through %s: partition by %q, want the parent key", q.Table.Name, j.Table.Name, q.PartitionBy)
	}
	parent, child := j.Table.Column(j.ParentColumn), j.Table.Column(j.ChildColumn)
	if parent == nil || child == nil {
		return Stmt{}, fmt.Errorf("join table %s has no column %q or %q", j.Table.Name, j.ParentColumn, j.ChildColumn)
	}
	cols, err := b.columns(q.Select)
	if err != nil {
		return Stmt{}, err
	}
	out := append(cols[:len(cols):len(cols)], parentKeyColumn(parent.Kind))
	parentRef := func() {
		b.ident(linkAlias)
		b.str(".")
		b.ident(j.ParentColumn)
	}
	childRef := func() {
		b.ident(linkAlias)
		b.str(".")
		b.ident(j.ChildColumn)
	}
	// selectFrom writes the joined SELECT of cols, parent key included,
	// with extra (if set) as one more output column; without extra its
	// rows are the result's, else a subquery's, whose columns keep their
	// names.
	selectFrom := func(cols []*datastore.Column, extra func() error) error {
		b.qual = childAlias
		defer func() { b.qual = "" }()
		b.str("SELECT ")
		if extra == nil {
			b.tableResultList(q.Table, cols)
		} else {
			b.columnList(cols)
		}
		b.str(", ")
		parentRef()
		b.str(" AS ")
		b.ident(datastore.ParentKey)
		if extra != nil {
			if err := extra(); err != nil {
				return err
			}
		}
		b.str(" FROM ")
		b.ident(q.Table.Name)
		b.str(" AS ")
		b.ident(childAlias)
		b.str(" JOIN ")
		b.ident(j.Table.Name)
		b.str(" AS ")
		b.ident(linkAlias)
		b.str(" ON ")
		b.ident(linkAlias)
		b.str(".")
		b.ident(j.ChildColumn)
		b.str(" = ")
		b.colRef(q.Table.PrimaryKey)
		b.str(" WHERE ")
		b.t, b.qual, b.arrays = j.Table, linkAlias, b.d.ArrayIn
		err := b.in(parent, false, j.Parents)
		b.t, b.qual, b.arrays = q.Table, childAlias, false
		if err != nil {
			return err
		}
		if q.Where != nil {
			b.str(" AND (")
			if err := b.where(q.Where); err != nil {
				return err
			}
			b.str(")")
		}
		return nil
	}
	if q.PartitionBy == "" || q.Skip == 0 && q.Limit >= criteria.Unlimited {
		if err := selectFrom(cols, nil); err != nil {
			return Stmt{}, err
		}
		b.qual = childAlias
		b.str(" ORDER BY ")
		parentRef()
		b.str(" ASC")
		// The link's child column equals the primary key and, unlike it,
		// lets the engine read the links in order from the join table's
		// (parent, child) index without sorting.
		if err := b.sortTermsBy(q.Sort, true, childRef); err != nil {
			return Stmt{}, err
		}
		b.qual = ""
		b.page(q.Skip, q.Limit)
		st := b.stmt(out)
		d.reads.put(d, q, nil, j, st)
		return st, nil
	}
	b.str("SELECT ")
	b.resultList(out)
	b.str(" FROM (")
	err = selectFrom(b.allColumns(), func() error {
		b.str(", ROW_NUMBER() OVER (PARTITION BY ")
		parentRef()
		b.str(" ")
		if err := b.orderBy(q.Sort); err != nil {
			return err
		}
		b.str(") AS ")
		b.ident(rowNumber)
		return nil
	})
	if err != nil {
		return Stmt{}, err
	}
	b.partitionPage(q.Skip, q.Limit)
	b.str(" ORDER BY ")
	b.ident(datastore.ParentKey)
	b.str(" ASC")
	if err := b.sortTerms(q.Sort, true); err != nil {
		return Stmt{}, err
	}
	return b.stmt(out), nil
}

// parentKeyColumns are the columns SelectThrough adds for the parent key,
// one per kind, shared by its statements (whose Columns nothing writes).
var parentKeyColumns = [...]datastore.Column{
	{Name: datastore.ParentKey, Kind: datastore.String},
	{Name: datastore.ParentKey, Kind: datastore.Number},
	{Name: datastore.ParentKey, Kind: datastore.Integer},
	{Name: datastore.ParentKey, Kind: datastore.Boolean},
	{Name: datastore.ParentKey, Kind: datastore.JSON},
}

// parentKeyColumn returns the parent key column of SelectThrough's rows
// for a join table's parent column of kind k.
func parentKeyColumn(k datastore.Kind) *datastore.Column {
	for i := range parentKeyColumns {
		if parentKeyColumns[i].Kind == k {
			return &parentKeyColumns[i]
		}
	}
	return &datastore.Column{Name: datastore.ParentKey, Kind: k}
}
