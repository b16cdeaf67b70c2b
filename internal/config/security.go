package config

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/skiffhq/skiff/settings"
)

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// sessionSettings checks and types the session section.
func sessionSettings(src string, m map[string]any) (settings.Session, error) {
	bad := func(key, want string) error {
		return fmt.Errorf("%s: session.%s must be %s, not %s: %w", src, key, want, describe(m[key]), ErrInvalid)
	}
	s := settings.Session{Name: str(m, "name"), Secret: str(m, "secret"), Prefix: str(m, "prefix"), Datastore: str(m, "datastore")}
	if s.Name == "" {
		s.Name = str(m, "key")
	}
	for _, k := range []string{"key", "adapter", "url", "host", "prefix", "datastore", "pass", "password"} {
		if _, ok := m[k].(string); m[k] != nil && !ok {
			return s, bad(k, "a string")
		}
	}
	switch a := str(m, "adapter"); a {
	case "", "memory":
	case "redis", "connect-redis", "@sailshq/connect-redis":
		s.Adapter = "redis"
	case "datastore":
		s.Adapter = a
	case "mongo", "connect-mongo":
		return s, fmt.Errorf("%s: session.adapter %q: MongoDB session stores are not supported (use memory, redis or datastore): %w", src, a, ErrUnsupported)
	default:
		return s, fmt.Errorf("%s: session.adapter must be memory, redis or datastore, not %q: %w", src, a, ErrInvalid)
	}
	s.URL = str(m, "url")
	if s.URL == "" && s.Adapter == "redis" {
		host := str(m, "host")
		if host == "" {
			host = "127.0.0.1"
		}
		port := "6379"
		if v, ok := m["port"]; ok && v != nil {
			f, isNum := v.(float64)
			if !isNum || f != math.Trunc(f) || f < 1 || f > 65535 {
				return s, bad("port", "a port number")
			}
			port = strconv.Itoa(int(f))
		}
		u := &url.URL{Scheme: "redis", Host: host + ":" + port}
		pass := str(m, "pass")
		if pass == "" {
			pass = str(m, "password")
		}
		if pass != "" {
			user := str(m, "user")
			if user == "" {
				user = str(m, "username")
			}
			u.User = url.UserPassword(user, pass)
		}
		if v, ok := m["db"]; ok && v != nil {
			f, isNum := v.(float64)
			if !isNum || f != math.Trunc(f) || f < 0 {
				return s, bad("db", "a whole number")
			}
			u.Path = "/" + strconv.Itoa(int(f))
		}
		s.URL = u.String()
	}
	if v, ok := m["saveUninitialized"]; ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return s, bad("saveUninitialized", "true or false")
		}
		s.SaveUninitialized = &b
	}
	c, _ := m["cookie"].(map[string]any)
	if v, ok := c["maxAge"]; ok && v != nil {
		f, isNum := v.(float64)
		if !isNum || f < 0 {
			return s, fmt.Errorf("%s: session.cookie.maxAge must be a number of milliseconds, not %s: %w", src, describe(v), ErrInvalid)
		}
		s.MaxAge = time.Duration(f) * time.Millisecond
	}
	s.Path, s.Domain = str(c, "path"), str(c, "domain")
	s.Secure, _ = c["secure"].(bool)
	if v, ok := c["httpOnly"]; ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return s, fmt.Errorf("%s: session.cookie.httpOnly must be true or false, not %s: %w", src, describe(v), ErrInvalid)
		}
		s.HTTPOnly = &b
	}
	switch v := c["sameSite"].(type) {
	case nil:
	case bool:
		// false: no attribute at all (unset, the session's default, Lax,
		// applies).
		s.SameSite = http.SameSiteDefaultMode
		if v {
			s.SameSite = http.SameSiteStrictMode
		}
	case string:
		switch strings.ToLower(v) {
		case "strict":
			s.SameSite = http.SameSiteStrictMode
		case "lax":
			s.SameSite = http.SameSiteLaxMode
		case "none":
			s.SameSite = http.SameSiteNoneMode
		default:
			return s, fmt.Errorf("%s: session.cookie.sameSite must be true, false, lax, strict or none, not %q: %w", src, v, ErrInvalid)
		}
	default:
		return s, fmt.Errorf("%s: session.cookie.sameSite must be true, false, lax, strict or none, not %s: %w", src, describe(v), ErrInvalid)
	}
	return s, nil
}

// duration reads a duration written as milliseconds or a Go duration
// string ("10s").
func duration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case float64:
		if x < 0 {
			return 0, fmt.Errorf("must not be negative: %w", ErrInvalid)
		}
		return time.Duration(x * float64(time.Millisecond)), nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil || d < 0 {
			return 0, fmt.Errorf("want milliseconds or a duration such as \"10s\", not %q: %w", x, ErrInvalid)
		}
		return d, nil
	}
	return 0, fmt.Errorf("want milliseconds or a duration such as \"10s\", not %s: %w", describe(v), ErrInvalid)
}

