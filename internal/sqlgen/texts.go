package sqlgen

import "sync"

// maxTexts bounds a textCache. Query shapes are few (a model, its
// operators, list lengths and select); past the bound a text is allocated
// per statement, as before the cache.
const maxTexts = 4096

// textCache hands out one string per distinct SQL text, and reuses the
// buffers texts are written in. The text of a query is rebuilt for every
// statement, but into a reused buffer, and a text seen before costs a map
// lookup instead of an allocation of its length (a find's text is a few
// hundred bytes). Building it anew, rather than keying a cache on the
// query's shape, keeps the text exactly what the builder writes.
// A nil *textCache keeps nothing.
type textCache struct {
	mu   sync.RWMutex
	m    map[string]string
	bufs sync.Pool // of *[]byte
}

func newTextCache() *textCache {
	return &textCache{m: make(map[string]string)}
}

// buffer returns an empty buffer to write a text in.
func (c *textCache) buffer() *[]byte {
	if c != nil {
		if p, ok := c.bufs.Get().(*[]byte); ok {
			*p = (*p)[:0]
			return p
		}
	}
	buf := make([]byte, 0, 256)
	return &buf
}

// release takes back a buffer that buffer returned.
func (c *textCache) release(p *[]byte) {
	if c == nil || cap(*p) > 64<<10 { // a huge IN list's buffer is not kept
		return
	}
	c.bufs.Put(p)
}

// intern returns text as a string, the same string for the same text.
func (c *textCache) intern(text []byte) string {
	if c == nil {
		return string(text)
	}
	c.mu.RLock()
	s, ok := c.m[string(text)] // no allocation: the compiler looks up the bytes
	c.mu.RUnlock()
	if ok {
		return s
	}
	s = string(text)
	c.mu.Lock()
	if len(c.m) < maxTexts {
		c.m[s] = s
	}
	c.mu.Unlock()
	return s
}
