package sqlgen

import (
	"slices"
	"sync"

	"github.com/skiffhq/skiff/datastore"
)

// maxGuarded bounds a guardedCache. A shape is a table, the set of its
// columns a create sets, its guards and the lock: few per model, but a
// client choosing which attributes to send chooses the column set, so the
// number is bounded here rather than by the models. Past the bound a
// guarded insert is compiled every time, as before the cache.
const maxGuarded = 1024

// maxGuardedGuards is the most guards a cached shape has (a model's
// singular associations set in one create); more are compiled every time.
const maxGuardedGuards = 4

// guardedCache keeps the compiled text, result columns and nests of the
// guarded insertions (InsertGuarded, InsertGuardedWith) per shape: writing
// the INSERT ... SELECT ... WHERE EXISTS ... RETURNING text, with a
// subquery per column of each guard whose row is returned, was ~2.7 µs of
// a POST /pet. Only the arguments depend on the record's values; they are
// laid out again per statement (guardedEntry.stmt). An entry is used only
// while the tables it was compiled from are unchanged, as listCache's.
// A nil *guardedCache keeps nothing.
type guardedCache struct {
	mu sync.RWMutex
	m  map[guardedKey]*guardedEntry
}

// guardedKey is the shape of a guarded insertion: everything its text,
// columns and nests are made from, but the tables' contents, which the
// entry checks (guardedEntry.current).
type guardedKey struct {
	t    *datastore.Table
	with bool // InsertGuardedWith
	lock string
	// cols has bit i set when the record sets t.Columns[i].
	cols   uint64
	n      int // guards
	guards [maxGuardedGuards]guardShape
}

type guardShape struct {
	t      *datastore.Table
	column string
}

// guardedEntry is a compiled shape.
type guardedEntry struct {
	// tables are the insertion's table, then each guard's, as they were
	// when the text was written.
	tables []tableShape
	sql    string
	cols   []*datastore.Column
	nests  []Nest
	nargs  int
}

// tableShape is what a statement's text and columns take from a table.
type tableShape struct {
	name, pk string
	first    *datastore.Column // &Columns[0]: cols points into that array
	columns  []datastore.Column
}

func shapeOf(t *datastore.Table) tableShape {
	return tableShape{name: t.Name, pk: t.PrimaryKey, first: &t.Columns[0], columns: slices.Clone(t.Columns)}
}

func (s *tableShape) current(t *datastore.Table) bool {
	return len(t.Columns) > 0 && &t.Columns[0] == s.first && t.Name == s.name && t.PrimaryKey == s.pk &&
		slices.Equal(t.Columns, s.columns)
}

func newGuardedCache() *guardedCache {
	return &guardedCache{m: make(map[guardedKey]*guardedEntry)}
}

// guardedShape returns the shape of the insertion into t of the columns
// cols (in t's order, as builder.values returns them) guarded by guards,
// and whether it may be cached.
func guardedShape(t *datastore.Table, cols []*datastore.Column, guards []datastore.Guard, lock string, with bool) (guardedKey, bool) {
	k := guardedKey{t: t, with: with, lock: lock, n: len(guards)}
	if len(t.Columns) == 0 || len(t.Columns) > 64 || len(guards) > maxGuardedGuards {
		return k, false
	}
	j := 0
	for i := range t.Columns {
		if j < len(cols) && cols[j] == &t.Columns[i] {
			k.cols |= 1 << i
			j++
		}
	}
	for i, g := range guards {
		if g.Table == nil || len(g.Table.Columns) == 0 {
			return k, false
		}
		k.guards[i] = guardShape{t: g.Table, column: g.Column}
	}
	return k, true
}

// get returns the entry of shape k when its tables are still as they
// were compiled.
func (c *guardedCache) get(k guardedKey, t *datastore.Table, guards []datastore.Guard) *guardedEntry {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	e := c.m[k]
	c.mu.RUnlock()
	if e == nil || !e.tables[0].current(t) {
		return nil
	}
	for i, g := range guards {
		if !e.tables[i+1].current(g.Table) {
			return nil
		}
	}
	return e
}

// put keeps st as the compilation of shape k.
func (c *guardedCache) put(k guardedKey, t *datastore.Table, guards []datastore.Guard, st Stmt) {
	if c == nil {
		return
	}
	e := &guardedEntry{
		tables: make([]tableShape, 0, 1+len(guards)),
		sql:    st.SQL,
		cols:   st.Columns[:len(st.Columns):len(st.Columns)],
		nests:  st.Nests[:len(st.Nests):len(st.Nests)],
		nargs:  len(st.Args),
	}
	e.tables = append(e.tables, shapeOf(t))
	for _, g := range guards {
		e.tables = append(e.tables, shapeOf(g.Table))
	}
	c.mu.Lock()
	if _, ok := c.m[k]; ok || len(c.m) < maxGuarded {
		c.m[k] = e
	}
	c.mu.Unlock()
}

// stmt is the entry's statement for the values vals and the guards'
// keys: the arguments in the order the builder writes their parameters.
// InsertGuarded's come in the insert's values, each guard's key in its
// EXISTS, then once more per column of each guard whose row is returned
// (its RETURNING subqueries); InsertGuardedWith's in the guards' WITH
// queries, then the values.
func (e *guardedEntry) stmt(with bool, vals, keys []any, guards []datastore.Guard) Stmt {
	args := make([]any, 0, e.nargs)
	if with {
		args = append(args, keys...)
		args = append(args, vals...)
	} else {
		args = append(args, vals...)
		args = append(args, keys...)
		for i, g := range guards {
			if g.Column == "" {
				continue
			}
			for range g.Table.Columns {
				args = append(args, keys[i])
			}
		}
	}
	if len(args) == 0 {
		args = nil
	}
	return Stmt{SQL: e.sql, Args: args, Columns: e.cols, Nests: e.nests}
}
