// Package socketio is a WebSocket-only Engine.IO (v3 and v4) and Socket.IO
// (protocol v4 for EIO=3 clients such as socket.io-client 2.x and sails.io.js,
// protocol v5 for EIO=4 clients such as socket.io-client 3 and 4) server.
//
// It only speaks the wire protocol: the default namespace "/", events, acks,
// heartbeats and disconnection. It knows nothing of rooms, sessions or
// routing; callers plug those in through [Options] callbacks.
//
// HTTP long-polling and binary packets are not supported: polling handshakes
// are refused with HTTP 400, and a socket sending a binary frame or a binary
// Socket.IO packet is closed.
//
// Every socket owns one goroutine, the reader, started by
// [Server.ServeHTTP] after the WebSocket upgrade, which decodes frames and
// calls the Options callbacks. What is sent is queued (bounded) and written
// by a few flusher goroutines shared by all sockets, all that is queued for
// a socket with one write(2) that never blocks; a socket whose peer does not
// take its bytes at once (or that is closing) gets a writer goroutine of its
// own until its queue is empty. An idle socket holds the reader's small
// stack only. Heartbeats use one runtime timer per socket, not a goroutine.
// [Server.Close] stops and waits for every goroutine.
package socketio
