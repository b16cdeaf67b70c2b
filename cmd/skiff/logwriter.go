package main

import (
	"io"
	"sync"
	"time"
)

// maxPendingLog is how many bytes of log lines may wait for the output;
// past it a write waits for the output itself, so a stalled terminal or
// pipe slows the server down rather than filling its memory.
const maxPendingLog = 1 << 20

// logLinger is how long the writer waits after a write before it writes
// again, so that the lines of a busy server's next moments go out
// together. Writing as soon as the previous write returned still cost a
// wake-up and a write(2) for nearly every request line at two
// connections: GET /pet/42 took 35.2 µs of CPU per request against 31.7
// without request lines; with a linger of 1 ms 32.6 (bench/floor's app on
// SQLite, wrk -c2, 2026-11-27). Each linger is a timer, and on a server
// waiting on its database between requests each costs thread wake-ups
// (the poller is woken to shorten its sleep, then again when it fires):
// on PostgreSQL, GET /pet/42 at two connections took 85.3 µs of CPU per
// request with 1 ms, 81.9 with 5 ms, 78.8 with 20 ms and 76.1 without
// request lines; on SQLite 40.5, 39.6, 39.1 and 37.7 (six alternating
// rounds, 2026-11-27). A line waits at most this long; the first after a
// quiet spell goes out at once.
const logLinger = 20 * time.Millisecond

// logWriter coalesces the log lines written within logLinger of each
// other into one write to w. Lines keep their order; the first line after
// a quiet spell goes out at once, and Flush and Close wait for what is
// pending.
//
// One long-lived goroutine does the writing: starting a goroutine per
// line, as lines come one at a time on a lightly loaded server, cost
// about 4% of a request's instructions.
type logWriter struct {
	w    io.Writer
	wake chan struct{} // one pending wake-up for the writer goroutine
	done chan struct{} // closed when the writer goroutine has ended

	mu      sync.Mutex
	written *sync.Cond // signalled after each write to w
	buf     []byte
	queued  uint64 // bytes ever queued
	out     uint64 // bytes ever written to w (or dropped by w)
	closed  bool
	direct  sync.Mutex // held while writing to w
}

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.written = sync.NewCond(&l.mu)
	go l.run()
	return l
}

// Write queues p (one line, as slog writes them) and returns at once.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed || len(l.buf)+len(p) > maxPendingLog {
		l.mu.Unlock()
		l.Flush()
		l.direct.Lock()
		defer l.direct.Unlock()
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	l.queued += uint64(len(p))
	select { // under mu, so that Close cannot close wake meanwhile
	case l.wake <- struct{}{}:
	default: // a wake-up is pending already: the writer will see p
	}
	l.mu.Unlock()
	return len(p), nil
}

// run writes what is queued each time it is woken, until Close.
func (l *logWriter) run() {
	defer close(l.done)
	var spare []byte
	for range l.wake {
		for {
			l.mu.Lock()
			if len(l.buf) == 0 {
				l.mu.Unlock()
				break
			}
			batch := l.buf
			l.buf = spare[:0]
			l.mu.Unlock()
			l.direct.Lock()
			_, _ = l.w.Write(batch) // a log line has nowhere else to go
			l.direct.Unlock()
			l.mu.Lock()
			l.out += uint64(len(batch))
			l.written.Broadcast()
			l.mu.Unlock()
			spare = batch
			time.Sleep(logLinger)
		}
	}
}

// Flush returns once every line written before it is out.
func (l *logWriter) Flush() {
	l.mu.Lock()
	for target := l.queued; l.out < target; {
		l.written.Wait()
	}
	l.mu.Unlock()
}

// Close flushes and ends the writer goroutine; later writes go straight
// to w.
func (l *logWriter) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	close(l.wake) // the writer drains what is queued before it ends
	l.mu.Unlock()
	<-l.done
}
