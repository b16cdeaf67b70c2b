package sqlgen

import (
	"slices"
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
// anew. A nil *listCache keeps nothing.
type listCache struct {
	mu sync.RWMutex
	m  map[listKey]listEntry
}

type listKey struct {
	t    *datastore.Table
	qual string
}

type listEntry struct {
	cols []datastore.Column // the table's columns when text was written
	text string
}

func newListCache() *listCache {
	return &listCache{m: make(map[listKey]listEntry)}
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
	if !ok || !slices.Equal(e.cols, t.Columns) {
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
	e := listEntry{cols: slices.Clone(t.Columns), text: text}
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
