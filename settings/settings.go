// Package settings declares each of Skiff's settings once, typed: config
// loading (package app) decodes an app folder's sections into these types,
// Go programs fill them in skiff.Options, and the layers that carry them out
// take them as they are. Package skiff re-exports them.
package settings

import (
	"log/slog"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/realtime"
)

// Session configures sessions (the session section). The zero value gives
// Sails' defaults: an in-memory store and a sails.sid cookie.
type Session struct {
	// Disabled turns sessions off. skiff.New then refuses CSRF (the secret
	// lives in the session), and a route with the option csrf: true refuses
	// every POST, PUT, PATCH and DELETE.
	Disabled bool
	// Name is the cookie name; empty means "sails.sid".
	Name string
	// Secret signs the session cookie. Production refuses to start without
	// one; development falls back to a fixed, public secret.
	Secret string
	// Adapter picks the store: "memory" (the default; one process only),
	// "redis" (URL; see Store) or "datastore" (a table in Datastore).
	Adapter string
	// URL is the Redis server for the redis adapter
	// ("redis://[:password@]host:port[/db]").
	URL string
	// Prefix is the Redis key prefix; empty means "sess:".
	Prefix string
	// Datastore names the datastore of the datastore adapter; empty means
	// "default".
	Datastore string
	// Store is the session store; it overrides Adapter. The redis adapter
	// needs it (package skiff links no Redis client: app.Load and
	// app.Connect open it). skiff.New takes over a Store that is an
	// io.Closer: App.Close, or a failed New, closes it.
	Store scs.Store
	// MaxAge, when positive, makes the cookie persistent and is the
	// session's lifetime; otherwise the cookie lasts the browser session and
	// the store keeps the data for 24 hours.
	MaxAge time.Duration
	// Path (default "/"), Domain, Secure, HTTPOnly (default true) and
	// SameSite (default Lax; http.SameSiteDefaultMode for no attribute)
	// are the cookie attributes.
	Path, Domain string
	Secure       bool
	HTTPOnly     *bool
	SameSite     http.SameSite
	// IsSessionDisabled reports the requests that get no session; nil
	// means Sails' default, paths that look like assets ("/app.js").
	IsSessionDisabled func(*http.Request) bool
	// SaveUninitialized, nil or true (Sails' default), answers a request
	// without a valid session cookie with a cookie naming a new session,
	// and gives a socket whose handshake has none a session of its own, so
	// that a browser holds its session from the first page load and its
	// socket shares it. The session is stored only once something is put
	// in it. False sends the cookie only once something is stored.
	SaveUninitialized *bool
}

// Health configures the health endpoints the app answers on its own port,
// before sessions, CORS and routing, with JSON bodies and no log line at
// info: GET Liveness answers 200 while the process serves; GET Readiness
// answers 200 when every datastore answers a ping and the app is not
// shutting down, else 503. An app route matching GET on the same path
// wins. The zero value serves /healthz and /readyz.
type Health struct {
	// Liveness and Readiness are the paths; "" means /healthz and /readyz.
	Liveness, Readiness string
	// NoLiveness and NoReadiness turn an endpoint off.
	NoLiveness, NoReadiness bool
}

// DefaultMaxConnectionsPerIP is Sockets.MaxConnectionsPerIP's default.
const DefaultMaxConnectionsPerIP = 100

