package skiff

import (
	"fmt"
	"strings"

	"github.com/skiffhq/skiff/realtime"
	"github.com/skiffhq/skiff/realtime/natsbus"
	"github.com/skiffhq/skiff/realtime/redisbus"
)

// openBus returns the bus Options.Sockets asks for, nil for a single
// instance. It fails on an unknown adapter or a malformed URL, never
// because the server is unreachable: the instance then starts alone and
// joins the others when the bus is up.
func openBus(so Sockets) (realtime.Bus, error) {
	if so.Bus != nil {
		return so.Bus, nil
	}
	switch so.Adapter {
	case "", "memory", "socket.io-adapter-memory":
		return nil, nil
	case "redis", "socket.io-redis", "@sailshq/socket.io-redis":
		url := so.URL
		if url == "" {
			url = "redis://127.0.0.1:6379"
		}
		if !strings.HasPrefix(url, "redis://") && !strings.HasPrefix(url, "rediss://") {
			return nil, fmt.Errorf("sockets.url: %q is not a redis:// URL (sockets.adapter is %s)", url, so.Adapter)
		}
		b, err := redisbus.New(redisbus.Options{URL: url, Prefix: so.Prefix})
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
		b, err := natsbus.New(natsbus.Options{URL: url, Prefix: so.Prefix})
		if err != nil {
			return nil, fmt.Errorf("sockets: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("sockets.adapter: unknown adapter %q (use memory, redis or nats)", so.Adapter)
}
