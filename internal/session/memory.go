package session

import (
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
)

// MemoryStore keeps sessions in this process: lost on restart and not
// shared between instances (Sails' default memory store). Expired sessions
// are ignored when read and swept by a commit now and then, so it needs no
// goroutine. It is safe for concurrent use.
type MemoryStore struct {
	mu        sync.RWMutex
	items     map[string]memItem
	lastSweep time.Time
}

type memItem struct {
	data   []byte
	expiry time.Time
}

var _ scs.Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore. (scs' memstore is not used:
// stopping its sweeping goroutine races with it.)
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{items: map[string]memItem{}, lastSweep: time.Now()}
}

// Find implements scs.Store.
func (m *MemoryStore) Find(token string) ([]byte, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	it, ok := m.items[token]
	if !ok || time.Now().After(it.expiry) {
		return nil, false, nil
	}
	return it.data, true, nil
}

// Commit implements scs.Store.
func (m *MemoryStore) Commit(token string, b []byte, expiry time.Time) error {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items[token] = memItem{data: b, expiry: expiry}
	if now.Sub(m.lastSweep) >= sweepEvery {
		m.lastSweep = now
		for k, it := range m.items {
			if now.After(it.expiry) {
				delete(m.items, k)
			}
		}
	}
	return nil
}

// Delete implements scs.Store.
func (m *MemoryStore) Delete(token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.items, token)
	return nil
}
