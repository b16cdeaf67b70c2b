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
	spawn func(func()) // starts a goroutine counted by the Server
	max   int          // flusher goroutines at most

	mu      sync.Mutex
	dirty   []*Socket
	running int
}

// add puts s, which has packets queued and no writer, in the dirty list,
// and starts a flusher if fewer than max run.
func (f *flusher) add(s *Socket) {
	f.mu.Lock()
	f.dirty = append(f.dirty, s)
	start := f.running < f.max
	if start {
		f.running++
	}
	f.mu.Unlock()
	if start {
		f.spawn(f.run)
	}
}

// lingerFor is how long a flusher that finds the dirty list empty keeps
// yielding before it exits. A publisher preempted in the middle of a
// fan-out's Send loop resumes within microseconds and queues the rest of
// its targets: a flusher still there takes them without the ~60 µs of an
// exit and restart. Bounded, so an idle server spends at most this much
// CPU per burst and flusher.
const lingerFor = 20 * time.Microsecond

// run flushes dirty sockets until the list is empty.
func (f *flusher) run() {
	// Let the goroutines ready to run go first: a fan-out that started
	// this flusher queues to all its recipients meanwhile.
	runtime.Gosched()
	batch := make([]*Socket, 0, flushChunk)
	var idleSince time.Time
	for {
		f.mu.Lock()
		n := min(len(f.dirty), flushChunk)
		if n == 0 && f.linger(&idleSince) {
			f.mu.Unlock()
			runtime.Gosched()
			continue
		}
		if n == 0 {
			f.running--
			if cap(f.dirty) > 4*flushChunk {
				f.dirty = nil // an idle server does not keep a burst's list
			}
			f.mu.Unlock()
			return
		}
		idleSince = time.Time{}
		batch = append(batch[:0], f.dirty[:n]...)
		rest := copy(f.dirty, f.dirty[n:])
		clear(f.dirty[rest:])
		f.dirty = f.dirty[:rest]
		f.mu.Unlock()
		for _, s := range batch {
			s.flush()
		}
		clear(batch)
	}
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
