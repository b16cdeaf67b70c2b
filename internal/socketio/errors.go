package socketio

import "errors"

var (
	// ErrClosed is returned when sending on a socket that is closed or closing.
	ErrClosed = errors.New("socketio: socket closed")
	// ErrQueueFull is returned when a socket's send queue is full; the socket
	// has been disconnected with ReasonQueueFull by the time it is returned.
	ErrQueueFull = errors.New("socketio: send queue full")
	// ErrAcked is returned by an ack function called more than once.
	ErrAcked = errors.New("socketio: ack already sent")
	// ErrMalformed wraps every decoding error of [DecodeFrame].
	ErrMalformed = errors.New("socketio: malformed packet")
	// ErrServerClosed is returned by Close when called twice.
	ErrServerClosed = errors.New("socketio: server closed")
)

// Disconnect reasons passed to Options.OnDisconnect. They follow the names
// socket.io uses where one exists.
const (
	ReasonTransportClose   = "transport close"             // the client closed the WebSocket or sent an Engine.IO close
	ReasonTransportError   = "transport error"             // read error on the connection
	ReasonPingTimeout      = "ping timeout"                // the client stopped answering heartbeats
	ReasonClientDisconnect = "client namespace disconnect" // the client sent a Socket.IO DISCONNECT for "/"
	ReasonServerDisconnect = "server namespace disconnect" // Socket.Disconnect was called
	ReasonServerShutdown   = "server shutting down"        // Server.Close
	ReasonParseError       = "parse error"                 // malformed or unsupported (binary) packet
	ReasonMessageTooBig    = "message too big"             // a frame exceeded Options.MaxMessageBytes
	ReasonQueueFull        = "send queue full"             // slow consumer: the send queue overflowed
)
