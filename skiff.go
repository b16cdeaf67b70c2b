package skiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/internal/virtualreq"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
	"github.com/skiffhq/skiff/realtime"
)

// shutdownGrace bounds how long Serve waits for in-flight requests.
const shutdownGrace = 10 * time.Second

// App is a running Skiff application: its schema, ORM, HTTP handler and
// socket endpoint.
type App struct {
	opts    Options
	schema  *model.Schema
	orm     *orm.ORM
	handler http.Handler
	log     *slog.Logger

	hub     *realtime.Hub
	sockets *socketio.Server   // nil when Options.Sockets.Disabled
	virtual *virtualreq.Server // nil when Options.Sockets.Disabled
	sec     *security
	store   io.Closer // Options.Session.Store when it is one, else nil
	// routes is the number of routes bound; stopping is set once Serve
	// begins to shut down (readiness then answers 503).
	routes   int
	stopping atomic.Bool
}

// New resolves the models, migrates the datastores as each model asks,
// opens the session store and builds the HTTP handler. It fails on
// definition errors, unknown datastores, malformed routes and invalid
// security settings, and in production (Env "production") when the session
// secret, the socket origin policy (Sockets.OnlyAllowOrigins or
// BeforeConnect) is missing or a model's migrate is not safe, and on an
// unknown Blueprints.NotificationFormat; those checks come before any table
// is touched. It closes no datastore on failure (the caller owns the
// adapters until New succeeds), but it takes over Sockets.Bus and a
// Session.Store that is an io.Closer at once: they are closed when New
// fails, else by App.Close.
func New(ctx context.Context, opts Options) (_ *App, err error) {
	owned := ownedClosers(&opts)
	defer func() {
		if err != nil {
			for _, c := range owned {
				_ = c.Close()
			}
		}
	}()
	if opts.Env == "" {
		opts.Env = "development"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	for _, w := range opts.Warnings {
		opts.Logger.Warn("config: " + w)
	}
	beforeRouter, afterRouter, err := appMiddleware(&opts)
	if err != nil {
		return nil, err
	}
	bp := DefaultBlueprints(opts.Env)
	if opts.Blueprints != nil {
		bp = *opts.Blueprints
	}
	ownModels(&opts)
	format, err := blueprint.ParseNotificationFormat(string(bp.NotificationFormat))
	if err != nil {
		return nil, fmt.Errorf("blueprints.notificationFormat: %w", err)
	}
	if opts.Env == "production" {
		if err := productionProblems(&opts); err != nil {
			return nil, err
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
	if _, err := migrate(ctx, o, &opts); err != nil {
		return nil, err
	}
	sec, err := newSecurity(ctx, &opts)
	if err != nil {
		return nil, err
	}
	if opts.Sockets.MaxConnectionsPerIP == 0 {
		opts.Sockets.MaxConnectionsPerIP = DefaultMaxConnectionsPerIP
	}
	var bus realtime.Bus
	if !opts.Sockets.Disabled {
		if bus, err = checkBus(opts.Sockets); err != nil {
			return nil, err
		}
	}
	a := &App{opts: opts, schema: schema, orm: o, log: opts.Logger, sec: sec, store: storeCloser(opts.Session),
		hub: realtime.NewHub(schema.Models(), opts.Logger, realtime.WithBus(bus))}
	var notifier blueprint.Notifier
	if !opts.Sockets.Disabled {
		notifier = a.hub
		if no, ok := opts.Observer.(NotificationObserver); ok {
			notifier = countingHub{Hub: a.hub, obs: no}
		}
	}
	svc := blueprint.NewService(blueprint.Config{
		ORM: o, Parse: opts.ParseBlueprintOptions, Notifier: notifier, AutoWatch: bp.AutoWatch, Mirror: bp.Mirror, Logger: opts.Logger,
		DeepWatch: bp.DeepWatch, Format: format,
	})
	// The description is set once the route table it describes is built.
	var doc []byte
	var docHandler http.Handler
	if opts.OpenAPI.Served(opts.Env) {
		docHandler = documentHandler(&doc)
	}
	hcfg := httpapi.Config{
		Production:   opts.Env == "production",
		Models:       schema.Models(),
		Service:      svc,
		Blueprints:   bp,
		Routes:       httpRoutes(&opts, docHandler),
		Actions:      opts.Actions,
		BodyLimit:    opts.BodyLimit,
		Logger:       opts.Logger,
		Sessions:     sec.sessions,
		CSRF:         opts.CSRF,
		CORS:         sec.cors,
		Policies:     sec.policies,
		Assets:       opts.Assets,
		AssetsMaxAge: opts.AssetsMaxAge,
		BeforeRouter: beforeRouter,
		AfterRouter:  afterRouter,
		ETag:         !opts.NoETag,
		Health:       a.healthConfig(),
		RouteCount:   &a.routes,
		Observer:     opts.Observer,
	}
	h, err := httpapi.NewHandler(hcfg)
	if err == nil && docHandler != nil {
		doc, err = describe(&opts, hcfg)
	}
	if err != nil {
		// The hub has not started: closing the bus (owned) is all it needs.
		return nil, err
	}
	a.handler = h
	if !opts.Sockets.Disabled {
		a.serveSockets(h)
	}
	return a, nil
}

// serveSockets mounts the socket.io endpoint in front of h: sockets join
// the hub, and their virtual requests run through h itself.
func (a *App) serveSockets(h http.Handler) {
	so := a.opts.Sockets
	var vopts []virtualreq.Option
	if a.sec.sessions != nil {
		vopts = append(vopts, virtualreq.HandshakeCookie(a.sec.sessions.SocketCookie))
	}
	a.virtual = virtualreq.New(h, a.log, vopts...)
	a.sockets = socketio.NewServer(socketio.Options{
		PingInterval:    so.PingInterval,
		PingTimeout:     so.PingTimeout,
		MaxMessageBytes: so.MaxMessageBytes,
		SendQueue:       so.SendQueue,
		Allow:           admit(so),
		MaxPerIP:        so.MaxConnectionsPerIP,
		OnConnect: func(s *socketio.Socket) {
			a.hub.Register(s)
			a.virtual.Connect(s)
		},
		OnEvent: a.virtual.Serve,
		OnDisconnect: func(s *socketio.Socket, reason string) {
			a.virtual.Disconnect(s)
			a.hub.Unregister(s.ID())
		},
		Logger: a.log,
	})
	a.handler = newDispatch(a.sockets, h)
}

// getCookie answers GET /__getcookie. Its work is done by the session
// layer in front of it, which sets the session cookie on a request that
// has none (session.saveUninitialized), so that a cross-origin socket's
// handshake then carries it.
func getCookie(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/javascript")
	_, _ = io.WriteString(w, "_sailsIoJSConnect();")
}

// admit is the handshake check: BeforeConnect when set, else the origin
// allow-list.
func admit(so Sockets) func(r *http.Request) error {
	if so.BeforeConnect != nil {
		return so.BeforeConnect
	}
	if len(so.OnlyAllowOrigins) == 0 {
		return nil
	}
	allowed := map[string]bool{}
	for _, o := range so.OnlyAllowOrigins {
		allowed[strings.TrimRight(o, "/")] = true
	}
	return func(r *http.Request) error {
		if origin := r.Header.Get("Origin"); !allowed[origin] {
			return fmt.Errorf("origin %q is not allowed to connect (sockets.onlyAllowOrigins)", origin)
		}
		return nil
	}
}

// Realtime returns the app's rooms and pub/sub: Go code subscribes sockets
// and publishes messages through it. realtime.SocketID(r.Context()) gives
// the socket of a virtual request. With Sockets.Bus set, Serve starts
// its bus; an app served through Handler by another server calls
// Realtime().Start itself.
func (a *App) Realtime() *realtime.Hub { return a.hub }

// Handler returns the app's HTTP handler. It is safe for concurrent use.
func (a *App) Handler() http.Handler { return a.handler }

// ORM returns the app's ORM, for Go code that reads or writes records.
func (a *App) ORM() *orm.ORM { return a.orm }

// Custom returns the app's own settings (Options.Custom: the custom
// section of its config), never nil. Callers must not modify it; CustomValue
// reads one setting with its type.
func (a *App) Custom() map[string]any {
	if a.opts.Custom == nil {
		return map[string]any{}
	}
	return a.opts.Custom
}

// CustomValue returns the custom setting at path (keys of nested
// mappings: CustomValue[string](app, "mail", "from")) and whether it is set
// with type T. Numbers from a config file are float64.
func CustomValue[T any](a *App, path ...string) (T, bool) {
	var zero T
	var v any = a.Custom()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return zero, false
		}
		if v, ok = m[k]; !ok {
			return zero, false
		}
	}
	t, ok := v.(T)
	return t, ok
}

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

// RouteCount returns the number of routes the app binds: custom routes,
// blueprint routes and action routes.
func (a *App) RouteCount() int { return a.routes }

// DatastoreInfo returns, for each datastore name, where its data lives
// (the adapter's description: engine and host or file, never a password;
// the adapter's Go type when it gives none).
func (a *App) DatastoreInfo() map[string]string {
	out := map[string]string{}
	for name, d := range a.opts.Datastores {
		if ds, ok := d.(datastore.Describer); ok {
			out[name] = ds.Describe()
		} else {
			out[name] = fmt.Sprintf("%T", d)
		}
	}
	return out
}

// DatastoreAdapters returns the app's datastores by name; callers must not
// close them (Close does).
func (a *App) DatastoreAdapters() map[string]datastore.Adapter {
	out := make(map[string]datastore.Adapter, len(a.opts.Datastores))
	for name, d := range a.opts.Datastores {
		out[name] = d
	}
	return out
}

// healthConfig resolves Options.Health for the HTTP layer.
func (a *App) healthConfig() httpapi.Health {
	h := a.opts.Health
	var out httpapi.Health
	if !h.NoLiveness {
		out.Liveness = orDefault(h.Liveness, "/healthz")
	}
	if !h.NoReadiness {
		out.Readiness = orDefault(h.Readiness, "/readyz")
	}
	out.Ready = a.ready
	return out
}

// ready is the readiness check: not shutting down, the realtime bus (when
// one is configured) connected, and every datastore
// that can be pinged answers. The error is shown to the prober; the
// datastore's own error, which may name hosts, goes to the log.
func (a *App) ready(ctx context.Context) error {
	if a.stopping.Load() {
		return errors.New("shutting down")
	}
	if !a.hub.BusReady() {
		return errors.New("the realtime bus is not connected")
	}
	for _, name := range a.Datastores() {
		p, ok := a.opts.Datastores[name].(datastore.Pinger)
		if !ok {
			continue
		}
		if err := p.Ping(ctx); err != nil {
			a.log.WarnContext(ctx, "readiness: datastore does not answer", "datastore", name, "err", err)
			return fmt.Errorf("datastore %s does not answer", name)
		}
	}
	return nil
}

// Models returns the app's models, sorted by identity.
func (a *App) Models() []*model.Model { return a.schema.Models() }

// Serve answers HTTP on ln until ctx is done, then stops accepting, lets
// in-flight requests finish (up to 10s) and returns nil. It does not close
// the datastores; Close does.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	so := a.opts.Server
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: orDefault(so.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       so.ReadTimeout,
		WriteTimeout:      so.WriteTimeout,
		IdleTimeout:       orDefault(so.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    orDefault(so.MaxHeaderBytes, 1<<20),
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	a.hub.Start()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.stopping.Store(true)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	// Sockets are hijacked connections Shutdown does not track: close them
	// first (they get a close frame), then let their requests finish.
	a.closeSockets(shutdownCtx)
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func (a *App) closeSockets(ctx context.Context) {
	if a.sockets == nil {
		return
	}
	if err := a.sockets.Close(ctx); err != nil && !errors.Is(err, socketio.ErrServerClosed) {
		a.log.Warn("closing sockets", slog.Any("err", err))
	}
	if err := a.virtual.Wait(ctx); err != nil {
		a.log.Warn("waiting for socket requests", slog.Any("err", err))
	}
}

// orDefault returns v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Sockets returns the app's socket settings, with MaxConnectionsPerIP's
// default applied.
func (a *App) Sockets() Sockets { return a.opts.Sockets }

// Close closes the app's sockets, if Serve has not, its realtime bus, its
// session store and its datastores.
func (a *App) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	a.closeSockets(ctx)
	var errs []error
	if err := a.hub.Close(); err != nil {
		errs = append(errs, err)
	}
	if a.store != nil {
		if err := a.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close session store: %w", err))
		}
	}
	for name, d := range a.opts.Datastores {
		if err := d.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close datastore %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
