package socketio

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"runtime"
	"sync"

	"github.com/coder/websocket"
)

// Server is a WebSocket-only Engine.IO/Socket.IO endpoint. Mount it at
// "/socket.io/" (the client's path plus a trailing slash). All methods are
// safe for concurrent use.
type Server struct {
	opts Options

	mu      sync.RWMutex
	sockets map[string]*Socket
	perIP   map[string]int // open sockets and upgrades under way, by client IP
	closed  bool
	wg      sync.WaitGroup // one per socket reader (ServeHTTP), running writer and flusher
	batches sync.Pool      // of *[]byte: the bytes of a batch being written
	flush   flusher
}

// NewServer returns a Server; zero Options fields take the Default values.
func NewServer(o Options) *Server {
	srv := &Server{opts: o.withDefaults(), sockets: make(map[string]*Socket), perIP: make(map[string]int)}
	srv.flush = newFlusher(srv.wg.Go, runtime.GOMAXPROCS(0))
	srv.batches.New = func() any {
		b := make([]byte, 0, 4<<10)
		return &b
	}
	return srv
}

// handshakeError is an engine.io HTTP error body.
type handshakeError struct {
	status  int
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Engine.IO handshake error codes (engine.io Server.errors).
const (
	codeUnknownTransport   = 0
	codeUnknownSID         = 1
	codeBadHandshakeMethod = 2
	codeBadRequest         = 3
	codeForbidden          = 4
	codeUnsupportedVersion = 5
)

// MessagePollingRefused is the message of the HTTP 400 answering a polling
// handshake.
const MessagePollingRefused = "Bad request: only the websocket transport is supported"

// MessageTooManyFromIP is the message of the HTTP 403 refusing a handshake
// from an address that already has Options.MaxPerIP sockets open.
const MessageTooManyFromIP = "Too many sockets from this address"

// ServeHTTP handles a handshake: a GET with EIO=3 or EIO=4 and
// transport=websocket is upgraded, its reader goroutine is started (the
// writer starts with the first packet to send), and ServeHTTP returns (the net/http goroutine and its large stack
// are released). Refusals are
// JSON bodies {"code":n,"message":"..."} as engine.io sends them: polling
// (400, code 3), unknown transport (400, code 0), a sid (400, code 1: no
// session can be resumed), a method other than GET (400, code 2), a missing
// or unsupported EIO (400, code 5), Options.Allow refusing (403, code 4), and
// a closed Server (503, code 3).
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	eio, herr := srv.checkHandshake(r)
	if herr != nil {
		writeHandshakeError(w, herr)
		return
	}
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		writeHandshakeError(w, &handshakeError{status: http.StatusServiceUnavailable, Code: codeBadRequest, Message: "Server is shutting down"})
		return
	}
	ip := clientIP(r)
	if limit := srv.opts.MaxPerIP; limit > 0 && srv.perIP[ip] >= limit {
		srv.mu.Unlock()
		writeHandshakeError(w, &handshakeError{status: http.StatusForbidden, Code: codeForbidden, Message: MessageTooManyFromIP})
		return
	}
	srv.perIP[ip]++
	srv.wg.Add(1) // for the reader, or until the upgrade fails
	srv.mu.Unlock()

	// The socket is allocated first: its batchWriter, part of it, is set up
	// by the upgrade's Hijack.
	s := new(Socket)
	var rw http.ResponseWriter = w
	sb := withSmallBuffers(w, &srv.batches, &s.out)
	if sb != nil {
		rw = sb
	}
	conn, err := websocket.Accept(rw, r, &websocket.AcceptOptions{
		// Origin policy belongs to Options.Allow (the caller's configuration).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		srv.release(ip)
		srv.wg.Done()
		srv.opts.Logger.Debug("socket.io websocket upgrade", "remote", r.RemoteAddr, "err", err)
		return // Accept has answered the request
	}
	conn.SetReadLimit(srv.opts.MaxMessageBytes)

	s.init(srv, conn, r, eio, ip)
	if !srv.register(s) {
		srv.release(ip)
		srv.wg.Done()
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	go func() { // counted by the Add above
		defer srv.wg.Done()
		s.start()
		s.readLoop()
		s.finish()
	}()
}

func (srv *Server) checkHandshake(r *http.Request) (int, *handshakeError) {
	if r.Method != http.MethodGet {
		return 0, &handshakeError{status: http.StatusBadRequest, Code: codeBadHandshakeMethod, Message: "Bad handshake method"}
	}
	q := r.URL.Query()
	var eio int
	switch q.Get("EIO") {
	case "3":
		eio = 3
	case "4":
		eio = 4
	default:
		return 0, &handshakeError{status: http.StatusBadRequest, Code: codeUnsupportedVersion, Message: "Unsupported protocol version"}
	}
	switch q.Get("transport") {
	case "websocket":
	case "polling":
		return 0, &handshakeError{status: http.StatusBadRequest, Code: codeBadRequest, Message: MessagePollingRefused}
	default:
		return 0, &handshakeError{status: http.StatusBadRequest, Code: codeUnknownTransport, Message: "Transport unknown"}
	}
	if q.Get("sid") != "" {
		return 0, &handshakeError{status: http.StatusBadRequest, Code: codeUnknownSID, Message: "Session ID unknown"}
	}
	if srv.opts.Allow != nil {
		if err := srv.opts.Allow(r); err != nil {
			return 0, &handshakeError{status: http.StatusForbidden, Code: codeForbidden, Message: err.Error()}
		}
	}
	return eio, nil
}

func writeHandshakeError(w http.ResponseWriter, e *handshakeError) {
	b, _ := json.Marshal(e) // an int and a string
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.status)
	w.Write(b)
}

