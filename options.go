package skiff

import (
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/reqlog"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/settings"
)

// NewTextLogger returns the logger the skiff command writes text lines
// with, for Options.Logger: slog.NewTextHandler(w, &slog.HandlerOptions{
// Level: level}) in all it writes, except that Skiff writes its request
// log lines itself, in the same bytes, at a tenth of slog's cost for
// them. (With any other Logger, request lines go through slog.)
func NewTextLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(reqlog.NewTextHandler(w, level))
}

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
	Session SessionSettings
	// CSRF is security.csrf: POST, PUT, PATCH and DELETE requests need a
	// token bound to their session (route option csrf: false exempts a
	// route, csrf: true protects one while this is off).
	CSRF bool
	// CORS is security.cors; the zero value is Sails' defaults (no CORS
	// headers unless a route's cors option asks).
	CORS CORS
	// Policies are Go policies by name (case-insensitive), for PolicyRules.
	Policies map[string]Policy
	// PolicyRules is config/policies: which of Policies guard which
	// actions. New refuses a rule naming a policy Policies lacks.
	PolicyRules PolicyRules
	// Sockets configures the socket.io endpoint (sails.io.js clients).
	Sockets Sockets
	// Server tunes the http.Server that Serve runs.
	Server ServerSettings
	// Assets are the app's static files (Sails' assets/ folder): a GET or
	// HEAD request over HTTP that no custom or blueprint route matches gets
	// the file at its path, "/" and other directories their index.html.
	// Dot files are never served, directories never listed, and asset-like
	// paths get no session (SessionSettings.IsSessionDisabled). nil serves
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
const LevelSilent = settings.LevelSilent

// Policy guards actions (Sails' api/policies): it calls next to let the
// request through, or answers it itself to refuse it, typically with
// Forbidden. It runs after the CSRF check and before the action, for HTTP
// and socket requests alike, and can read the request's session with
// SessionFrom.
type Policy func(next http.Handler) http.Handler

// Observer receives every request's outcome: transport is "http" or
// "socket", route the pattern of the route that served it ("GET
// /pet/:id", "ALL /hook"; "" when none matched: static files and 404s),
// d how long the handler ran. It must be safe for concurrent use, and
// cheap: it runs on the request's goroutine.
type Observer interface {
	ObserveRequest(transport, method, route string, status int, d time.Duration)
}

// The settings of Options, declared once in package settings (see there)
// and used by config loading too. A section's type is named after the
// section; SessionSettings and ServerSettings carry a suffix because
// Session is a request's session here and Server would read as a server.
type (
	// Blueprints are the blueprint route settings (blueprints section).
	Blueprints = settings.Blueprints
	// Route is a custom route (routes section).
	Route = settings.Route
	// SessionSettings configure sessions (session section).
	SessionSettings = settings.Session
	// ServerSettings tune the http.Server that Serve runs.
	ServerSettings = settings.Server
	// Sockets configures the socket.io endpoint (sockets section).
	Sockets = settings.Sockets
	// Health configures /healthz and /readyz (health section).
	Health = settings.Health
	// OpenAPI configures the API description (openapi section).
	OpenAPI = settings.OpenAPI
	// CORS is security.cors.
	CORS = settings.CORS
	// PolicyRules is config/policies.
	PolicyRules = settings.PolicyRules
	// PolicyRule is one entry of PolicyRules.
	PolicyRule = settings.PolicyRule
)

// Defaults of the settings, as package settings declares them.
const (
	// DefaultMaxConnectionsPerIP is Sockets.MaxConnectionsPerIP's default.
	DefaultMaxConnectionsPerIP = settings.DefaultMaxConnectionsPerIP
	// DefaultOpenAPIPath is where the API description is served.
	DefaultOpenAPIPath = settings.DefaultOpenAPIPath
)

// DefaultBlueprints returns Sails' blueprint defaults for env, with
// shortcut routes off in production since they write over GET.
func DefaultBlueprints(env string) Blueprints { return settings.DefaultBlueprints(env) }
