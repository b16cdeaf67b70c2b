package socketio

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// closeMode says how the writer ends the connection once a close is decided.
type closeMode uint8

const (
	closeGraceful closeMode = iota // flush, Socket.IO DISCONNECT, close handshake
	closeFrame                     // flush, close handshake
	closeAbort                     // drop the TCP connection now
)

// Socket is one client connection on the default namespace. Its methods are
// safe for concurrent use; sending never blocks.
type Socket struct {
	// The fields a delivery touches (Send, then a flusher's flush) come
	// first and fill two 64-byte cache lines, the Socket's part and the
	// batchWriter's: in a fan-out each socket's memory is cold, and every
	// line is a miss. The struct's size keeps the lines aligned, as one
	// 128-byte pair that CPUs fetch together (see TestSocketHotLine).
	srv *Server

	// Outgoing queue, drained in batches by the Server's flushers, or by a
	// writer goroutine of the socket's own while a write would block or a
	// close is to be carried out: an idle socket holds no writer stack.
	mu    sync.Mutex
	queue []*Packet
	// writing (under mu) is set while the socket is in the flushers' dirty
	// list, being flushed, or served by its writer goroutine: whoever
	// holds it writes the queue, and sees closing.
	writing bool
	closing bool // under mu: no more sends accepted; the writer ends the connection
	// joining is set (under mu) while OnConnect runs: what is sent then
	// waits in early, to follow the connect packet.
	joining bool
	// one backs queue while it holds a single packet, the usual case below
	// saturation, so that queueing and flushing it touch no other line.
	one [1]*Packet
	_   [8]byte

	out batchWriter // under conn's write buffer

	id   string
	req  *http.Request
	ip   string // counted against Options.MaxPerIP until unregistered
	eio  int
	conn *websocket.Conn

	ctx    context.Context
	cancel context.CancelFunc

	early []*Packet
	// Set under mu before closing, read by the writer once it sees closing.
	reason string
	mode   closeMode
	code   websocket.StatusCode

	closeOnce  sync.Once
	writerDone chan struct{} // closed when the writer ended the connection

	connected atomic.Bool // joined "/" (OnConnect was called)
	auth      json.RawMessage

	// Heartbeat: one runtime timer, no goroutine while idle.
	hbMu      sync.Mutex
	hbTimer   *time.Timer
	hbWaiting bool // EIO=4: a ping is out, no pong yet

	// connectTimer closes an EIO=4 socket that does not join "/" in time;
	// only the reader goroutine (start, join, finish) touches the field.
	connectTimer *time.Timer

	// Pads the struct to 384 bytes (3 × 128, an allocation size class of
	// its own), so that every socket starts a 128-byte pair of lines.
	_ [32]byte
}

// init sets up s, whose out the upgrade set up, for conn.
func (s *Socket) init(srv *Server, conn *websocket.Conn, r *http.Request, eio int, ip string) {
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	s.srv = srv
	s.id = newID()
	s.req = keptRequest(r)
	s.ip = ip
	s.eio = eio
	s.conn = conn
	s.writerDone = make(chan struct{})
	s.queue = s.one[:0]
}

// upgradeHeaders only served the WebSocket upgrade, which is over when a
// socket is made: a socket does not keep them (with 10,000 sockets, their
// map and values weigh megabytes).
var upgradeHeaders = map[string]bool{
	"Upgrade": true, "Connection": true, "Sec-Websocket-Key": true, "Sec-Websocket-Version": true,
	"Sec-Websocket-Extensions": true, "Sec-Websocket-Protocol": true,
}

// keptRequest returns what a socket keeps of its handshake request: a copy
// of r without its body and the upgrade's own headers, with the same
// context, URL and other headers (cookies, origin, what sails.io.js sends).
func keptRequest(r *http.Request) *http.Request {
	k := r.WithContext(r.Context())
	k.Header = nil
	for name, v := range r.Header {
		if upgradeHeaders[name] {
			continue
		}
		if k.Header == nil {
			k.Header = http.Header{}
		}
		k.Header[name] = v
	}
	if k.Header == nil {
		k.Header = http.Header{}
	}
	k.Body, k.GetBody = http.NoBody, nil
	return k
}

