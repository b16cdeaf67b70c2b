package socketio

import (
	"context"
	"errors"
	"io"

	"github.com/coder/websocket"
)

// maxSpare bounds the batch slice the writer keeps between wake-ups, so that
// a burst does not pin memory on an idle socket.
const maxSpare = 16

// writeLoop is the socket's writer goroutine: it drains the queue in batches
// until a close is decided, then ends the connection as closeWith asked.
// Writes use no context: a peer that stops reading is cut by CloseNow (queue
// overflow, heartbeat timeout, Server.Close deadline), which unblocks them.
func (s *Socket) writeLoop() {
	defer close(s.writerDone)
	var spare []*Packet
	for {
		select {
		case <-s.wake:
			spare = s.flush(spare)
		case <-s.quit:
			s.end(spare)
			return
		}
	}
}

// flush writes what is queued and returns the slice for reuse.
func (s *Socket) flush(spare []*Packet) []*Packet {
	s.mu.Lock()
	batch := s.queue
	s.queue = spare
	s.mu.Unlock()
	for i, p := range batch {
		if err := s.conn.Write(context.Background(), websocket.MessageText, p.frame); err != nil {
			s.closeWith(ReasonTransportError, closeAbort, 0)
			break
		}
		batch[i] = nil
	}
	clear(batch)
	if cap(batch) > maxSpare {
		return nil
	}
	return batch[:0]
}

func (s *Socket) end(spare []*Packet) {
	switch s.mode {
	case closeAbort:
		s.conn.CloseNow()
		return
	case closeGraceful:
		s.flush(spare)
		s.conn.Write(context.Background(), websocket.MessageText, []byte(frameDisconnect))
	case closeFrame:
		s.flush(spare)
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
