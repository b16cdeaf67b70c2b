// Package cors is Sails' CORS support (security.cors and the per-route cors
// option): it decides which Access-Control-* headers a response carries
// and answers preflight requests. It only ever adds headers: a request from
// an origin that is not allowed is still served, without CORS headers, and
// the browser does the blocking (Sails' set-headers). Socket virtual
// requests are not subject to CORS.
package cors

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/settings"
)

// Defaults of security.cors.
const (
	DefaultMethods = "GET,HEAD,PUT,PATCH,POST,DELETE"
	DefaultHeaders = "content-type"
)

// Config is one resolved CORS configuration: the global one, or a route's
// merged over it.
type Config struct {
	// AnyOrigin answers "Access-Control-Allow-Origin: *" (allowOrigins '*').
	AnyOrigin bool
	// Reflect echoes any request origin ('*' with credentials and
	// allowAnyOriginWithCredentialsUnsafe).
	Reflect bool
	// Origins are the allowed origins otherwise.
	Origins []string
	// Credentials sends "Access-Control-Allow-Credentials: true".
	Credentials bool
	// Methods, Headers and Expose are the values of
	// Access-Control-Allow-Methods, -Allow-Headers (empty: echo the
	// request's Access-Control-Request-Headers) and -Expose-Headers.
	Methods, Headers, Expose string
}

// Settings are the parsed security.cors section.
type Settings struct {
	// AllRoutes applies Global to every route without a cors option.
	AllRoutes bool
	// Global is security.cors itself.
	Global *Config
	// raw keeps the section with legacy names mapped, for route merges.
	raw map[string]any
}

var keys = []string{
	"allRoutes", "allowOrigins", "allowCredentials", "allowRequestMethods", "allowRequestHeaders",
	"allowResponseHeaders", "allowAnyOriginWithCredentialsUnsafe",
}

// legacy maps old key names to the ones Sails 1.x reads.
var legacy = map[string]string{
	"origin": "allowOrigins", "credentials": "allowCredentials", "headers": "allowRequestHeaders",
	"methods": "allowRequestMethods", "exposeHeaders": "allowResponseHeaders",
}

func defaults() map[string]any {
	return map[string]any{
		"allRoutes": false, "allowOrigins": "*", "allowCredentials": false,
		"allowRequestMethods": DefaultMethods, "allowRequestHeaders": DefaultHeaders,
		"allowResponseHeaders": "", "allowAnyOriginWithCredentialsUnsafe": false,
	}
}

// normalize copies m with legacy names mapped to current ones (exposeHeaders
// only when allowResponseHeaders is unset) and checks that every key is
// known.
func normalize(m map[string]any, where string) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k == "securityLevel" {
			return nil, fmt.Errorf("%s: securityLevel was removed in Sails 1.0", where)
		}
		if !slices.Contains(keys, k) {
			if _, ok := legacy[k]; !ok {
				return nil, fmt.Errorf("%s: unknown key %s (known: %s)", where, k, strings.Join(keys, ", "))
			}
		}
		out[k] = v
	}
	for old, cur := range legacy {
		v, ok := out[old]
		if !ok {
			continue
		}
		delete(out, old)
		if _, set := out[cur]; set && old == "exposeHeaders" {
			continue
		}
		out[cur] = v
	}
	return out, nil
}

// Decode reads the security.cors section as written (nil for none),
// legacy key names mapped, into its typed form: flags must be true or
// false, allowOrigins '*', a list of origins or a comma-separated string of
// them, and the header lists a string or a list of strings (a string
// stays one entry).
func Decode(section map[string]any) (settings.CORS, error) {
	const where = "security.cors"
	var c settings.CORS
	m, err := normalize(section, where)
	if err != nil {
		return c, err
	}
	for k, dst := range map[string]*bool{
		"allRoutes": &c.AllRoutes, "allowCredentials": &c.AllowCredentials,
		"allowAnyOriginWithCredentialsUnsafe": &c.AllowAnyOriginWithCredentialsUnsafe,
	} {
		v, ok := m[k]
		if !ok {
			continue
		}
		if *dst, ok = v.(bool); !ok {
			return c, fmt.Errorf("%s.%s must be true or false", where, k)
		}
	}
	for k, dst := range map[string]*[]string{
		"allowRequestMethods": &c.AllowRequestMethods, "allowRequestHeaders": &c.AllowRequestHeaders,
		"allowResponseHeaders": &c.AllowResponseHeaders,
	} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		joined, err := list(v, where+"."+k, nil)
		if err != nil {
			return c, err
		}
		*dst = []string{}
		if joined != "" {
			*dst = append(*dst, joined)
		}
	}
	if v, ok := m["allowOrigins"]; ok {
		switch o := v.(type) {
		case string:
			// Sails splits a comma-separated string (with a debug message).
			for _, s := range strings.Split(o, ",") {
				c.AllowOrigins = append(c.AllowOrigins, strings.TrimSpace(s))
			}
		case []any:
			c.AllowOrigins = []string{}
			for _, s := range o {
				str, ok := s.(string)
				if !ok {
					return c, fmt.Errorf("E_BAD_ORIGIN_CONFIG: %s.allowOrigins must be '*' or a list of origins (strings), not a list holding %T", where, s)
				}
				c.AllowOrigins = append(c.AllowOrigins, str)
			}
		default:
			return c, fmt.Errorf("E_BAD_ORIGIN_CONFIG: %s.allowOrigins must be '*' or a list of origins, not %T", where, v)
		}
	}
	return c, nil
}

