package socketio

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A fan-out burst (thousands of notifications to thousands of sockets)
// leaves the heap as large as the collector's goal: the garbage made since
// the last collection stays in use until the next one, which an idle server
// may not reach for minutes (the runtime forces one every two), and only
// then do the free pages go back to the OS. The idle collector runs that
// collection, and returns the free pages, once the sockets go quiet after
// a burst: one collection per burstBytes written at most, none while busy.
const (
	burstBytes = 64 << 20    // written since the last collection that make a burst
	quietFor   = time.Second // how long the flushers must stay quiet
	quietBytes = 256 << 10   // at most written meanwhile to count as quiet
)

// idleCollector decides when a burst is over and collects then.
type idleCollector struct {
	collect func()                      // debug.FreeOSMemory; tests replace it
	after   func(time.Duration, func()) // time.AfterFunc; tests replace it

	written atomic.Int64 // bytes handed to sockets since the last collection
	mu      sync.Mutex
	armed   bool // a check is pending
}

func newIdleCollector() *idleCollector {
	return &idleCollector{
		collect: debug.FreeOSMemory,
		after:   func(d time.Duration, f func()) { time.AfterFunc(d, f) },
	}
}

// wrote counts n bytes handed to a socket's connection.
func (c *idleCollector) wrote(n int) { c.written.Add(int64(n)) }

// idle is called when the flushers have nothing left to write: after a
// burst it schedules a check that collects if they stayed quiet.
func (c *idleCollector) idle() {
	mark := c.written.Load()
	if mark < burstBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed {
		return
	}
	c.armed = true
	c.after(quietFor, func() { c.check(mark) })
}

// check collects if little was written since mark; otherwise the next
// idle moment schedules another check.
func (c *idleCollector) check(mark int64) {
	c.mu.Lock()
	c.armed = false
	c.mu.Unlock()
	now := c.written.Load()
	if now-mark > quietBytes {
		return
	}
	c.written.Add(-now)
	c.collect()
}
