package config

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SessionSettings is the session section, checked and typed.
type SessionSettings struct {
	// Name is the cookie name (name, or the legacy key); "" for the default.
	Name string
	// Secret signs the cookie; "" when unset.
	Secret string
	// Adapter is "memory", "redis" or "datastore" ("" for memory);
	// connect-redis' package names read as redis.
	Adapter string
	// URL is the Redis server: url, or built from host, port, pass
	// (password) and db.
	URL string
	// Prefix is the Redis key prefix; Datastore the datastore of the
	// datastore adapter.
	Prefix, Datastore string
	// MaxAge is cookie.maxAge (milliseconds in the file); 0 when unset.
	MaxAge time.Duration
	// Path, Domain, Secure, HTTPOnly (nil: default) and SameSite are the
	// cookie's attributes.
	Path, Domain string
	Secure       bool
	HTTPOnly     *bool
	SameSite     http.SameSite
	// SaveUninitialized is saveUninitialized; nil when unset (true).
	SaveUninitialized *bool
}

// ServerSettings are the http section's server limits; zero values mean
// the server's defaults.
type ServerSettings struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxHeaderBytes                                            int
}

// SocketSettings are the sockets keys the security checks need.
type SocketSettings struct {
	// OnlyAllowOrigins is sockets.onlyAllowOrigins.
	OnlyAllowOrigins []string
	// MaxConnectionsPerIP is sockets.maxConnectionsPerIP, 0 when unset.
	MaxConnectionsPerIP int
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// sessionSettings checks and types the session section.
func sessionSettings(src string, m map[string]any) (SessionSettings, error) {
	bad := func(key, want string) error {
		return fmt.Errorf("%s: session.%s must be %s, not %s: %w", src, key, want, describe(m[key]), ErrInvalid)
	}
	s := SessionSettings{Name: str(m, "name"), Secret: str(m, "secret"), Prefix: str(m, "prefix"), Datastore: str(m, "datastore")}
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
func serverSettings(src string, m map[string]any) (ServerSettings, error) {
	var s ServerSettings
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

// socketSettings reads sockets.onlyAllowOrigins and maxConnectionsPerIP.
func socketSettings(src string, m map[string]any) (SocketSettings, error) {
	var s SocketSettings
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
	return s, nil
}