// Parse resolves the security.cors settings with Sails' defaults and
// checks: every origin passes CheckOrigin, and any origin with
// AllowCredentials needs AllowAnyOriginWithCredentialsUnsafe.
func Parse(c settings.CORS) (*Settings, error) {
	raw := defaults()
	raw["allRoutes"] = c.AllRoutes
	raw["allowCredentials"] = c.AllowCredentials
	raw["allowAnyOriginWithCredentialsUnsafe"] = c.AllowAnyOriginWithCredentialsUnsafe
	if c.AllowOrigins != nil && !(len(c.AllowOrigins) == 1 && c.AllowOrigins[0] == "*") {
		raw["allowOrigins"] = c.AllowOrigins
	}
	for k, v := range map[string][]string{
		"allowRequestMethods": c.AllowRequestMethods, "allowRequestHeaders": c.AllowRequestHeaders,
		"allowResponseHeaders": c.AllowResponseHeaders,
	} {
		if v != nil {
			raw[k] = v
		}
	}
	g, err := resolve(raw, "security.cors")
	if err != nil {
		return nil, err
	}
	return &Settings{AllRoutes: c.AllRoutes, Global: g, raw: raw}, nil
}

// Route resolves a route's cors option against the settings: nil (no
// option) gives the global config when AllRoutes is on, else none; true the
// global config; false none; a string that single origin with the rest of
// the global config; a mapping its keys merged over the global ones. A nil
// Config means no CORS headers. where names the route in errors.
func (s *Settings) Route(opt any, where string) (*Config, error) {
	switch v := opt.(type) {
	case nil:
		if s.AllRoutes {
			return s.Global, nil
		}
		return nil, nil
	case bool:
		if v {
			return s.Global, nil
		}
		return nil, nil
	case string:
		if err := CheckOrigin(v); err != nil {
			return nil, fmt.Errorf("%s: cors: %w", where, err)
		}
		c := *s.Global
		c.AnyOrigin, c.Reflect, c.Origins = false, false, []string{v}
		return &c, nil
	case map[string]any:
		m, err := normalize(v, where+": cors")
		if err != nil {
			return nil, err
		}
		raw := make(map[string]any, len(s.raw))
		for k, val := range s.raw {
			raw[k] = val
		}
		for k, val := range m {
			raw[k] = val
		}
		return resolve(raw, where+": cors")
	}
	return nil, fmt.Errorf("%s: cors must be true, false, an origin or a mapping, not %T", where, opt)
}

