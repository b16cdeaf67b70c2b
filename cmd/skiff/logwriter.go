package main

import (
	"io"
	"sync"
)

// maxPendingLog is how many bytes of log lines may wait for the output;
// past it a write waits for the output itself, so a stalled terminal or
// pipe slows the server down rather than filling its memory.
const maxPendingLog = 1 << 20

// logWriter coalesces the log lines written at once into one write to w.
// With a request line per request, writing each line with its own
// system call cost a busy server about a tenth of its requests. Lines keep
// their order and go out as soon as the previous write has returned:
// nothing waits for a timer, and Flush waits for what is pending.
type logWriter struct {
	w io.Writer

	mu      sync.Mutex
	buf     []byte
	writing bool          // a flush goroutine runs
	idle    chan struct{} // closed when the running flush ends; nil when idle
	out     sync.Mutex    // held while writing to w
}

func newLogWriter(w io.Writer) *logWriter { return &logWriter{w: w} }

// Write queues p (one line, as slog writes them) and returns at once.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	if len(l.buf)+len(p) > maxPendingLog {
		l.mu.Unlock()
		l.Flush()
		l.out.Lock()
		defer l.out.Unlock()
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	start := !l.writing
	if start {
		l.writing = true
		l.idle = make(chan struct{})
	}
	l.mu.Unlock()
	if start {
		go l.flush()
	}
	return len(p), nil
}

// flush writes what is queued until nothing is.
func (l *logWriter) flush() {
	var spare []byte
	for {
		l.mu.Lock()
		if len(l.buf) == 0 {
			l.writing = false
			close(l.idle)
			l.idle = nil
			l.mu.Unlock()
			return
		}
		batch := l.buf
		l.buf = spare[:0]
		l.mu.Unlock()
		l.out.Lock()
		_, _ = l.w.Write(batch) // a log line has nowhere else to go
		l.out.Unlock()
		spare = batch
	}
}

// Flush returns once every line written before it is out.
func (l *logWriter) Flush() {
	l.mu.Lock()
	idle := l.idle
	l.mu.Unlock()
	if idle != nil {
		<-idle
	}
}
