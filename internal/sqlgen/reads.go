package sqlgen

import (
	"slices"
	"sync"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// maxReads bounds a readCache. A shape is a table, the column of its
// equality, its sort, joins and page; few per model, but a client chooses
// the sort and, where the limit is written as a number
// (Dialect.LiteralLimit), the limit, so the number is bounded here. Past
// the bound a read is compiled every time, as before the cache.
const maxReads = 1024

// maxTableReads bounds the shapes a readCache keeps of one table, which a
// lookup compares in turn.
const maxTableReads = 32

// Most sort terms and joins a cached read has; more are compiled every
// time.
const (
	maxReadSorts = 2
	maxReadJoins = 4
)

// readCache keeps the compiled text, result columns and nests of the
// commonest reads (Select, SelectJoined, and SelectThrough for one parent)
// per shape: those whose where is nothing or one equality of a column with
// a value, reading every column of their table, sorted by plain columns,
// without a partition. A read by key (GET /pet/:id) is one, and so is the
// read of its collection through a join table: writing the text, every
// column quoted and cast and each joined table's too, was ~1.1 µs of such a
// request on SQLite, and the collection's as much again.
// Only the arguments depend on the values; they are laid out again per
// statement (readCache.stmt). An entry is used only while the tables it
// was compiled from are unchanged, as guardedCache's. A nil *readCache
// keeps nothing.
type readCache struct {
	mu sync.RWMutex
	// m holds each table's shapes, found by comparing keys in turn:
	// hashing a whole key, its strings, took longer than the rest of a
	// lookup, and a table is read in few shapes.
	m map[*datastore.Table][]*readEntry
	n int // entries in m
}

// readKey is the shape of a read: everything its text, columns and nests
// are made from, but the tables' contents, which the entry checks
// (readEntry.current), and the values its parameters take.
type readKey struct {
	t *datastore.Table
	// eq is the column the where clause compares for equality; where is
	// unset when there is no where clause.
	eq    string
	where bool
	// limit is the LIMIT where the text spells it (Dialect.LiteralLimit,
	// or criteria.Unlimited for none), else paramLimit.
	limit  int64
	skip   bool
	nsorts int
	sorts  [maxReadSorts]criteria.Sort
	njoins int
	joins  [maxReadJoins]joinShape
	// through is the join table of a SelectThrough (nil: none), whose
	// parentCol and childCol link the parent to the rows.
	through             *datastore.Table
	parentCol, childCol string
}

// paramLimit is readKey.limit for a LIMIT written as a parameter.
const paramLimit = -1

type joinShape struct {
	column string
	t      *datastore.Table
}

// readEntry is a compiled shape.
type readEntry struct {
	key readKey
	// tables are the query's table, then each join's, as they were when
	// the text was written.
	tables []tableShape
	sql    string
	cols   []*datastore.Column
	nests  []Nest
	// eq is the column of the where equality (nil: no where clause), in
	// the query table's Columns, which tables[0] keeps the same.
	eq *datastore.Column
	// parent is a SelectThrough's parent column, in the join table's
	// Columns, which tables[1] keeps the same; its one parent key is the
	// first argument.
	parent *datastore.Column
	// limitArg and skipArg say whether the limit and the skip are
	// parameters, after the equality's value.
	limitArg, skipArg bool
}

func newReadCache() *readCache {
	return &readCache{m: make(map[*datastore.Table][]*readEntry)}
}

// readShape returns the shape of the read q joining joins, or through j
// (joins nil), and whether it may be cached.
func readShape(d *Dialect, q *datastore.Query, joins []datastore.Join, j *datastore.Through) (readKey, bool) {
	k := readKey{t: q.Table}
	t := q.Table
	if t == nil || len(t.Columns) == 0 || q.Select != nil || q.PartitionBy != "" || q.Limit < 0 || q.Skip < 0 ||
		len(q.Sort) > maxReadSorts || len(joins) > maxReadJoins {
		return k, false
	}
	switch w := q.Where.(type) {
	case nil:
	case *criteria.Cmp:
		if w.Op != criteria.Eq || w.Key != "" || w.Value == nil {
			return k, false
		}
		k.eq, k.where = w.Attr, true
	default:
		return k, false
	}
	switch {
	case q.Limit >= criteria.Unlimited:
		k.limit = criteria.Unlimited
	case d.LiteralLimit:
		k.limit = q.Limit
	default:
		k.limit = paramLimit
	}
	k.skip = q.Skip > 0
	k.nsorts = len(q.Sort)
	for i, s := range q.Sort {
		if s.Key != "" {
			return k, false
		}
		k.sorts[i] = s
	}
	k.njoins = len(joins)
	for i, j := range joins {
		if j.Table == nil || len(j.Table.Columns) == 0 {
			return k, false
		}
		k.joins[i] = joinShape{column: j.Column, t: j.Table}
	}
	if j != nil {
		if j.Table == nil || len(j.Table.Columns) == 0 || len(j.Parents) != 1 || j.Parents[0] == nil {
			return k, false
		}
		k.through, k.parentCol, k.childCol = j.Table, j.ParentColumn, j.ChildColumn
	}
	return k, true
}

// stmt returns the statement of the read q joining joins, or through j,
// from the cache, if it has its shape compiled from tables as they still
// are and the values take parameters there.
func (c *readCache) stmt(d *Dialect, q *datastore.Query, joins []datastore.Join, j *datastore.Through) (Stmt, bool) {
	if c == nil {
		return Stmt{}, false
	}
	k, ok := readShape(d, q, joins, j)
	if !ok {
		return Stmt{}, false
	}
	c.mu.RLock()
	var e *readEntry
	for _, x := range c.m[k.t] {
		if x.key == k {
			e = x
			break
		}
	}
	c.mu.RUnlock()
	if e == nil || !e.current(q.Table, joins, j) {
		return Stmt{}, false
	}
	n := 0
	var pv, ev any
	if e.parent != nil {
		if pv, ok = param(e.parent, j.Parents[0]); !ok {
			return Stmt{}, false
		}
		n++
	}
	if e.eq != nil {
		if ev, ok = param(e.eq, q.Where.(*criteria.Cmp).Value); !ok {
			return Stmt{}, false
		}
		n++
	}
	if e.limitArg {
		n++
	}
	if e.skipArg {
		n++
	}
	st := Stmt{SQL: e.sql, Columns: e.cols, Nests: e.nests}
	if e.parent == nil { // a read of children has no MaxRows (see Stmt)
		st.MaxRows = pageRows(q.Limit)
	}
	if n == 0 {
		return st, true
	}
	// The order the builder writes them in: the parent key, the where
	// clause's, then the page's.
	args := make([]any, 0, n)
	if e.parent != nil {
		args = append(args, pv)
	}
	if e.eq != nil {
		args = append(args, ev)
	}
	if e.limitArg {
		args = append(args, q.Limit)
	}
	if e.skipArg {
		args = append(args, q.Skip)
	}
	st.Args = args
	return st, true
}

// param returns v encoded as the parameter of a comparison with c, or
// false when the comparison does not compile to one: a value the column
// cannot hold compiles to FALSE (or is left out of an IN list), an
// unencodable one to the error compiling reports.
func param(c *datastore.Column, v any) (any, bool) {
	if _, frac := fractional(c, v); frac {
		return nil, false
	}
	if _, out := outOfRange(c, v); out {
		return nil, false
	}
	ev, err := Encode(c.Kind, v)
	return ev, err == nil
}

// current reports whether the query's table t and the joins' tables, or
// the join table of j, are as they were when e was compiled.
func (e *readEntry) current(t *datastore.Table, joins []datastore.Join, j *datastore.Through) bool {
	if !e.tables[0].current(t) {
		return false
	}
	if j != nil {
		return e.tables[1].current(j.Table)
	}
	for i, j := range joins {
		if !e.tables[i+1].current(j.Table) {
			return false
		}
	}
	return true
}

// put keeps st, compiled from q joining joins, or through j, as the
// compilation of its shape, when it has one and its parameters are those
// stmt lays out.
func (c *readCache) put(d *Dialect, q *datastore.Query, joins []datastore.Join, j *datastore.Through, st Stmt) {
	if c == nil {
		return
	}
	k, ok := readShape(d, q, joins, j)
	if !ok {
		return
	}
	e := &readEntry{
		key:      k,
		tables:   make([]tableShape, 0, 1+len(joins)),
		sql:      st.SQL,
		cols:     st.Columns[:len(st.Columns):len(st.Columns)],
		nests:    st.Nests[:len(st.Nests):len(st.Nests)],
		limitArg: q.Limit < criteria.Unlimited && !d.LiteralLimit,
		skipArg:  q.Skip > 0,
	}
	want := 0
	if j != nil {
		if e.parent = j.Table.Column(j.ParentColumn); e.parent == nil {
			return
		}
		want++
	}
	if k.where {
		if e.eq = q.Table.Column(k.eq); e.eq == nil {
			return
		}
		want++
	}
	if e.limitArg {
		want++
	}
	if e.skipArg {
		want++
	}
	// An equality written as FALSE (a value the column cannot hold) has no
	// parameter: its text is not the shape's.
	if len(st.Args) != want {
		return
	}
	e.tables = append(e.tables, shapeOf(q.Table))
	for _, j := range joins {
		e.tables = append(e.tables, shapeOf(j.Table))
	}
	if j != nil {
		e.tables = append(e.tables, shapeOf(j.Table))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	es := c.m[k.t]
	for i, x := range es {
		if x.key == k {
			// Readers may hold es: replaced in a copy.
			es = slices.Clone(es)
			es[i] = e
			c.m[k.t] = es
			return
		}
	}
	if c.n < maxReads && len(es) < maxTableReads {
		c.m[k.t] = append(es[:len(es):len(es)], e)
		c.n++
	}
}
