package socketio

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// Defaults applied by NewServer to zero Options fields. The heartbeat values
// are those of Sails (sails-hook-sockets), not of plain socket.io.
const (
	DefaultPingInterval = 25 * time.Second
	DefaultPingTimeout  = 60 * time.Second
	// DefaultConnectTimeout is socket.io's connectTimeout.
	DefaultConnectTimeout  = 45 * time.Second
	DefaultMaxMessageBytes = 1_000_000
	DefaultSendQueue       = 256
)

// Options configures a Server. Zero fields take the defaults above.
type Options struct {
	// PingInterval and PingTimeout drive heartbeats and are announced in the
	// open packet. EIO=4: the server pings every PingInterval and closes the
	// socket if no pong arrives within PingTimeout. EIO=3: the client pings;
	// the server closes the socket when nothing arrived for
	// PingInterval+PingTimeout.
	PingInterval, PingTimeout time.Duration
	// ConnectTimeout is how long an EIO=4 client has, from the open packet,
	// to join the default namespace (send CONNECT) before it is closed, as
	// socket.io's connectTimeout. It is independent of the heartbeat.
	ConnectTimeout time.Duration
	// MaxMessageBytes bounds one incoming WebSocket message; a larger one
	// closes that socket (ReasonMessageTooBig). It is announced to EIO=4
	// clients as maxPayload.
	MaxMessageBytes int64
	// SendQueue is the capacity of each socket's outgoing queue. Sending never
	// blocks: when the queue is full the socket is disconnected
	// (ReasonQueueFull) and the send returns ErrQueueFull.
	SendQueue int
	// Allow is called for every handshake before the WebSocket upgrade, on the
	// HTTP handler goroutine. A non-nil error refuses it with HTTP 403 and the
	// body {"code":4,"message":<err.Error()>}, as engine.io does for
	// allowRequest: the error text reaches the client. Origin checks live
	// here; the upgrade itself does not check Origin.
	Allow func(r *http.Request) error
	// MaxPerIP caps the sockets open (or being upgraded) from one client IP,
	// the TCP peer's; one more handshake gets HTTP 403. Zero or less: no cap.
	MaxPerIP int
	// OnConnect is called once the socket joined the default namespace
	// (right after the handshake for EIO=3, after the client's CONNECT for
	// EIO=4), on the socket's reader goroutine, before any OnEvent.
	OnConnect func(s *Socket)
	// OnEvent is called for each event the client emits on "/", on the
	// socket's reader goroutine: the next frame of that socket is not read
	// until it returns, so it must only block briefly (dispatch slow work to
	// other goroutines). ack is nil when the client wants no
	// acknowledgement; otherwise it may be called once, from any goroutine,
	// and returns ErrAcked on later calls, or ErrClosed/ErrQueueFull. args
	// alias a buffer that is not reused: they may be retained.
	OnEvent func(s *Socket, event string, args []json.RawMessage, ack func(args ...any) error)
	// OnDisconnect is called exactly once for each socket that OnConnect was
	// called for, after both of its goroutines stopped sending, on its reader
	// goroutine. reason is one of the Reason constants.
	OnDisconnect func(s *Socket, reason string)
	// Logger receives protocol errors at debug level. Nil discards.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = DefaultPingTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.SendQueue <= 0 {
		o.SendQueue = DefaultSendQueue
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
