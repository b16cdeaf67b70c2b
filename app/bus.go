package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/session/redisstore"
	"github.com/skiffhq/skiff/realtime"
	"github.com/skiffhq/skiff/realtime/natsbus"
	"github.com/skiffhq/skiff/realtime/redisbus"
)

// Connect opens what opts' adapter names ask for and the embedding API
// does not link: the realtime bus of Sockets.Adapter (redis or nats) into
// Sockets.Bus, and the Redis session store of Session.Adapter into
// Session.Store. A bus or store already set is kept; nothing is opened
// for what is disabled. skiff.New takes both over. A bus never fails
// because its server is unreachable (the instance starts alone and joins
// the others when the bus is up); the session store does. On error
// nothing is left open.
func Connect(ctx context.Context, opts *skiff.Options) error {
	if !opts.Sockets.Disabled && opts.Sockets.Bus == nil {
		bus, err := openBus(opts.Sockets)
		if err != nil {
			return err
		}
		opts.Sockets.Bus = bus
	}
	so := opts.Session
	if so.Disabled || so.Store != nil {
		return nil
	}
	switch strings.ToLower(so.Adapter) {
	case "redis", "connect-redis", "@sailshq/connect-redis":
		if so.URL == "" {
			return closeBus(opts, errors.New("session: the redis adapter needs a url (redis://host:6379)"))
		}
		s, err := redisstore.Open(ctx, so.URL, so.Prefix)
		if err != nil {
			return closeBus(opts, err)
		}
		opts.Session.Store = s
	}
	return nil
}

// closeBus closes the bus Connect opened, after err.
func closeBus(opts *skiff.Options, err error) error {
	if opts.Sockets.Bus != nil {
		_ = opts.Sockets.Bus.Close()
		opts.Sockets.Bus = nil
	}
	return err
}

// openBus returns the bus so names, nil for a single instance (or a name
// skiff.New judges). It fails on a malformed URL.
func openBus(so skiff.Sockets) (realtime.Bus, error) {
	switch so.Adapter {
	case "redis", "socket.io-redis", "@sailshq/socket.io-redis":
		url := so.URL
		if url == "" {
			url = "redis://127.0.0.1:6379"
		}
		if !strings.HasPrefix(url, "redis://") && !strings.HasPrefix(url, "rediss://") {
			return nil, fmt.Errorf("sockets.url: %q is not a redis:// URL (sockets.adapter is %s)", url, so.Adapter)
		}
		b, err := redisbus.New(redisbus.Config{URL: url, Prefix: so.Prefix})
		if err != nil {
			return nil, fmt.Errorf("sockets: %w", err)
		}
		return b, nil
	case "nats":
		url := so.URL
		if url == "" {
			url = "nats://127.0.0.1:4222"
		}
		if !strings.HasPrefix(url, "nats://") && !strings.HasPrefix(url, "tls://") {
			return nil, fmt.Errorf("sockets.url: %q is not a nats:// URL (sockets.adapter is nats)", url)
		}
		b, err := natsbus.New(natsbus.Config{URL: url, Prefix: so.Prefix})
		if err != nil {
			return nil, fmt.Errorf("sockets: %w", err)
		}
		return b, nil
	}
	return nil, nil
}
