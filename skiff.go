package skiff

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"time"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// shutdownGrace bounds how long Serve waits for in-flight requests.
const shutdownGrace = 10 * time.Second

// App is a running Skiff application: its schema, ORM and HTTP handler.
type App struct {
	opts    Options
	schema  *model.Schema
	orm     *orm.ORM
	handler http.Handler
	log     *slog.Logger
}

// New resolves the models, migrates the datastores as each model asks and
// builds the HTTP handler. It fails on definition errors, unknown
// datastores and malformed routes; it closes nothing on failure (the caller
// owns the adapters until New succeeds).
func New(ctx context.Context, opts Options) (*App, error) {
	if opts.Env == "" {
		opts.Env = "development"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	bp := DefaultBlueprints(opts.Env)
	if opts.Blueprints != nil {
		bp = *opts.Blueprints
	}
	for _, m := range opts.Models {
		if m.Migrate == "" {
			m.Migrate = model.MigrateAlter
			if opts.Env == "production" {
				m.Migrate = model.MigrateSafe
			}
		}
	}
	schema, err := model.NewSchema(opts.Models)
	if err != nil {
		return nil, err
	}
	o, err := orm.New(schema, opts.Datastores)
	if err != nil {
		return nil, err
	}
	if err := o.Migrate(ctx); err != nil {
		return nil, err
	}
	svc := blueprint.NewService(o, opts.ParseBlueprintOptions)
	routes := make([]httpapi.Route, len(opts.Routes))
	for i, r := range opts.Routes {
		routes[i] = httpapi.Route{
			Method: r.Method, Path: r.Path, Action: r.Action, Handler: r.Handler, Redirect: r.Redirect,
			Response: r.Response, Options: r.Options, ParseOptions: r.ParseBlueprintOptions,
		}
	}
	h, err := httpapi.NewHandler(httpapi.Config{
		Production: opts.Env == "production",
		Models:     schema.Models(),
		Service:    svc,
		Blueprints: httpapi.Blueprints{
			Actions: bp.Actions, Rest: bp.Rest, Shortcuts: bp.Shortcuts, Pluralize: bp.Pluralize,
			Prefix: bp.Prefix, RestPrefix: bp.RestPrefix,
		},
		Routes:    routes,
		Actions:   opts.Actions,
		BodyLimit: opts.BodyLimit,
		Logger:    opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &App{opts: opts, schema: schema, orm: o, handler: h, log: opts.Logger}, nil
}

// Handler returns the app's HTTP handler. It is safe for concurrent use.
func (a *App) Handler() http.Handler { return a.handler }

// ORM returns the app's ORM, for Go code that reads or writes records.
func (a *App) ORM() *orm.ORM { return a.orm }

// Env returns the environment the app runs in.
func (a *App) Env() string { return a.opts.Env }

// Datastores returns the names of the app's datastores, sorted.
func (a *App) Datastores() []string {
	names := make([]string, 0, len(a.opts.Datastores))
	for n := range a.opts.Datastores {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Models returns the app's models, sorted by identity.
func (a *App) Models() []*model.Model { return a.schema.Models() }

// Serve answers HTTP on ln until ctx is done, then stops accepting, lets
// in-flight requests finish (up to 10s) and returns nil. It does not close
// the datastores; Close does.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// Close closes the app's datastores.
func (a *App) Close() error {
	var errs []error
	for name, d := range a.opts.Datastores {
		if err := d.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close datastore %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