// Sockets configures the socket.io endpoint at /socket.io/ (Sails'
// config.sockets). The zero value serves it with Sails' defaults and
// admits every origin.
type Sockets struct {
	// Disabled removes the endpoint: no virtual requests, no notifications.
	Disabled bool
	// OnlyAllowOrigins lists the exact origins (scheme://host[:port]) whose
	// pages may connect; a handshake from another Origin gets a 403. Empty
	// admits every origin. Unlike Sails 1.5, this holds for WebSocket
	// handshakes too.
	OnlyAllowOrigins []string
	// BeforeConnect, when set, decides on every handshake instead of
	// OnlyAllowOrigins: a non-nil error refuses it with a 403 carrying the
	// error's text.
	BeforeConnect func(r *http.Request) error
	// PingInterval and PingTimeout drive heartbeats (Sails: 25s and 60s).
	PingInterval, PingTimeout time.Duration
	// MaxMessageBytes bounds one incoming message; a larger one closes the
	// socket. 0 means 1 MB.
	MaxMessageBytes int64
	// SendQueue is how many messages may wait for a slow socket before it
	// is disconnected. 0 means 256.
	SendQueue int
	// NoCookieRoute leaves out GET /__getcookie, which sails.io.js fetches
	// before connecting to another origin so that the browser holds the
	// session cookie (Sails' grant3rdPartyCookie: false).
	NoCookieRoute bool
	// MaxConnectionsPerIP caps the sockets open from one client address; 0
	// means DefaultMaxConnectionsPerIP, a negative value no cap.
	MaxConnectionsPerIP int
	// Adapter links several instances of the app so that a notification
	// reaches sockets wherever they are connected: "redis" (Sails' names
	// "@sailshq/socket.io-redis" and "socket.io-redis" too) or "nats", on
	// the server URL names. Empty or "memory" serves one instance.
	Adapter string
	// URL is the bus server: redis://[:password@]host:port[/db] or
	// nats://host:port.
	URL string
	// Prefix names the bus channel (Redis) or subject (NATS) that the
	// instances of one app share (Sails' adapterOptions.key); empty means
	// "skiff".
	Prefix string
	// Bus, when set, is the bus itself, overriding Adapter; the redis and
	// nats adapters need it (package skiff links neither client: app.Load
	// and app.Connect open it). skiff.New takes it over: App.Close, or a
	// failed New, closes it.
	Bus realtime.Bus
}

// Server tunes the http.Server that skiff.App.Serve runs (the http
// section's server limits); zero values mean the defaults given.
type Server struct {
	// ReadHeaderTimeout bounds reading a request's headers (10 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request (none). WriteTimeout
	// bounds writing a response (none: it would cut WebSocket connections).
	ReadTimeout, WriteTimeout time.Duration
	// IdleTimeout bounds keep-alive connections waiting for a request
	// (120 s).
	IdleTimeout time.Duration
	// MaxHeaderBytes caps request headers (1 MiB).
	MaxHeaderBytes int
}

// Blueprints are the blueprint route settings (Sails' config.blueprints).
type Blueprints struct {
	// Actions binds an all-verb route /<identity> to each Go action.
	Actions bool
	// Rest binds the REST routes (GET /user, POST /user, ...).
	Rest bool
	// Shortcuts binds the GET shortcut routes (/user/create?name=x, ...).
	Shortcuts bool
	// Pluralize uses plural model names in blueprint paths.
	Pluralize bool
	// Prefix is put before every blueprint path; RestPrefix after it for
	// REST routes only.
	Prefix, RestPrefix string
	// AutoWatch makes a socket's find watch the model.
	AutoWatch bool
	// DeepWatch, with AutoWatch, makes a socket's find, findOne and
	// populate that return a record watch every model associated with the
	// one read, as Sails does (DefaultBlueprints turns it on).
	DeepWatch bool
	// Mirror sends a socket the notifications of its own requests too.
	Mirror bool
	// NotificationFormat shapes the notifications: blueprint.FormatSeed
	// (or "") or blueprint.FormatSails; skiff.New refuses any other value.
	NotificationFormat blueprint.NotificationFormat
}

// DefaultBlueprints returns Sails' defaults, with shortcut routes off in
// production since they write over GET.
func DefaultBlueprints(env string) Blueprints {
	return Blueprints{Rest: true, Shortcuts: env != "production", AutoWatch: true, DeepWatch: true}
}