func (srv *Server) register(s *Socket) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return false
	}
	srv.sockets[s.id] = s
	return true
}

func (srv *Server) unregister(s *Socket) {
	srv.mu.Lock()
	delete(srv.sockets, s.id)
	srv.releaseLocked(s.ip)
	srv.mu.Unlock()
}

func (srv *Server) release(ip string) {
	srv.mu.Lock()
	srv.releaseLocked(ip)
	srv.mu.Unlock()
}

func (srv *Server) releaseLocked(ip string) {
	if srv.perIP[ip] <= 1 {
		delete(srv.perIP, ip) // keep the map as small as the set of clients
		return
	}
	srv.perIP[ip]--
}

// clientIP is the address the per-IP cap counts: the peer of the TCP
// connection. Forwarded headers are not trusted: any client could set them
// to escape the cap.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Socket returns the open socket with that id, or nil.
func (srv *Server) Socket(id string) *Socket {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	return srv.sockets[id]
}

// Count returns the number of open sockets, including EIO=4 sockets that
// have not yet joined the default namespace.
func (srv *Server) Count() int {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	return len(srv.sockets)
}

// Close refuses new handshakes (503), closes every socket with a WebSocket
// close frame (1001 going away, after flushing what is queued; no Socket.IO
// DISCONNECT, so clients may reconnect elsewhere; OnDisconnect gets
// ReasonServerShutdown) and waits for all socket goroutines to return. When
// ctx ends first, the remaining connections are dropped without a close
// handshake, Close still waits for the goroutines (which then return
// promptly unless an Options callback blocks) and returns ctx.Err(). A
// second call returns ErrServerClosed.
func (srv *Server) Close(ctx context.Context) error {
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		return ErrServerClosed
	}
	srv.closed = true
	all := make([]*Socket, 0, len(srv.sockets))
	for _, s := range srv.sockets {
		all = append(all, s)
	}
	srv.mu.Unlock()

	for _, s := range all {
		s.closeWith(ReasonServerShutdown, closeFrame, websocket.StatusGoingAway)
	}
	done := make(chan struct{})
	go func() {
		srv.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	for _, s := range all {
		s.conn.CloseNow()
	}
	<-done
	return ctx.Err()
}
