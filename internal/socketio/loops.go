package socketio

import (
	"context"
	"errors"
	"io"

	"github.com/coder/websocket"
)

// maxSpare bounds the queue capacity a socket keeps between batches, so
// that a burst does not pin memory on an idle socket.
const maxSpare = 16

// flush runs on a flusher: it writes the socket's queue if the connection
// takes it without blocking. A socket that is closing, whose write would
// block or whose batch is too large to hold goes to a writer goroutine of
// its own; one with more queued meanwhile goes back to the dirty list.
func (s *Socket) flush() {
	s.mu.Lock()
	batch := s.queue
	// The batchWriter is busy only when the library's reader goroutine is
	// writing a control frame, which may block on a peer that does not
	// read: the flusher does not wait for it.
	if s.closing || batchBytes(batch) > maxHeldBytes || !s.out.mu.TryLock() {
		s.mu.Unlock()
		s.srv.wg.Go(s.writeLoop)
		return
	}
	s.queue = nil
	s.mu.Unlock()
	done, err := s.out.tryWriteLocked(batch)
	if err != nil {
		s.closeWith(ReasonTransportError, closeAbort, 0)
	}
	clear(batch)
	s.mu.Lock()
	switch {
	case s.closing || !done:
		// The writer goroutine writes what is still held first.
		s.mu.Unlock()
		s.srv.wg.Go(s.writeLoop)
	case len(s.queue) > 0:
		s.mu.Unlock()
		s.srv.flush.add(s)
	default:
		if cap(batch) <= maxSpare {
			s.queue = batch[:0]
		}
		s.writing = false
		s.mu.Unlock()
	}
}

// batchBytes is the size of a batch's frames.
func batchBytes(batch []*Packet) int {
	n := 0
	for _, p := range batch {
		n += len(p.ws)
	}
	return n
}

// writeLoop is a socket's own writer goroutine, for a socket that the
// flushers cannot serve without blocking (a slow peer, a large batch) or
// that is closing: it writes what is held and queued, blocking as long as
// needed, until the queue is empty (the socket then goes back to the
// flushers), or ends the connection as closeWith asked. Writes use no
// context: a peer that stops reading is cut by CloseNow (queue overflow,
// heartbeat timeout, Server.Close deadline), which unblocks them.
func (s *Socket) writeLoop() {
	if err := s.out.release(); err != nil {
		s.closeWith(ReasonTransportError, closeAbort, 0)
	}
	var spare []*Packet
	for {
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			s.end()
			close(s.writerDone)
			return
		}
		batch := s.queue
		if len(batch) == 0 {
			s.writing = false
			s.mu.Unlock()
			return
		}
		s.queue = spare
		s.mu.Unlock()
		spare = s.write(batch)
	}
}

// write writes a batch of packets with one write(2) (after what is held)
// and returns the slice for reuse. The packets' WebSocket frames are copied
// straight into the batchWriter under coder/websocket's write buffer, past
// the library's per-message locking: that is safe because one goroutine at
// a time (a flusher or the socket's writer) writes data messages, and the
// library's own frames (pongs, close) are small enough to reach the
// batchWriter in one Write, between two of ours.
func (s *Socket) write(batch []*Packet) []*Packet {
	s.out.hold()
	for _, p := range batch {
		if _, err := s.out.Write(p.ws); err != nil {
			s.closeWith(ReasonTransportError, closeAbort, 0)
			break
		}
	}
	if err := s.out.release(); err != nil {
		s.closeWith(ReasonTransportError, closeAbort, 0)
	}
	clear(batch)
	if cap(batch) > maxSpare {
		return nil
	}
	return batch[:0]
}

