package socketio

import (
	"runtime"
	"sync"
	"time"
)

// flushChunk is how many sockets a flusher takes from the dirty list at a
// time, so that the flushers share a fan-out's sockets.
const flushChunk = 64

// flusher writes the queues of sockets with something to send, from a few
// goroutines shared by all sockets instead of one writer per socket. A
// socket is in the dirty list at most once: what is queued to it while it
// waits there goes out with the rest, in one write(2). Under load the list
// grows while the flushers write, so each socket's writes carry more
// messages; when idle a flusher starts at once and writes at once. No
// timer is involved.
//
// A flusher never blocks on a peer: it writes only what the connection
// takes at once, and hands a socket whose write would block (or that is
// closing) to a writer goroutine of its own (Socket.writeLoop), so a slow
// consumer holds up nobody else; it is still cut off when its queue fills.
type flusher struct {
	spawn func(func())     // starts a goroutine counted by the Server
	max   int              // flusher goroutines at most
	now   func() time.Time // the clock that tells a backlog's age

	mu      sync.Mutex
	dirty   []*Socket
	running int

	caughtUp   bool      // the list was empty when add last appended to it
	lastEmpty  time.Time // when a flusher last saw the list caught up or emptied it
	fed        bool      // sockets were added since a flusher last took some
	fedAt      time.Time // when a flusher last saw fed
	backlogged bool      // see backlogFor
}

// newFlusher returns a flusher that starts at most max goroutines with spawn.
func newFlusher(spawn func(func()), max int) flusher {
	return flusher{spawn: spawn, max: max, now: time.Now}
}

// add puts s, which has packets queued and no writer, in the dirty list,
// and starts a flusher if fewer run than the list may have (see
// backlogFor).
func (f *flusher) add(s *Socket) {
	f.mu.Lock()
	f.dirty = append(f.dirty, s)
	f.fed = true
	if len(f.dirty) == 1 {
		f.caughtUp = true
		f.backlogged = false
	}
	start := f.running < f.limit()
	if start {
		f.running++
	}
	f.mu.Unlock()
	if start {
		f.spawn(f.run)
	}
}

// backlogFor is how long the dirty list may stay non-empty, publishers
// still adding to it in the second half of that time, before the flushers
// leave a processor to the rest of the server. Go's scheduler looks for
// connections with input only when a processor runs out of work, or every
// 10 ms from its monitor: flushers busy on every processor keep the HTTP
// and socket requests that feed the fan-outs, and any other, waiting up to
// 10 ms each. A burst (the fan-out of one create, however long it takes to
// write) still gets every processor; a backlog still fed after this long
// is written by one flusher fewer, whose writes then carry more messages
// each. (On 2 vCPUs at saturation, 1,000 watchers: about 1.5x the creates
// per second and a third less CPU per delivery, p99 alike; see
// docs/performance.md.)
const backlogFor = 10 * time.Millisecond

// limit is how many flushers may run now: one fewer than max (and at
// least one) while the list is backlogged.
func (f *flusher) limit() int {
	if f.backlogged && f.max > 1 {
		return f.max - 1
	}
	return f.max
}

// lingerFor is how long a flusher that finds the dirty list empty keeps
// yielding before it exits. A publisher preempted in the middle of a
// fan-out's Send loop resumes within microseconds and queues the rest of
// its targets: a flusher still there takes them without the ~60 µs of an
// exit and restart. Bounded, so an idle server spends at most this much
// CPU per burst and flusher.
const lingerFor = 20 * time.Microsecond

// run flushes dirty sockets until the list is empty, or until it is one
// flusher too many for a backlog.
func (f *flusher) run() {
	// Let the goroutines ready to run go first: a fan-out that started
	// this flusher queues to all its recipients meanwhile.
	runtime.Gosched()
	batch := make([]*Socket, 0, flushChunk)
	var idleSince time.Time
	for {
		var ok bool
		if batch, ok = f.next(batch[:0], &idleSince); !ok {
			return
		}
		for _, s := range batch {
			s.flush()
		}
		clear(batch)
	}
}

// next moves up to flushChunk sockets from the dirty list to batch, or
// reports false when the calling flusher is to exit (and counts it out):
// the list stayed empty for lingerFor, or it has been backlogged and more
// flushers run than limit allows.
func (f *flusher) next(batch []*Socket, idleSince *time.Time) ([]*Socket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.dirty) == 0 {
		if !f.linger(idleSince) {
			f.running--
			if cap(f.dirty) > 4*flushChunk {
				f.dirty = nil // an idle server does not keep a burst's list
			}
			return batch, false
		}
		f.mu.Unlock()
		runtime.Gosched()
		f.mu.Lock()
	}
	*idleSince = time.Time{}
	if f.max > 1 {
		now := f.now()
		if f.caughtUp {
			f.lastEmpty, f.caughtUp = now, false
		}
		if f.fed {
			f.fedAt, f.fed = now, false
		}
		f.backlogged = now.Sub(f.lastEmpty) >= backlogFor && f.fedAt.Sub(f.lastEmpty) >= backlogFor/2
		if f.running > f.limit() {
			f.running--
			return batch, false
		}
		if len(f.dirty) <= flushChunk {
			f.lastEmpty = now
		}
	}
	n := min(len(f.dirty), flushChunk)
	batch = append(batch, f.dirty[:n]...)
	rest := copy(f.dirty, f.dirty[n:])
	clear(f.dirty[rest:])
	f.dirty = f.dirty[:rest]
	return batch, true
}

// linger reports whether a flusher that found the list empty should look
// again rather than exit: until lingerFor has passed since it first found
// it empty (*since, reset when it finds work).
func (f *flusher) linger(since *time.Time) bool {
	now := time.Now()
	if since.IsZero() {
		*since = now
		return true
	}
	return now.Sub(*since) < lingerFor
}
