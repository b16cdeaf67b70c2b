package socketio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
)

// Buffer sizes of an upgraded connection. net/http hands a hijacked
// connection 4 KiB read and write buffers, which coder/websocket keeps for
// the connection's life: 8 KiB of an idle socket's budget. Frame headers are
// small (at most 14 bytes), what clients send is mostly pongs and short
// requests, and reads larger than the buffer bypass it, so a small buffer
// costs little. The write buffer can be smaller still: data messages go
// straight to the batchWriter under it, which gathers them, so the
// buffer's size does not decide the number of write(2)s; the library's own
// control frames (at most 139 bytes) fit.
const (
	readBufferSize  = 256
	writeBufferSize = 160
)

// smallBuffers wraps the handshake's ResponseWriter so that the hijacked
// connection gets small bufio buffers, and a batchWriter under the write
// buffer.
type smallBuffers struct {
	http.ResponseWriter
	hj   http.Hijacker
	pool *sync.Pool   // of *[]byte, for batchWriter
	out  *batchWriter // set up by Hijack; part of the Socket to be
}

// Hijack hijacks the underlying connection and swaps its buffers, keeping
// any bytes already read past the handshake.
func (w *smallBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := w.hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("flush handshake: %w", err)
	}
	br := bufio.NewReaderSize(conn, readBufferSize)
	if n := brw.Reader.Buffered(); n > 0 {
		// Bytes the client sent right after the handshake must stay buffered
		// in the new reader: websocket.Accept keeps only Buffered() bytes
		// when it resets the reader's source to the connection.
		early, _ := brw.Reader.Peek(n)
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(early)), conn), max(n, readBufferSize))
		if _, err := br.Peek(n); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("buffer early bytes: %w", err)
		}
	}
	w.out.init(conn, w.pool)
	return &guardedConn{Conn: conn, w: w.out}, bufio.NewReadWriter(br, bufio.NewWriterSize(w.out, writeBufferSize)), nil
}

// withSmallBuffers returns w wrapped, or nil when it cannot hijack (then
// websocket.Accept is given w itself and reports the error). Hijack sets
// up out for the connection.
func withSmallBuffers(w http.ResponseWriter, pool *sync.Pool, out *batchWriter) *smallBuffers {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil
	}
	return &smallBuffers{ResponseWriter: w, hj: hj, pool: pool, out: out}
}

// guardedConn is the hijacked connection as coder/websocket holds it, the
// only way it is closed: Close waits for a flusher's write on the
// descriptor number the batchWriter keeps and stops later ones, so that
// number is never written to once closed (and perhaps reused).
type guardedConn struct {
	net.Conn
	w *batchWriter
}

// Close closes the connection once no non-blocking write is under way.
func (c *guardedConn) Close() error {
	c.w.fdMu.Lock()
	c.w.fdClosed = true
	c.w.fdMu.Unlock()
	return c.Conn.Close()
}

// maxHeldBytes bounds what a batchWriter holds before writing it out.
const maxHeldBytes = 64 << 10

// batchWriter is what the connection's bufio.Writer flushes to.
// coder/websocket flushes after every message: one write(2) per message,
// the largest cost of a fan-out. While a flusher or the socket's writer
// drains the queued packets it holds their bytes here and writes them
// with one call (tryRelease, release), so a socket that fell behind
// catches up at a fraction of the cost. Write is also called by the
// library's reader goroutine (pongs, close frames), hence the mutex.
//
// A flusher's writes go straight to the connection's descriptor, whose
// number the batchWriter keeps, rather than through RawConn.Control: in a
// fan-out every socket's memory is cold, and Control's path (the RawConn,
// the net.FD's reference count) costs two more cache misses per delivery.
// fdMu and fdClosed stand in for that reference count (see guardedConn).
// The fields fill one 64-byte line, the Socket's second.
type batchWriter struct {
	mu   sync.Mutex
	held *[]byte // non-nil between hold and release

	fdMu     sync.Mutex
	fd       int  // conn's descriptor, for writes that must not block; -1 if none
	fdClosed bool // under fdMu: conn is closed or closing, fd is not to be used

	pool *sync.Pool // of *[]byte: buffers are only held during a batch
	conn net.Conn
}

// init sets w up to write to conn.
func (w *batchWriter) init(conn net.Conn, pool *sync.Pool) {
	*w = batchWriter{conn: conn, pool: pool, fd: -1}
	if sc, ok := conn.(syscall.Conn); ok && canTryWrite {
		if raw, err := sc.SyscallConn(); err == nil {
			raw.Control(func(fd uintptr) { w.fd = int(fd) })
		}
	}
}

// tryWrite makes one non-blocking write(2) of b on the connection's
// descriptor and returns how much it took: 0 when it would block. Callers
// hold mu, which serialises the writers of one connection.
func (w *batchWriter) tryWrite(b []byte) (int, error) {
	w.fdMu.Lock()
	defer w.fdMu.Unlock()
	if w.fdClosed {
		return 0, net.ErrClosed
	}
	return tryWriteFD(w.fd, b)
}

// Write writes p to the connection, or appends it to the held bytes.
func (w *batchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		return w.conn.Write(p)
	}
	if len(*w.held)+len(p) > maxHeldBytes {
		if err := w.writeHeld(); err != nil {
			return 0, err
		}
		if len(p) > maxHeldBytes {
			return w.conn.Write(p)
		}
	}
	*w.held = append(*w.held, p...)
	return len(p), nil
}

// hold starts holding written bytes.
func (w *batchWriter) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		w.held = w.pool.Get().(*[]byte)
	}
}

// release writes the held bytes and stops holding.
func (w *batchWriter) release() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		return nil
	}
	err := w.writeHeld()
	w.pool.Put(w.held)
	w.held = nil
	return err
}

func (w *batchWriter) writeHeld() error {
	b := *w.held
	*w.held = b[:0]
	if len(b) == 0 {
		return nil
	}
	_, err := w.conn.Write(b)
	return err
}

// tryWriteLocked, called with mu held (it unlocks it), appends the
// batch's frames to the held bytes and writes them as far as the
// connection takes them without blocking. It stops holding and reports true
// when all were written; else it keeps holding the rest (Write appends
// behind it), for release to write from a goroutine that may block.
func (w *batchWriter) tryWriteLocked(batch []*Packet) (bool, error) {
	defer w.mu.Unlock()
	if w.held == nil && len(batch) == 1 && w.fd >= 0 {
		// A lone message (the usual case below saturation) is written
		// from the shared packet: no buffer to take from the pool and
		// fill. Only what the connection did not take is held.
		ws := batch[0].ws
		n, err := w.tryWrite(ws)
		if err != nil || n == len(ws) {
			return err == nil, err
		}
		w.held = w.pool.Get().(*[]byte)
		*w.held = append(*w.held, ws[n:]...)
		return false, nil
	}
	if w.held == nil {
		w.held = w.pool.Get().(*[]byte)
	}
	b := *w.held
	for _, p := range batch {
		b = append(b, p.ws...)
	}
	*w.held = b
	if len(b) > 0 {
		if w.fd < 0 {
			return false, nil
		}
		n, err := w.tryWrite(b)
		if err != nil {
			return false, err
		}
		if n < len(b) {
			*w.held = b[:copy(b, b[n:])]
			return false, nil
		}
	}
	*w.held = b[:0]
	w.pool.Put(w.held)
	w.held = nil
	return true, nil
}
