package config

import (
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/skiffhq/skiff/settings"
)

// ModelFile is one file of models/: a model definition as decoded, not yet
// validated (model.Parse does that).
type ModelFile struct {
	// Identity is the lower-cased file base name ("User.yaml" → "user").
	Identity string
	// Source is the file's path inside the app folder, e.g. "models/user.yaml".
	Source string
	// Def is the file's top-level mapping; numbers are float64.
	Def map[string]any
}

// App is a loaded app folder.
type App struct {
	// Dir is left empty by Load (an fs.FS has no path); Env is the
	// environment the app was loaded for, "development" by default.
	Dir, Env string
	// Port is the port section, 0 when unset (the command then applies PORT
	// and its own default).
	Port int
	// Models is the models section: defaults for every model. migrate is
	// always set: as configured, else "alter" ("safe" in production).
	Models map[string]any
	// ModelFiles are the files of models/, sorted by identity.
	ModelFiles []ModelFile
	// Blueprints is the blueprints section with defaults applied (shortcuts
	// off in production).
	Blueprints settings.Blueprints
	// Datastores maps datastore names to their settings, never empty
	// ({"default": {"adapter": "sqlite"}} when none is configured). Every
	// entry has an adapter, with Sails' adapter package names translated
	// (sails-disk → sqlite, sails-postgresql → postgres, sails-mysql → mysql),
	// and url, if set, has no trailing "/".
	Datastores map[string]map[string]any
	// Routes are the routes section in the order written; Action is
	// lower-cased ('UserController.find' → "user/find"), a string target
	// starting with "/", "http://" or "https://" is a Redirect.
	Routes []settings.Route
	// Security, Sockets, Session, Policies and HTTP are those sections with
	// their key names validated and their values as decoded; never nil.
	Security, Sockets, Session, Policies, HTTP map[string]any
	// BodyLimit is http.bodyLimit in bytes, 1 MiB by default.
	BodyLimit int64
	// AssetsMaxAge is http.cache, how long browsers may keep a static file
	// without asking again; 0 when unset.
	AssetsMaxAge time.Duration
	// ETag is http.etag: whether answers carry ETags (true unless set to
	// false).
	ETag bool
	// CSRF is security.csrf.
	CSRF bool
	// CORS is security.cors, typed (legacy key names mapped).
	CORS settings.CORS
	// PolicyRules is the policies section, typed: keys lower-cased, the
	// legacy {UserController: {find: ...}} form flattened.
	PolicyRules settings.PolicyRules
	// SessionSettings, ServerSettings and SocketSettings are the session
	// section, the http section's server limits and the sockets section,
	// checked and typed (Disabled is left to SessionDisabled and
	// SocketsDisabled).
	SessionSettings settings.Session
	ServerSettings  settings.Server
	SocketSettings  settings.Sockets
	// LogLevel is log.level as a slog level (LevelSilent for silent); Info
	// when unset.
	LogLevel slog.Level
	// AdminAddr is admin.addr, the address of the admin listener (metrics,
	// pprof); "" when unset (no admin listener).
	AdminAddr string
	// Health is the health section.
	Health settings.Health
	// OpenAPI is the openapi section (Title and Version unset).
	OpenAPI settings.OpenAPI
	// LogFormat is log.format: "text" or "json"; "" when unset.
	LogFormat string
	// Custom is the custom section (Sails' sails.config.custom), never nil:
	// the app's own settings, for Go code.
	Custom map[string]any
	// Host is explicitHost, the address to listen on; "" when unset.
	Host string
	// MiddlewareOrder is http.middleware.order less the middleware set to
	// false, nil when neither is set (Sails' default order). It lists no
	// name twice; names that are not built-in (IsBuiltinMiddleware) must be
	// Go middleware.
	MiddlewareOrder []string
	// MiddlewareSettings holds http.middleware's other keys (Sails'
	// middleware definitions), never nil: each must name Go middleware.
	MiddlewareSettings map[string]any
	// SessionDisabled and SocketsDisabled turn sessions or the socket
	// endpoint off: hooks.session or hooks.sockets is false, or (for
	// sessions) http.middleware.order leaves session out.
	SessionDisabled, SocketsDisabled bool
	// Warnings name each setting that is accepted but not carried out as
	// written, with why, in key order: the server prints each once at start.
	Warnings []string
}

// layer is one source of configuration: a file or an environment variable.
type layer struct {
	src  string
	tree *omap
}

// Load reads the app folder fsys (models/ and config/) for the environment
// env ("" means development). environ holds the process environment as
// "NAME=value" pairs (os.Environ); its SKIFF_* variables override the files
// as the package documentation describes.
//
// Errors name the file (with its line for syntax errors), the key path or
// the environment variable at fault, and wrap ErrSyntax,
// ErrDuplicateModel, ErrUnknownKey, ErrUnsupported or ErrInvalid; I/O
// errors are wrapped as they come.
func Load(fsys fs.FS, env string, environ []string) (*App, error) {
	if env == "" {
		env = "development"
	}
	if !fs.ValidPath(env) || strings.ContainsAny(env, `/\`) || env == "." {
		return nil, fmt.Errorf("environment %q: not a plain name: %w", env, ErrInvalid)
	}
	s := appSchema()
	check := func(src string, tree *omap) error {
		if err := s.check(src, nil, tree); err != nil {
			return err
		}
		_, err := build(src, tree, env)
		return err
	}
	layers, err := readLayers(fsys, env)
	if err != nil {
		return nil, err
	}
	tree := newOmap()
	for _, l := range layers {
		if err := check(l.src, l.tree); err != nil {
			return nil, err
		}
		merge(tree, l.tree)
	}
	if err := applyEnv(tree, s, environ, check); err != nil {
		return nil, err
	}
	app, err := build("config", tree, env)
	if err != nil {
		return nil, err
	}
	if app.Warnings, err = audit("config", tree, app); err != nil {
		return nil, err
	}
	if app.ModelFiles, err = readModels(fsys); err != nil {
		return nil, err
	}
	return app, nil
}

// readLayers reads config/*, then config/env/<env>.*, then config/local.*,
// each group in file-name order.
func readLayers(fsys fs.FS, env string) ([]layer, error) {
	names, err := listFiles(fsys, "config")
	if err != nil {
		return nil, err
	}
	var first, local []string
	for _, n := range names {
		if base(n) == "local" {
			local = append(local, "config/"+n)
		} else {
			first = append(first, "config/"+n)
		}
	}
	envNames, err := listFiles(fsys, "config/env")
	if err != nil {
		return nil, err
	}
	var envFiles []string
	for _, n := range envNames {
		if base(n) == env {
			envFiles = append(envFiles, "config/env/"+n)
		}
	}
	var layers []layer
	for _, name := range append(append(first, envFiles...), local...) {
		tree, err := readMapping(fsys, name)
		if err != nil {
			return nil, err
		}
		layers = append(layers, layer{src: name, tree: tree})
	}
	return layers, nil
}