// serverSettings reads the http section's server limits.
func serverSettings(src string, m map[string]any) (settings.Server, error) {
	var s settings.Server
	for k, p := range map[string]*time.Duration{
		"readHeaderTimeout": &s.ReadHeaderTimeout, "readTimeout": &s.ReadTimeout,
		"writeTimeout": &s.WriteTimeout, "idleTimeout": &s.IdleTimeout,
	} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		d, err := duration(v)
		if err != nil {
			return s, fmt.Errorf("%s: http.%s: %w", src, k, err)
		}
		*p = d
	}
	if v, ok := m["maxHeaderBytes"]; ok && v != nil {
		n, err := parseSize(v)
		if err != nil {
			return s, fmt.Errorf("%s: http.maxHeaderBytes: %w", src, err)
		}
		s.MaxHeaderBytes = int(min(n, math.MaxInt32))
	}
	return s, nil
}

// socketSettings reads the sockets section: onlyAllowOrigins,
// maxConnectionsPerIP, the transport and the bus.
func socketSettings(src string, m map[string]any) (settings.Sockets, error) {
	var s settings.Sockets
	switch v := m["onlyAllowOrigins"].(type) {
	case nil:
	case []any:
		for _, o := range v {
			str, ok := o.(string)
			if !ok {
				return s, fmt.Errorf("%s: sockets.onlyAllowOrigins must be a list of origins, not a list holding %s: %w", src, describe(o), ErrInvalid)
			}
			s.OnlyAllowOrigins = append(s.OnlyAllowOrigins, str)
		}
	default:
		return s, fmt.Errorf("%s: sockets.onlyAllowOrigins must be a list of origins, not %s: %w", src, describe(v), ErrInvalid)
	}
	if v, ok := m["maxConnectionsPerIP"]; ok && v != nil {
		f, _ := v.(float64) // the schema made it a number
		if f != math.Trunc(f) || f < -1 || f > math.MaxInt32 {
			return s, fmt.Errorf("%s: sockets.maxConnectionsPerIP must be a whole number (-1 for no cap), not %v: %w", src, f, ErrInvalid)
		}
		s.MaxConnectionsPerIP = int(f)
	}
	if err := socketsConfig(m, &s); err != nil {
		return s, fmt.Errorf("%s: %w: %w", src, err, ErrInvalid)
	}
	return s, nil
}

// socketsConfig reads the transport and bus keys of the sockets section
// into so; the audit judges the keys that only make sense for Node (a
// warning or an error).
func socketsConfig(c map[string]any, so *settings.Sockets) error {
	if v, ok := c["transports"]; ok {
		list, _ := v.([]any)
		websocket := false
		for _, t := range list {
			websocket = websocket || t == "websocket"
		}
		if !websocket {
			return fmt.Errorf("sockets.transports must include \"websocket\": it is the only transport Skiff serves")
		}
	}
	ms := func(key string, dst *time.Duration) error {
		v, ok := c[key]
		if !ok {
			return nil
		}
		f, ok := v.(float64)
		if !ok || f <= 0 {
			return fmt.Errorf("sockets.%s must be a positive number of milliseconds", key)
		}
		*dst = time.Duration(f) * time.Millisecond
		return nil
	}
	if err := ms("pingInterval", &so.PingInterval); err != nil {
		return err
	}
	if err := ms("pingTimeout", &so.PingTimeout); err != nil {
		return err
	}
	if v, ok := c["grant3rdPartyCookie"]; ok {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("sockets.grant3rdPartyCookie must be true or false")
		}
		so.NoCookieRoute = !b
	}
	size, ok := c["maxHttpBufferSize"]
	if !ok {
		size, ok = c["maxBufferSize"] // the old name
	}
	if v := size; ok {
		f, ok := v.(float64)
		if !ok || f < 1 {
			return fmt.Errorf("sockets.maxHttpBufferSize must be a positive number of bytes")
		}
		so.MaxMessageBytes = int64(f)
	}
	if err := busConfig(c, so); err != nil {
		return err
	}
	return nil
}

// busConfig reads the adapter keys of the sockets section: adapter, then
// url, or Sails' host, port, pass and db for Redis, and the channel prefix
// (adapterOptions.key, or key).
func busConfig(c map[string]any, so *settings.Sockets) error {
	if v, ok := c["adapter"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("sockets.adapter must be a name (memory, redis or nats)")
		}
		so.Adapter = s
	}
	str := func(key string) (string, error) {
		v, ok := c[key]
		if !ok || v == nil {
			return "", nil
		}
		switch v := v.(type) {
		case string:
			return v, nil
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64), nil
		}
		return "", fmt.Errorf("sockets.%s must be a string", key)
	}
	var err error
	if so.URL, err = str("url"); err != nil {
		return err
	}
	if so.Prefix, err = str("key"); err != nil {
		return err
	}
	if ao, ok := c["adapterOptions"].(map[string]any); ok {
		if k, ok := ao["key"].(string); ok {
			so.Prefix = k
		}
	}
	host, err := str("host")
	if err != nil {
		return err
	}
	port, err := str("port")
	if err != nil {
		return err
	}
	pass, err := str("pass")
	if err != nil {
		return err
	}
	db, err := str("db")
	if err != nil {
		return err
	}
	if db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return fmt.Errorf("sockets.db must be a non-negative whole number, not %q", db)
		}
	}
	if so.URL == "" && (host != "" || port != "" || pass != "" || db != "") {
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "6379"
		}
		u := url.URL{Scheme: "redis", Host: net.JoinHostPort(host, port)}
		if pass != "" {
			u.User = url.UserPassword("", pass)
		}
		if db != "" {
			u.Path = "/" + db
		}
		so.URL = u.String()
	}
	return nil
}
