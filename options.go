package skiff

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
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
	// BodyLimit caps request bodies in bytes (413 above it); 0 means 1 MiB.
	BodyLimit int64
	// Logger receives request failures and lifecycle messages; nil discards.
	Logger *slog.Logger
	// Port is the port the app's config asks for (0 when unset); the skiff
	// command uses it when neither --port nor $PORT is given.
	Port int
	// Sockets configures the socket.io endpoint (sails.io.js clients).
	Sockets Sockets
}

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
	// Mirror sends a socket the notifications of its own requests too.
	Mirror bool
}

// DefaultBlueprints returns Sails' defaults, with shortcut routes off in
// production since they write over GET.
func DefaultBlueprints(env string) Blueprints {
	return Blueprints{Rest: true, Shortcuts: env != "production", AutoWatch: true}
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
