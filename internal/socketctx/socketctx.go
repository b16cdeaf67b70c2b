// Package socketctx marks a request as a socket virtual request. The socket
// layer builds an *http.Request for each virtual request and sends it
// through the app's ordinary handler; the security middleware (sessions,
// CSRF, CORS) reads this mark where Sails' behaviour differs for sockets:
// CORS headers are skipped and a CSRF token is never granted over a socket.
package socketctx

import "context"

type key struct{}

// NewContext returns a copy of ctx marking its request as a virtual request
// of the socket with this id.
func NewContext(ctx context.Context, socketID string) context.Context {
	return context.WithValue(ctx, key{}, socketID)
}

// FromContext returns the socket id NewContext stored in ctx and whether
// the request is a socket virtual request at all.
func FromContext(ctx context.Context) (socketID string, ok bool) {
	socketID, ok = ctx.Value(key{}).(string)
	return socketID, ok
}
