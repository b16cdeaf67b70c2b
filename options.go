package skiff

import (
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/config"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

// Options configures an App. The zero value of each field means its
// documented default.
type Options struct {
	// Env is the environment name; "production" turns on the safe defaults.
	// Empty means "development".
	Env string
	// Models are the application's model definitions (see model.Parse).
	Models []*model.Model
	// Datastores are open adapters by datastore name; every model's
	// datastore must be here. The App closes them when it closes.
	Datastores map[string]datastore.Adapter
	// Blueprints are the blueprint route settings; nil means
	// DefaultBlueprints(Env).
	Blueprints *Blueprints
	// Routes are custom routes, bound in order before every blueprint route.
	Routes []Route
	// Actions are Go handlers by action identity ("user/hello"), the targets
	// of custom routes and, with Blueprints.Actions, of action routes.
	Actions map[string]http.Handler
	// ParseBlueprintOptions replaces the built-in parseBlueprintOptions for
	// every blueprint route; wrap blueprint.DefaultParseOptions to edit its
	// result. Routes may override it.
	ParseBlueprintOptions blueprint.ParseOptionsFunc
	// BodyLimit caps every request body in bytes; 0 means 1 MiB. Blueprint
	// actions answer 413 above it; a Go action reading past it gets an
	// *http.MaxBytesError.
	BodyLimit int64
	// Logger receives request failures and lifecycle messages; nil discards.
	Logger *slog.Logger
	// Port is the port the app's config asks for (0 when unset); the skiff
	// command uses it when neither --port nor $PORT is given.
	Port int
	// Host is the address the app's config asks to listen on (Sails'
	// explicitHost), "" for every interface; the skiff command uses it when
	// --host is not given.
	Host string
	// LogLevel is the app's log.level (Sails' levels mapped onto slog's;
	// LevelSilent for silent). The skiff command builds Logger with it; New
	// does not read it, as Logger's handler does the filtering.
	LogLevel slog.Level
	// AdminAddr is the app's admin.addr: the skiff command serves metrics
	// and pprof there (its --admin flag wins); New does not read it.
	AdminAddr string
	// LogFormat is the app's log.format, "text" or "json" ("" when unset);
	// like LogLevel, it is for whoever builds Logger.
	LogFormat string
	// Observer, when set, receives the outcome of every request (HTTP and
	// socket virtual requests alike, health checks excepted), for metrics;
	// package metrics provides one for Prometheus.
	Observer Observer
	// DropColumns lets migrate: alter drop these columns ("table.column",
	// or "*" for any) although they hold data; without it New refuses to
	// drop a column with a value in any row (see CheckMigration). Meant
	// for one start (the skiff command's --drop-columns), not for config.
	DropColumns []string
	// Health configures /healthz and /readyz.
	Health Health
	// OpenAPI configures GET /openapi.json, the API description.
	OpenAPI OpenAPI
	// Warnings are the settings the app's config gives that Skiff accepts
	// but does not carry out as written, each with why (app.Load fills
	// them). New logs each once, at warn level.
	Warnings []string
	// Custom is the app's own settings (Sails' sails.config.custom, the
	// custom section); App.Custom returns it. Values are as decoded from
	// YAML/JSON: strings, float64, bool, []any, map[string]any.
	Custom map[string]any

	// Middleware are Go HTTP middleware by name, placed by MiddlewareOrder
	// among Skiff's built-in steps. They see HTTP requests only: socket
	// virtual requests skip them, as Sails runs no HTTP middleware for
	// sockets. New refuses a middleware that MiddlewareOrder does not name.
	Middleware map[string]func(http.Handler) http.Handler
	// MiddlewareOrder is Sails' http.middleware.order: built-in names
	// (cookieParser, session, bodyParser, compress, poweredBy, router, www,
	// favicon, and the 0.12 names) and names of Middleware. Middleware
	// named before "router" run, in the order listed, for every HTTP
	// request, after the body limit and the session are set up and before
	// CORS, CSRF, policies and routing; those named after it run, in
	// order, for HTTP requests no route matched, before the static files
	// and the 404; without "router" in the order, all run before routing
	// (Sails always runs its router). Where built-in names stand does not
	// change what Skiff does (app.Load has already applied their absence).
	// New refuses a name that is neither built-in nor in Middleware. nil
	// means Sails' default order, with no Go middleware.
	MiddlewareOrder []string
	// MiddlewareSettings are http.middleware's other keys (in Sails, the
	// definitions of custom middleware): New refuses each key that does not
	// name one of Middleware, since JavaScript middleware cannot run.
	MiddlewareSettings map[string]any

	// Session configures sessions (Sails' config/session).
	Session SessionOptions
	// CSRF is security.csrf: POST, PUT, PATCH and DELETE requests need a
	// token bound to their session (route option csrf: false exempts a
	// route, csrf: true protects one while this is off).
	CSRF bool
	// CORS is security.cors in its config form: keys allRoutes,
	// allowOrigins ("*" or a list), allowCredentials, allowRequestMethods,
	// allowRequestHeaders, allowResponseHeaders,
	// allowAnyOriginWithCredentialsUnsafe. nil means Sails' defaults (no
	// CORS headers unless a route's cors option asks).
	CORS map[string]any
	// Policies are Go policies by name (case-insensitive), for PolicyRules.
	Policies map[string]Policy
	// PolicyRules is config/policies: action identities ("user/find") or
	// wildcards ("user/*", "*") mapped to true, false, a policy name, or a
	// list of names ([]string or []any). The most specific key wins.
	PolicyRules map[string]any
	// Sockets configures the socket.io endpoint (sails.io.js clients).
	Sockets Sockets
	// Server tunes the http.Server that Serve runs.
	Server ServerOptions
	// Assets are the app's static files (Sails' assets/ folder): a GET or
	// HEAD request over HTTP that no custom or blueprint route matches gets
	// the file at its path, "/" and other directories their index.html.
	// Dot files are never served, directories never listed, and asset-like
	// paths get no session (SessionOptions.IsSessionDisabled). nil serves
	// no files; app.Load sets it to DIR/assets when that folder exists. An
	// embedder may pass an embed.FS (through fs.Sub) or os.DirFS.
	Assets fs.FS
	// AssetsMaxAge is how long browsers may reuse a static file without
	// asking again (Cache-Control: public, max-age, in whole seconds; Sails'
	// http.cache). 0 makes them revalidate every time, with
	// If-Modified-Since.
	AssetsMaxAge time.Duration
	// NoETag turns off ETags (http.etag: false). By default, as Express in
	// Sails, blueprint answers to GET and HEAD over HTTP and static files
	// carry a weak ETag, and a request whose If-None-Match names it gets
	// 304 Not Modified without a body.
	NoETag bool
}

// LevelSilent is the log level of log.level: silent: no record reaches it.
const LevelSilent = config.LevelSilent

// Policy guards actions (Sails' api/policies): it calls next to let the
// request through, or answers it itself to refuse it, typically with
// Forbidden. It runs after the CSRF check and before the action, for HTTP
// and socket requests alike, and can read the request's session with
// SessionFrom.
type Policy func(next http.Handler) http.Handler

// SessionOptions configure sessions. The zero value gives Sails' defaults:
// an in-memory store and a sails.sid cookie.
type SessionOptions struct {
	// Disabled turns sessions off. New then refuses CSRF (the secret lives
	// in the session), and a route with the option csrf: true refuses every
	// POST, PUT, PATCH and DELETE.
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
	// needs it (this package links no Redis client: app.Load and
	// app.Connect open it). New takes over a Store that is an io.Closer:
	// App.Close, or a failed New, closes it.
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

// Observer receives every request's outcome: transport is "http" or
// "socket", route the pattern of the route that served it ("GET
// /pet/:id", "ALL /hook"; "" when none matched: static files and 404s),
// d how long the handler ran. It must be safe for concurrent use, and
// cheap: it runs on the request's goroutine.
type Observer interface {
	ObserveRequest(transport, method, route string, status int, d time.Duration)
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
	// nats adapters need it (this package links neither client: app.Load
	// and app.Connect open it). New takes it over: App.Close, or a failed
	// New, closes it.
	Bus realtime.Bus
}

// ServerOptions tune the http.Server that Serve runs; zero values mean
// the defaults given.
type ServerOptions struct {
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
	// (or "") or blueprint.FormatSails; New refuses any other value.
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
	// or the identity of one of Options.Actions.
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
