// Package app turns an app folder (models/, config/, assets/) into
// skiff.Options, opening the datastores, the realtime bus and the session
// store its config names. It links every adapter Skiff ships; a program
// that builds skiff.Options itself links only those it uses.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/assets"
	"github.com/skiffhq/skiff/internal/config"
	"github.com/skiffhq/skiff/model"
)

// Adapters returns the storage engines Skiff ships, by the adapter name a
// datastore's config gives.
func Adapters() map[string]datastore.OpenFunc {
	return map[string]datastore.OpenFunc{
		"sqlite": func(ctx context.Context, c datastore.Config) (datastore.Adapter, error) {
			db, err := sqlite.Open(ctx, c)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
		"postgres": func(ctx context.Context, c datastore.Config) (datastore.Adapter, error) {
			db, err := postgres.Open(ctx, c)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
		"mysql": func(ctx context.Context, c datastore.Config) (datastore.Adapter, error) {
			db, err := mysql.Open(ctx, c)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
	}
}

// templateAttributes are the default attributes of a new Sails app
// (config/models.js), used when the app's config names none.
func templateAttributes() map[string]any {
	return map[string]any{
		"id":        map[string]any{"type": "number", "autoIncrement": true},
		"createdAt": map[string]any{"type": "number", "autoCreatedAt": true},
		"updatedAt": map[string]any{"type": "number", "autoUpdatedAt": true},
	}
}

// Load reads the app folder dir (models/, config/) for environment env,
// with environ ("NAME=value" pairs, as os.Environ returns them) supplying
// SKIFF_* overrides, and opens its datastores. When dir has an assets/
// folder, its files become Options.Assets (resolved inside the folder, so
// neither ".." nor a symbolic link can reach outside it). The returned
// Options are ready for skiff.New; the caller adds Go hooks to them. Its
// Sockets.Bus and Session.Store, when the config names Redis or NATS, are
// open too (see Connect). On error nothing is left open.
func Load(ctx context.Context, dir, env string, environ []string) (*skiff.Options, error) {
	opts, err := LoadDatastores(ctx, dir, env, environ)
	if err != nil {
		return nil, err
	}
	if err := Connect(ctx, opts); err != nil {
		return nil, errors.Join(err, closeDatastores(opts.Datastores))
	}
	return opts, nil
}

// LoadDatastores is Load without Connect: the options with the datastores
// open but no bus or session store, for what migrates or inspects and
// serves nothing (a Redis that is down must not stop a migration).
func LoadDatastores(ctx context.Context, dir, env string, environ []string) (*skiff.Options, error) {
	opts, stores, err := read(dir, env, environ)
	if err != nil {
		return nil, err
	}
	if err := openDatastores(ctx, dir, opts, stores); err != nil {
		return nil, err
	}
	return opts, nil
}

// Close closes what Load opened into opts (datastores, bus, session
// store), for a caller that does not hand opts to skiff.New after all.
func Close(opts *skiff.Options) error {
	var errs []error
	for name, d := range opts.Datastores {
		if err := d.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close datastore %s: %w", name, err))
		}
	}
	if opts.Sockets.Bus != nil {
		if err := opts.Sockets.Bus.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close realtime bus: %w", err))
		}
	}
	if c, ok := opts.Session.Store.(io.Closer); ok {
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close session store: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Describe is skiff.DescribeAPI for the app folder dir, read as Load reads
// it but with nothing opened.
func Describe(dir, env string, environ []string) ([]byte, error) {
	opts, _, err := read(dir, env, environ)
	if err != nil {
		return nil, err
	}
	b, err := skiff.DescribeAPI(*opts)
	if err != nil {
		return nil, fmt.Errorf("describe app %s: %w", dir, err)
	}
	return b, nil
}

// read is Load without opening anything: the options, and the config of
// each datastore to open.
func read(dir, env string, environ []string) (*skiff.Options, map[string]map[string]any, error) {
	if env == "" {
		env = "development"
	}
	// The two names that change defaults match in any case: "PRODUCTION"
	// must not run as development with the development secret.
	for _, name := range []string{"production", "development"} {
		if strings.EqualFold(env, name) {
			env = name
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil, fmt.Errorf("load app: %s is not an app folder (want a directory with models/ and config/)", dir)
	}
	cfg, err := config.Load(os.DirFS(dir), env, environ)
	if err != nil {
		return nil, nil, fmt.Errorf("load app %s: %w", dir, err)
	}
	defaults := cfg.Models
	if defaults == nil {
		defaults = map[string]any{}
	}
	if _, ok := defaults["attributes"]; !ok {
		defaults["attributes"] = templateAttributes()
	}
	opts := &skiff.Options{
		Env: env, BodyLimit: cfg.BodyLimit, Port: cfg.Port, Host: cfg.Host, LogLevel: cfg.LogLevel, LogFormat: cfg.LogFormat, AdminAddr: cfg.AdminAddr,
		Warnings: cfg.Warnings, Custom: cfg.Custom, Datastores: map[string]datastore.Adapter{},
		MiddlewareOrder: cfg.MiddlewareOrder, MiddlewareSettings: cfg.MiddlewareSettings,
	}
	for _, f := range cfg.ModelFiles {
		m, err := model.Parse(f.Identity, f.Source, f.Def, defaults)
		if err != nil {
			return nil, nil, err
		}
		opts.Models = append(opts.Models, m)
	}
	blueprints := cfg.Blueprints
	opts.Blueprints = &blueprints
	opts.Routes = cfg.Routes
	opts.Session = cfg.SessionSettings
	opts.Session.Disabled = cfg.SessionDisabled
	opts.Sockets = cfg.SocketSettings
	opts.Sockets.Disabled = cfg.SocketsDisabled
	opts.CSRF = cfg.CSRF
	opts.CORS = cfg.CORS
	opts.PolicyRules = cfg.PolicyRules
	opts.Server = cfg.ServerSettings
	// An http.middleware.order without www serves no static files, as in Sails.
	www := cfg.MiddlewareOrder == nil || slices.Contains(cfg.MiddlewareOrder, "www")
	if fi, err := os.Stat(filepath.Join(dir, "assets")); www && err == nil && fi.IsDir() {
		opts.Assets = assets.Dir(filepath.Join(dir, "assets"))
	}
	opts.AssetsMaxAge = cfg.AssetsMaxAge
	opts.NoETag = !cfg.ETag
	opts.Health = cfg.Health
	opts.OpenAPI = cfg.OpenAPI
	if abs, err := filepath.Abs(dir); err == nil {
		opts.OpenAPI.Title = filepath.Base(abs)
	}
	return opts, cfg.Datastores, nil
}

// openDatastores opens the datastores configs describe (internal/config
// has filled in the adapter names) into opts.Datastores. On error nothing
// is left open.
func openDatastores(ctx context.Context, dir string, opts *skiff.Options, configs map[string]map[string]any) error {
	openers := Adapters()
	opts.Datastores = make(map[string]datastore.Adapter, len(configs))
	for name, dc := range configs {
		adapter, _ := dc["adapter"].(string)
		open, ok := openers[adapter]
		if !ok {
			return errors.Join(fmt.Errorf("datastore %s: unknown adapter %q (use sqlite, postgres or mysql)", name, adapter), closeDatastores(opts.Datastores))
		}
		url, _ := dc["url"].(string)
		a, err := open(ctx, datastore.Config{Name: name, Adapter: adapter, URL: url, Dir: dir, Options: dc})
		if err != nil {
			return errors.Join(fmt.Errorf("open datastore %s: %w", name, err), closeDatastores(opts.Datastores))
		}
		opts.Datastores[name] = a
	}
	return nil
}

// closeDatastores closes stores after a failed load and returns what
// failed, to join to the load's own error.
func closeDatastores(stores map[string]datastore.Adapter) error {
	var errs []error
	for name, s := range stores {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close datastore %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