func resolve(raw map[string]any, where string) (*Config, error) {
	c := &Config{}
	var err error
	flag := func(k string) bool {
		b, ok := raw[k].(bool)
		if !ok && err == nil {
			err = fmt.Errorf("%s.%s must be true or false", where, k)
		}
		return b
	}
	c.Credentials = flag("allowCredentials")
	unsafe := flag("allowAnyOriginWithCredentialsUnsafe")
	if c.Methods, err = list(raw["allowRequestMethods"], where+".allowRequestMethods", err); err != nil {
		return nil, err
	}
	if c.Headers, err = list(raw["allowRequestHeaders"], where+".allowRequestHeaders", err); err != nil {
		return nil, err
	}
	if c.Expose, err = list(raw["allowResponseHeaders"], where+".allowResponseHeaders", err); err != nil {
		return nil, err
	}
	switch o := raw["allowOrigins"].(type) {
	case string:
		if o == "*" {
			c.AnyOrigin = true
			break
		}
		// Sails splits a comma-separated string (with a debug message).
		for _, s := range strings.Split(o, ",") {
			c.Origins = append(c.Origins, strings.TrimSpace(s))
		}
	case []any:
		for _, s := range o {
			str, ok := s.(string)
			if !ok {
				return nil, fmt.Errorf("E_BAD_ORIGIN_CONFIG: %s.allowOrigins must be '*' or a list of origins (strings), not a list holding %T", where, s)
			}
			c.Origins = append(c.Origins, str)
		}
	case []string:
		c.Origins = append(c.Origins, o...)
	default:
		return nil, fmt.Errorf("E_BAD_ORIGIN_CONFIG: %s.allowOrigins must be '*' or a list of origins, not %T", where, raw["allowOrigins"])
	}
	for _, o := range c.Origins {
		if err := CheckOrigin(o); err != nil {
			return nil, fmt.Errorf("E_INVALID_ORIGIN: %s.allowOrigins: %w", where, err)
		}
	}
	if c.AnyOrigin && c.Credentials {
		if !unsafe {
			return nil, fmt.Errorf("E_UNSAFE: %s: allowOrigins '*' cannot go with allowCredentials: true unless allowAnyOriginWithCredentialsUnsafe is true", where)
		}
		c.AnyOrigin, c.Reflect = false, true
	}
	return c, nil
}

// list reads a header list written as a string or a list of strings.
func list(v any, where string, prev error) (string, error) {
	if prev != nil {
		return "", prev
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []string:
		return strings.Join(x, ","), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("%s must be a string or a list of strings", where)
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("%s must be a string or a list of strings, not %T", where, v)
}

// allowOrigin sets Access-Control-Allow-Origin (and Vary) for origin and
// reports whether the origin is allowed; the other headers follow only
// then. Unless every origin is allowed with "*", the answer depends on
// Origin, so Vary: Origin is sent to refused origins and to requests
// without one as well: Sails sends it only with an allowed origin, which
// lets a shared cache hand a refused origin's answer (no CORS headers) to an
// allowed one.
func (c *Config) allowOrigin(h http.Header, origin string) bool {
	if c.AnyOrigin {
		h.Set("Access-Control-Allow-Origin", "*")
		return true
	}
	addVary(h, "Origin")
	if origin != "" && (c.Reflect || slices.Contains(c.Origins, origin)) {
		h.Set("Access-Control-Allow-Origin", origin)
		return true
	}
	return false
}

// Actual sets the CORS headers of an actual (non-preflight) response to a
// request from origin: nothing when the origin is not allowed.
func (c *Config) Actual(h http.Header, origin string) {
	if c == nil || !c.allowOrigin(h, origin) {
		return
	}
	if c.Credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if c.Expose != "" {
		h.Set("Access-Control-Expose-Headers", c.Expose)
	}
}

// Preflight sets the headers of a preflight response for a request from
// origin asking for requestHeaders (its Access-Control-Request-Headers):
// nothing when the origin is not allowed. Access-Control-Max-Age is never
// set, as in Sails.
func (c *Config) Preflight(h http.Header, origin, requestHeaders string) {
	if c == nil || !c.allowOrigin(h, origin) {
		return
	}
	if c.Credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	methods := c.Methods
	if methods == "" {
		methods = DefaultMethods
	}
	h.Set("Access-Control-Allow-Methods", methods)
	allow := c.Headers
	if allow == "" {
		allow = requestHeaders
	}
	if allow != "" {
		h.Set("Access-Control-Allow-Headers", allow)
	}
	if c.Expose != "" {
		h.Set("Access-Control-Expose-Headers", c.Expose)
	}
}

// addVary adds field to the Vary header unless it is listed already (the
// vary package's behaviour).
func addVary(h http.Header, field string) {
	for _, v := range h.Values("Vary") {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, field) {
				return
			}
		}
	}
	h.Add("Vary", field)
}

// Wrap returns next setting c's actual-request headers first; with a nil
// c, next itself. Socket virtual requests get no CORS headers.
func (c *Config) Wrap(next http.Handler, isSocket func(*http.Request) bool) http.Handler {
	if c == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isSocket(r) {
			c.Actual(w.Header(), r.Header.Get("Origin"))
		}
		next.ServeHTTP(w, r)
	})
}
