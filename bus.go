package skiff

import (
	"fmt"
	"io"

	"github.com/skiffhq/skiff/realtime"
)

// checkBus returns the bus Options.Sockets holds, nil for a single
// instance. The embedding API knows the adapter names only to say what is
// missing: package app opens the bus they name (the Redis and NATS
// clients are linked there).
func checkBus(so Sockets) (realtime.Bus, error) {
	if so.Bus != nil {
		return so.Bus, nil
	}
	switch so.Adapter {
	case "", "memory", "socket.io-adapter-memory":
		return nil, nil
	case "redis", "socket.io-redis", "@sailshq/socket.io-redis", "nats":
		return nil, fmt.Errorf("sockets.adapter: %s needs Sockets.Bus set to the bus (app.Load and app.Connect open it from sockets.url; or redisbus.New, natsbus.New)", so.Adapter)
	}
	return nil, fmt.Errorf("sockets.adapter: unknown adapter %q (use memory, redis or nats)", so.Adapter)
}

// ownedClosers are what New takes over from opts: the bus (unless sockets
// are off) and a session store that can be closed.
func ownedClosers(opts *Options) []io.Closer {
	var out []io.Closer
	if opts.Sockets.Bus != nil && !opts.Sockets.Disabled {
		out = append(out, opts.Sockets.Bus)
	}
	if c := storeCloser(opts.Session); c != nil {
		out = append(out, c)
	}
	return out
}

// storeCloser is s.Store when it can be closed, else nil.
func storeCloser(s SessionSettings) io.Closer {
	if s.Disabled {
		return nil
	}
	c, _ := s.Store.(io.Closer)
	return c
}