// ID returns the socket id: 20 URL-safe base64 characters, also sent as the
// Engine.IO sid and (EIO=4) the Socket.IO sid.
func (s *Socket) ID() string { return s.id }

// Request returns the handshake request (headers, cookies, query,
// RemoteAddr), less the upgrade's own headers (Upgrade, Connection,
// Sec-WebSocket-*). Its body is gone and it must not be modified.
func (s *Socket) Request() *http.Request { return s.req }

// Protocol returns the Engine.IO protocol version: 3 or 4.
func (s *Socket) Protocol() int { return s.eio }

// Auth returns the payload of the EIO=4 client's CONNECT packet (the
// socket.io-client `auth` option), or nil. It is set before OnConnect runs
// and never changes afterwards.
func (s *Socket) Auth() json.RawMessage { return s.auth }

// Context returns a context cancelled as soon as the socket starts closing.
// It carries the values of the handshake request's context.
func (s *Socket) Context() context.Context { return s.ctx }

// Emit JSON-encodes an event on the default namespace and queues it. It
// never blocks; it returns ErrClosed, ErrQueueFull (the socket is then
// disconnected) or the wrapped json.Marshal error.
func (s *Socket) Emit(event string, args ...any) error {
	p, err := EncodeEvent(event, args...)
	if err != nil {
		return err
	}
	return s.Send(p)
}

// EmitRaw queues an event whose single argument is payload, which must be
// valid JSON (else an error wrapping ErrMalformed). It never blocks. To send
// the same event to many sockets, encode it once with EncodeEventRaw and call
// Send on each.
func (s *Socket) EmitRaw(event string, payload json.RawMessage) error {
	p, err := EncodeEventRaw(event, payload)
	if err != nil {
		return err
	}
	return s.Send(p)
}

// Send queues a pre-encoded packet; the same *Packet may be sent to any
// number of sockets of either protocol version. It never blocks. When the
// queue holds Options.SendQueue packets the socket is disconnected with
// ReasonQueueFull and Send returns ErrQueueFull; a closing socket returns
// ErrClosed.
func (s *Socket) Send(p *Packet) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.joining {
		s.early = append(s.early, p)
		s.mu.Unlock()
		return nil
	}
	return s.queueLocked(p)
}

// queueLocked queues ps, with mu held, and unlocks it.
func (s *Socket) queueLocked(ps ...*Packet) error {
	if len(s.queue)+len(ps) > s.srv.opts.SendQueue {
		s.mu.Unlock()
		s.closeWith(ReasonQueueFull, closeAbort, 0)
		return ErrQueueFull
	}
	s.queue = append(s.queue, ps...)
	start := !s.writing
	s.writing = true
	s.mu.Unlock()
	if start {
		s.srv.flush.add(s)
	}
	return nil
}

func (s *Socket) sendFrame(b []byte) error { return s.Send(newPacket(b)) }

// Disconnect flushes what is queued, sends the Socket.IO DISCONNECT packet
// ("41", the client reports "io server disconnect" and does not reconnect)
// and closes the connection. OnDisconnect gets ReasonServerDisconnect. It
// returns ErrClosed if the socket was already closing.
func (s *Socket) Disconnect() error {
	if !s.closeWith(ReasonServerDisconnect, closeGraceful, websocket.StatusNormalClosure) {
		return ErrClosed
	}
	return nil
}

// closeWith decides the socket's end; the first decision wins (its reason is
// reported), but an abort always drops the connection at once, which also
// unblocks a writer stuck on a peer that stopped reading. It reports whether
// this call made the decision.
func (s *Socket) closeWith(reason string, mode closeMode, code websocket.StatusCode) bool {
	first := false
	s.closeOnce.Do(func() {
		first = true
		s.mu.Lock()
		s.reason, s.mode, s.code = reason, mode, code
		s.closing = true
		start := !s.writing
		s.writing = true
		s.mu.Unlock()
		if start { // else the flusher or writer sees closing next
			s.srv.wg.Go(s.writeLoop)
		}
		s.cancel()
	})
	if mode == closeAbort {
		s.conn.CloseNow()
	}
	return first
}