// Route is a custom route (Sails' config.routes entry). Method is an
// upper-case verb or "" for all; Path uses Sails syntax (/user/:id,
// /files/*, optional :id?). Exactly one target is set.
type Route struct {
	Method, Path string
	// Action is an action identity: a blueprint action such as "user/find"
	// or the identity of one of skiff.Options.Actions.
	Action string
	// Handler serves the route directly.
	Handler http.Handler
	// Redirect answers 302 to this URL.
	Redirect string
	// Response answers with a default response: ok, badRequest, forbidden,
	// notFound or serverError.
	Response string
	// Options are Sails route options (alias, skipAssets, csrf, cors, ...).
	Options map[string]any
	// ParseBlueprintOptions overrides the app's parseBlueprintOptions when
	// the route targets a blueprint action.
	ParseBlueprintOptions blueprint.ParseOptionsFunc
}

// DefaultOpenAPIPath is where the API description is served.
const DefaultOpenAPIPath = "/openapi.json"

// OpenAPI configures the API description: an OpenAPI 3.1 document of the
// routes the app serves (blueprint routes with schemas from the models,
// custom routes without), at GET Path. See docs/openapi.md.
type OpenAPI struct {
	// Enabled serves the document; nil means in development only (any Env
	// but "production").
	Enabled *bool
	// Path is where; "" means DefaultOpenAPIPath. An app route on the same
	// path and method wins.
	Path string
	// Title and Version fill the document's info; "" means "Skiff app" and
	// "0.0.0".
	Title, Version string
}

// Served reports whether the document is served in env.
func (o OpenAPI) Served(env string) bool {
	if o.Enabled != nil {
		return *o.Enabled
	}
	return env != "production"
}

// CORS is security.cors, Sails' CORS settings; a route's cors option
// refines them. The zero value is Sails' defaults: no CORS headers unless
// a route's cors option asks, and then any origin, the methods
// GET,HEAD,PUT,PATCH,POST,DELETE and the request header content-type.
type CORS struct {
	// AllRoutes applies these settings to every route without a cors
	// option.
	AllRoutes bool
	// AllowOrigins are the exact origins (scheme://host[:port]) allowed;
	// nil or ["*"] allows any origin.
	AllowOrigins []string
	// AllowCredentials sends Access-Control-Allow-Credentials: true. With
	// any origin allowed it needs AllowAnyOriginWithCredentialsUnsafe,
	// which then echoes the request's origin.
	AllowCredentials, AllowAnyOriginWithCredentialsUnsafe bool
	// AllowRequestMethods and AllowRequestHeaders answer preflights; nil
	// means the defaults above, an empty list none (for headers: echo what
	// the preflight asks for). AllowResponseHeaders are the headers a page
	// may read (Access-Control-Expose-Headers).
	AllowRequestMethods, AllowRequestHeaders, AllowResponseHeaders []string
}

// PolicyRule is what config/policies says of the actions its key matches:
// Deny refuses them (false in the config); otherwise Policies run in
// order before the action, and none means open (true in the config).
type PolicyRule struct {
	Deny     bool
	Policies []string
}

// PolicyRules is config/policies: action identities ("user/find") or
// wildcards ("user/*", "*") mapped to their rule; the most specific key
// wins. Keys and policy names match case-insensitively.
type PolicyRules map[string]PolicyRule

// LevelSilent is the log level of log.level: silent; no record reaches it.
const LevelSilent = slog.Level(math.MaxInt32)

// builtinMiddleware are the names Sails gives its own HTTP middleware (1.x,
// and the 0.12 names an older config/http.js still lists). Skiff runs its
// own equivalents in a fixed order; see docs/config.md.
var builtinMiddleware = []string{
	"cookieParser", "session", "bodyParser", "compress", "poweredBy", "router", "www", "favicon",
	"startRequestTimer", "handleBodyParserError", "methodOverride", "$custom", "404", "500",
}

// IsBuiltinMiddleware reports whether name is one of Sails' built-in HTTP
// middleware names, which http.middleware.order may list without a Go
// middleware registered under it.
func IsBuiltinMiddleware(name string) bool { return slices.Contains(builtinMiddleware, name) }
