//go:build unix

package socketio

import (
	"syscall"
)

// canTryWrite says whether tryWrite can write without blocking here.
const canTryWrite = true

// rawWriter makes non-blocking writes for one flusher goroutine. It holds
// the arguments and results of the function it passes to RawConn.Control,
// made once: a closure capturing them would be three allocations per
// write, one per delivery when nothing coalesces.
type rawWriter struct {
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) // w.write, bound once
}

func newRawWriter() *rawWriter {
	w := &rawWriter{}
	w.fn = w.write
	return w
}

func (w *rawWriter) write(fd uintptr) {
	for {
		w.n, w.err = syscall.Write(int(fd), w.b)
		if w.err != syscall.EINTR {
			return
		}
	}
}

// tryWrite makes one write(2) of b on raw's non-blocking descriptor and
// returns how much it took: 0 when it would block. Writers of one
// connection must be serialised by the caller (batchWriter.mu).
//
// It writes from RawConn.Control, not RawConn.Write: Control only keeps
// the descriptor open while it runs, where Write also takes the
// descriptor's write lock and arms its poller for a wait that never comes
// (the function never asks to wait). The caller's lock already serialises
// the writers, so the write lock added nothing.
func (w *rawWriter) tryWrite(raw syscall.RawConn, b []byte) (int, error) {
	w.b = b
	err := raw.Control(w.fn)
	n, werr := w.n, w.err
	w.b, w.n, w.err = nil, 0, nil
	if err != nil {
		return 0, err
	}
	switch {
	case werr == syscall.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return n, nil
}