// start sends the open packet and, for EIO=3, the implicit connection to
// "/", and arms the heartbeat.
func (s *Socket) start() {
	o := &s.srv.opts
	s.sendFrame(openFrame(s.eio, s.id, o))
	s.hbMu.Lock() // the timer's function may run before AfterFunc returns
	if s.eio == 3 {
		s.hbTimer = time.AfterFunc(o.PingInterval+o.PingTimeout, func() {
			s.closeWith(ReasonPingTimeout, closeAbort, 0)
		})
	} else {
		s.hbTimer = time.AfterFunc(o.PingInterval, s.heartbeat)
		// Set before the reader starts, so join and finish can stop it.
		s.connectTimer = time.AfterFunc(o.ConnectTimeout, func() {
			if !s.connected.Load() {
				s.closeWith(ReasonTransportClose, closeFrame, websocket.StatusPolicyViolation)
			}
		})
	}
	s.hbMu.Unlock()
	if s.eio == 3 {
		s.join(nil)
	}
}

// join connects the socket to the default namespace. OnConnect runs
// before the client is told it is connected, so that whatever is sent to
// the socket once the client knows it is connected (a broadcast to the
// rooms the socket's hub registration makes it reachable by) reaches it;
// what is sent while OnConnect runs follows the connect packet.
func (s *Socket) join(auth json.RawMessage) {
	if s.connectTimer != nil {
		s.connectTimer.Stop()
		s.connectTimer = nil // an idle socket keeps only its heartbeat timer
	}
	s.auth = auth
	s.mu.Lock()
	s.joining = true
	s.mu.Unlock()
	s.connected.Store(true)
	if f := s.srv.opts.OnConnect; f != nil {
		f(s)
	}
	s.mu.Lock()
	s.joining = false
	early := s.early
	s.early = nil
	if s.closing {
		s.mu.Unlock()
		return
	}
	_ = s.queueLocked(append([]*Packet{newPacket(connectFrame(s.eio, s.id))}, early...)...)
}

// heartbeat runs on the EIO=4 timer: it pings, or closes the socket when the
// previous ping went unanswered. (A client that never joins "/" is closed by
// connectTimer instead.)
func (s *Socket) heartbeat() {
	o := &s.srv.opts
	s.hbMu.Lock()
	if s.hbWaiting {
		s.hbMu.Unlock()
		s.closeWith(ReasonPingTimeout, closeAbort, 0)
		return
	}
	s.hbWaiting = true
	s.hbTimer.Reset(o.PingTimeout)
	s.hbMu.Unlock()
	s.sendFrame([]byte(framePing))
}

// alive records client activity: a pong (EIO=4) schedules the next ping;
// any packet (EIO=3, like engine.io 3) postpones the timeout.
func (s *Socket) alive(t EngineType) {
	o := &s.srv.opts
	if s.eio == 3 {
		s.hbTimer.Reset(o.PingInterval + o.PingTimeout)
		return
	}
	if t != EnginePong {
		return
	}
	s.hbMu.Lock()
	if s.hbWaiting {
		s.hbWaiting = false
		s.hbTimer.Reset(o.PingInterval)
	}
	s.hbMu.Unlock()
}

// finish runs on the reader goroutine after the read loop ended.
func (s *Socket) finish() {
	<-s.writerDone
	s.hbTimer.Stop()
	if s.connectTimer != nil {
		s.connectTimer.Stop()
	}
	s.srv.unregister(s)
	if s.connected.Load() {
		if f := s.srv.opts.OnDisconnect; f != nil {
			f(s, s.reason)
		}
	}
}

// atomicFlag is set once.
type atomicFlag struct{ v atomic.Bool }

// set reports whether this call set the flag.
func (f *atomicFlag) set() bool { return f.v.CompareAndSwap(false, true) }
