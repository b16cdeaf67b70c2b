package sqlgen

import (
	"sync"

	"github.com/skiffhq/skiff/datastore"
)

// maxLists bounds a listCache: a table has one result list per qualifier
// it is read under (its own name, or an alias), so few are ever made.
const maxLists = 1024

// listCache keeps the result list (resultList) of every column of a
// table, per table and qualifier: most reads return every column, and
// writing each quoted, qualified and cast again was a third of compiling
// a read of one record with its owner joined. An entry holds a copy of
// the columns its text was written from and is used only while the table
// still has exactly those, so that a table changed in place is written
// anew (tableShape.current). A nil *listCache keeps nothing.
type listCache struct {
	mu sync.RWMutex
	m  map[listKey]listEntry
	// all holds each table's every column as the read statements return
	// them (Stmt.Columns), which nothing writes.
	all map[*datastore.Table]listEntry
}

type listKey struct {
	t    *datastore.Table
	qual string
}

type listEntry struct {
	table tableShape // the table when text was written
	text  string
	ptrs  []*datastore.Column // for all: the columns, in the table's array
}

func newListCache() *listCache {
	return &listCache{m: make(map[listKey]listEntry), all: make(map[*datastore.Table]listEntry)}
}

// columns returns every column of t, as allColumns would, from the cache
// when t's columns are still those it was made from, in the same array.
// The slice is shared: its capacity is its length, so that appending to
// it copies.
func (c *listCache) columns(t *datastore.Table) []*datastore.Column {
	if c == nil || len(t.Columns) == 0 {
		return nil
	}
	c.mu.RLock()
	e, ok := c.all[t]
	c.mu.RUnlock()
	if ok && e.table.current(t) {
		return e.ptrs
	}
	ptrs := make([]*datastore.Column, len(t.Columns))
	for i := range t.Columns {
		ptrs[i] = &t.Columns[i]
	}
	c.mu.Lock()
	if _, ok := c.all[t]; ok || len(c.all) < maxLists {
		c.all[t] = listEntry{table: shapeOf(t), ptrs: ptrs}
	}
	c.mu.Unlock()
	return ptrs
}

// get returns the result list of every column of t qualified with qual,
// if it is known and t's columns are still those it was written from.
func (c *listCache) get(t *datastore.Table, qual string) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.RLock()
	e, ok := c.m[listKey{t, qual}]
	c.mu.RUnlock()
	if !ok || !e.table.current(t) {
		return "", false
	}
	return e.text, true
}

// put keeps text as the result list of every column of t qualified with
// qual.
func (c *listCache) put(t *datastore.Table, qual, text string) {
	if c == nil {
		return
	}
	if len(t.Columns) == 0 {
		return
	}
	e := listEntry{table: shapeOf(t), text: text}
	c.mu.Lock()
	if _, ok := c.m[listKey{t, qual}]; ok || len(c.m) < maxLists {
		c.m[listKey{t, qual}] = e
	}
	c.mu.Unlock()
}

// tableResultList is resultList for cols of the table t: when cols are
// every column of t, in order (the usual read), the text comes from the
// dialect's listCache.
func (b *builder) tableResultList(t *datastore.Table, cols []*datastore.Column) {
	if b.d.lists == nil || !everyColumn(t, cols) {
		b.resultList(cols)
		return
	}
	if text, ok := b.d.lists.get(t, b.qual); ok {
		b.str(text)
		return
	}
	start := len(b.buf)
	b.resultList(cols)
	b.d.lists.put(t, b.qual, string(b.buf[start:]))
}

// everyColumn reports whether cols are t's columns, each in its place.
func everyColumn(t *datastore.Table, cols []*datastore.Column) bool {
	if len(cols) != len(t.Columns) || len(cols) == 0 {
		return false
	}
	for i, c := range cols {
		if c != &t.Columns[i] {
			return false
		}
	}
	return true
}