// end ends the connection once a close is decided: it writes what is still
// queued (unless aborting), then closes as s.mode says.
func (s *Socket) end() {
	if s.mode == closeAbort {
		s.conn.CloseNow()
		return
	}
	s.mu.Lock()
	batch := s.queue
	s.queue = nil
	s.mu.Unlock()
	if len(batch) > 0 {
		s.write(batch)
	}
	if s.mode == closeGraceful {
		s.conn.Write(context.Background(), websocket.MessageText, []byte(frameDisconnect))
	}
	// Close waits (bounded by the library, 5s+5s) for the peer's close frame,
	// which the reader goroutine receives.
	s.conn.Close(s.code, "")
}

// readLoop is the socket's reader goroutine. It reads
// until the connection fails or is closed, and keeps reading while the writer
// closes the connection so that the close handshake completes.
func (s *Socket) readLoop() {
	for {
		typ, b, err := s.conn.Read(context.Background())
		if err != nil {
			s.closeWith(readErrorReason(err), closeAbort, 0)
			return
		}
		if s.ctx.Err() != nil {
			continue
		}
		if typ != websocket.MessageText {
			s.closeWith(ReasonParseError, closeFrame, websocket.StatusUnsupportedData)
			continue
		}
		if err := s.handleFrame(b); err != nil {
			s.srv.opts.Logger.Debug("socket.io protocol error", "sid", s.id, "err", err)
			s.closeWith(ReasonParseError, closeFrame, websocket.StatusPolicyViolation)
		}
	}
}

func readErrorReason(err error) string {
	switch {
	case errors.Is(err, websocket.ErrMessageTooBig):
		return ReasonMessageTooBig
	case websocket.CloseStatus(err) != -1, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonTransportClose
	}
	return ReasonTransportError
}

func (s *Socket) handleFrame(b []byte) error {
	f, err := DecodeFrame(b)
	if err != nil {
		return err
	}
	s.alive(f.Type)
	switch f.Type {
	case EnginePing:
		// EIO=3 heartbeat, or a probe; the payload is echoed ("2probe" → "3probe").
		// A send error means the socket is already closing: nothing to add.
		s.sendFrame(append([]byte{byte(EnginePong)}, f.Data...))
	case EngineClose:
		s.closeWith(ReasonTransportClose, closeFrame, websocket.StatusNormalClosure)
	case EngineMessage:
		return s.handleMessage(f.Message)
	}
	// Pong was handled by alive; open, upgrade and noop mean nothing here.
	return nil
}

func (s *Socket) handleMessage(m *Message) error {
	switch m.Type {
	case PacketBinaryEvent, PacketBinaryAck:
		return errors.New("binary packets are not supported")
	case PacketConnectError:
		return errors.New("connect error packet from a client")
	}
	if m.Namespace != "/" {
		if m.Type == PacketConnect {
			s.sendFrame(connectErrorFrame(s.eio, m.Namespace, "Invalid namespace"))
		}
		return nil // socket.io ignores packets for namespaces the client is not in
	}
	switch m.Type {
	case PacketConnect:
		if s.eio == 4 && !s.connected.Load() {
			s.join(m.Data)
		}
	case PacketDisconnect:
		s.closeWith(ReasonClientDisconnect, closeFrame, websocket.StatusNormalClosure)
	case PacketEvent:
		if !s.connected.Load() {
			return nil
		}
		name, args, err := m.Event()
		if err != nil {
			return err
		}
		var ack func(args ...any) error
		if m.ID != NoID {
			ack = s.ackFunc(m.ID)
		}
		if f := s.srv.opts.OnEvent; f != nil {
			f(s, name, args, ack)
		}
	}
	// Acks from the client answer nothing: the server never asks for one.
	return nil
}

// ackFunc returns the function answering the client's ack id; only its
// first call sends.
func (s *Socket) ackFunc(id int64) func(args ...any) error {
	var done atomicFlag
	return func(args ...any) error {
		if !done.set() {
			return ErrAcked
		}
		b, err := encodeAck(id, args)
		if err != nil {
			return err
		}
		return s.sendFrame(b)
	}
}
