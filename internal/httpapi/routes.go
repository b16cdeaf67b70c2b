// Package httpapi is Skiff's HTTP transport: it builds the ordered route
// table (custom routes first, then blueprint shadow routes), decodes
// requests for the blueprint actions and renders results and errors in the
// shapes Sails clients expect.
package httpapi

import (
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/assets"
	"github.com/skiffhq/skiff/internal/cors"
	"github.com/skiffhq/skiff/internal/jsonenc"
	"github.com/skiffhq/skiff/internal/policy"
	"github.com/skiffhq/skiff/internal/reqlog"
	"github.com/skiffhq/skiff/internal/router"
	"github.com/skiffhq/skiff/internal/session"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/settings"
)

// Route is a custom route, bound before every blueprint route: the app's
// (settings.Route) or one of Skiff's own, with what the API description
// says of it.
type Route struct {
	settings.Route
	// Summary says what the route does in the API description (Describe);
	// it changes nothing else.
	Summary string
}

// Config is everything NewHandler wires together.
type Config struct {
	Production bool
	Models     []*model.Model
	Service    *blueprint.Service
	// Blueprints are read for the route settings (Actions, Rest,
	// Shortcuts, Pluralize, Prefix, RestPrefix); the service has the rest.
	Blueprints settings.Blueprints
	Routes     []Route
	// Actions are Go handlers by action identity ("user/hello").
	Actions   map[string]http.Handler
	BodyLimit int64
	Logger    *slog.Logger

	// Sessions loads and saves sessions around every request; nil means
	// none (and CSRF then refuses every checked request).
	Sessions *session.Manager
	// CSRF is security.csrf: whether routes without a csrf option check
	// tokens.
	CSRF bool
	// CORS is the parsed security.cors; nil means Sails' defaults.
	CORS *cors.Settings
	// Policies guard actions; nil means none.
	Policies *policy.Table
	// Assets are the app's static files, served to GET and HEAD requests
	// over HTTP that no route matches; nil means none. AssetsMaxAge is
	// their Cache-Control max-age.
	Assets       fs.FS
	AssetsMaxAge time.Duration
	// BeforeRouter and AfterRouter are the app's own middleware around the
	// router (http.middleware.order): BeforeRouter wraps routing, inside
	// the body limit and sessions; AfterRouter wraps what answers requests
	// no route matched (static files, then 404). Both see HTTP requests
	// only, as Sails runs no HTTP middleware for socket requests. nil
	// means none.
	BeforeRouter, AfterRouter func(http.Handler) http.Handler
	// ETag gives blueprint answers to GET and HEAD, and static files, a
	// weak ETag and answers a matching If-None-Match with 304, as Express
	// does (http.etag).
	ETag bool
	// Health is the liveness and readiness endpoints; zero means none.
	Health Health
	// Observer, when set, sees every request but health checks.
	Observer reqlog.Observer
	// RouteCount, when set, receives the number of routes bound (custom,
	// blueprint and action routes), for the startup summary.
	RouteCount *int
}

type handler struct {
	cfg    Config
	errors errorWriter
	router *router.Router
	models map[string]*model.Model
	cors   *cors.Settings
	// bodies recycles the buffers answers are encoded into (*[]byte): a
	// populated list is tens of kilobytes, and growing a fresh buffer for
	// each one was half the bytes such a request allocated.
	bodies sync.Pool
	// shapes are the key sets of the models' records, for the encoder.
	shapes *jsonenc.Shapes
}

// NewHandler builds the HTTP handler of an app: the body limit and
// sessions around everything, CORS preflight answers, then the router,
// whose every route runs CORS headers, the CSRF check and the action's
// policies before its target, and last the static files (Config.Assets).
// It fails when a route is malformed, targets an action that does not
// exist, or has invalid csrf or cors options.
func NewHandler(cfg Config) (http.Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = 1 << 20
	}
	h := &handler{cfg: cfg, errors: errorWriter{production: cfg.Production, log: cfg.Logger}, models: map[string]*model.Model{}}
	for _, m := range cfg.Models {
		h.models[m.Identity] = m
	}
	h.shapes = jsonenc.NewShapes(cfg.Models)
	var err error
	if h.cors, err = corsSettings(cfg.CORS); err != nil {
		return nil, err
	}
	// Unmatched requests still meet the global CORS and CSRF settings, as
	// Sails' router:before handlers run for every path. Static files come
	// after every route, as Sails' www middleware follows its router.
	notFound, err := h.secure("", nil, "", h.unmatched(), "the 404 handler")
	if err != nil {
		return nil, err
	}
	h.router = router.New(notFound)
	for _, rt := range cfg.Routes {
		if err := h.addCustom(rt); err != nil {
			return nil, fmt.Errorf("route %q: %w", strings.TrimSpace(rt.Method+" "+rt.Path), err)
		}
	}
	if err := h.addShadowRoutes(); err != nil {
		return nil, err
	}
	top := httpOnly(cfg.BeforeRouter, h.preflight(h.router))
	if cfg.Sessions != nil {
		top = cfg.Sessions.Handler(top)
	}
	if cfg.RouteCount != nil {
		*cfg.RouteCount = h.router.Len()
	}
	// Every request gets an id and a log line at info, health checks
	// excepted (see health).
	logged := reqlog.New(cfg.Logger, slog.LevelInfo).Observe(cfg.Observer).Wrap(limitBodies(top, cfg.BodyLimit))
	return h.health(logged), nil
}

// limitBodies caps every request body at limit bytes, Go actions' included:
// reading past it fails with *http.MaxBytesError, and an HTTP connection
// that sent too much is closed after its response.
func limitBodies(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

// httpOnly wraps next with mw for HTTP requests; socket virtual requests
// go to next directly. A nil mw returns next.
func httpOnly(mw func(http.Handler) http.Handler, next http.Handler) http.Handler {
	if mw == nil {
		return next
	}
	wrapped := mw(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		wrapped.ServeHTTP(w, r)
	})
}

// unmatched answers requests no route matched: a static file when one
// answers the path, else 404. Socket virtual requests never get files:
// Sails routes them through its router only, not through www.
func (h *handler) unmatched() http.Handler {
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusNotFound, "Not Found")
	})
	files := httpOnly(h.cfg.AfterRouter, assets.Handler(h.cfg.Assets, assets.Options{MaxAge: h.cfg.AssetsMaxAge, ETag: h.cfg.ETag}, notFound))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isSocket(r) {
			notFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

var pathParamRx = regexp.MustCompile(`:([A-Za-z0-9_]+)\??`)

func pathParams(path string) []string {
	var names []string
	for _, m := range pathParamRx.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

// blueprintActions maps lower-cased action names to blueprint actions.
var blueprintActions = map[string]blueprint.Action{
	"find": blueprint.Find, "findone": blueprint.FindOne, "create": blueprint.Create,
	"update": blueprint.Update, "destroy": blueprint.Destroy, "populate": blueprint.Populate,
	"add": blueprint.Add, "remove": blueprint.Remove, "replace": blueprint.Replace,
}

func (h *handler) addCustom(rt Route) error {
	var target http.Handler
	switch {
	case rt.Handler != nil:
		target = rt.Handler
	case rt.Redirect != "":
		to := rt.Redirect
		target = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		})
	case rt.Response != "":
		resp, err := defaultResponse(rt.Response)
		if err != nil {
			return err
		}
		target = resp
	case rt.Action != "":
		t, err := h.actionTarget(rt)
		if err != nil {
			return err
		}
		target = t
	default:
		return fmt.Errorf("no target: give an action, a handler, a redirect or a response")
	}
	target, err := h.secure(strings.ToUpper(rt.Method), rt.Options, strings.ToLower(rt.Action), target, strings.TrimSpace(rt.Method+" "+rt.Path))
	if err != nil {
		return err
	}
	skip := router.DefaultSkipAssets(rt.Method, rt.Path)
	if v, ok := rt.Options["skipAssets"].(bool); ok {
		skip = v
	}
	return h.router.Add(router.Route{Method: rt.Method, Path: rt.Path, Handler: target, SkipAssets: skip, Options: rt.Options})
}

// actionTarget resolves an action identity: a Go action first (it overrides
// a blueprint action of the same identity, as in Sails), then a blueprint.
func (h *handler) actionTarget(rt Route) (http.Handler, error) {
	id := strings.ToLower(rt.Action)
	if a, ok := h.cfg.Actions[id]; ok {
		return a, nil
	}
	for name, a := range h.cfg.Actions {
		if strings.ToLower(name) == id {
			return a, nil
		}
	}
	if id == GrantCSRFToken {
		return h.grantCSRFToken(), nil
	}
	identity, action, ok := strings.Cut(id, "/")
	m := h.models[identity]
	bp, isBlueprint := blueprintActions[action]
	if !ok || m == nil || !isBlueprint {
		return nil, fmt.Errorf("unknown action %q", rt.Action)
	}
	alias, _ := rt.Options["alias"].(string)
	switch bp {
	case blueprint.Populate, blueprint.Add, blueprint.Remove, blueprint.Replace:
		if a := m.Attr(alias); a == nil || !a.IsAssociation() {
			return nil, fmt.Errorf("action %q needs the route option alias naming an association of %s", rt.Action, identity)
		}
	}
	return h.handleBlueprint(blueprintRoute{
		action: bp, model: m, alias: alias, pathParams: pathParams(rt.Path), options: rt.Options, parse: rt.ParseBlueprintOptions,
	}), nil
}

// RouteInfo describes one route NewHandler binds, in binding order (the
// first route matching a request answers it), for the API description.
type RouteInfo struct {
	// Method is upper case; "" means every method.
	Method, Path string
	// Custom is the custom route, for custom routes.
	Custom *Route
	// GoAction is the identity of a Go action bound by blueprints.actions.
	GoAction string
	// Model, Action and Alias describe a blueprint route; Shortcut marks
	// the ones blueprints.shortcuts binds.
	Model    *model.Model
	Action   blueprint.Action
	Alias    string
	Shortcut bool
}

// Describe lists the routes NewHandler binds for cfg, in binding order;
// only Models, Blueprints, Routes and Actions of cfg are read. Health
// checks and static files, which answer outside the route table, are not
// in it.
func Describe(cfg Config) []RouteInfo {
	out := make([]RouteInfo, 0, len(cfg.Routes))
	for i := range cfg.Routes {
		rt := &cfg.Routes[i]
		out = append(out, RouteInfo{Method: strings.ToUpper(rt.Method), Path: rt.Path, Custom: rt})
	}
	return append(out, shadowRoutes(cfg)...)
}

// shadowRoutes are the action routes (blueprints.actions) and then the
// blueprint routes of every model, in binding order.
func shadowRoutes(cfg Config) []RouteInfo {
	bp := cfg.Blueprints
	var out []RouteInfo
	// Action routes come first, as in Sails, so GET /user/:id cannot swallow /user/hello.
	if bp.Actions {
		ids := make([]string, 0, len(cfg.Actions))
		for id := range cfg.Actions {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			out = append(out, RouteInfo{Path: bp.Prefix + "/" + id, GoAction: id})
			if id == "index" || strings.HasSuffix(id, "/index") {
				// Sails binds index actions at their folder too, without the prefix.
				idx := "/" + strings.TrimSuffix(strings.TrimSuffix(id, "index"), "/")
				out = append(out, RouteInfo{Path: idx, GoAction: id})
			}
		}
	}
	models := slices.Clone(cfg.Models)
	slices.SortFunc(models, func(a, b *model.Model) int { return strings.Compare(a.Identity, b.Identity) })
	for _, m := range models {
		name := m.Identity
		if bp.Pluralize {
			name = Pluralize(name)
		}
		b := bp.Prefix + "/" + name
		br := bp.Prefix + bp.RestPrefix + "/" + name
		add := func(method, path string, action blueprint.Action, alias string, shortcut bool) {
			out = append(out, RouteInfo{Method: method, Path: path, Model: m, Action: action, Alias: alias, Shortcut: shortcut})
		}
		if bp.Shortcuts {
			add("GET", b+"/find", blueprint.Find, "", true)
			add("GET", b+"/find/:id", blueprint.FindOne, "", true)
			add("GET", b+"/create", blueprint.Create, "", true)
			add("GET", b+"/update/:id", blueprint.Update, "", true)
			add("GET", b+"/destroy/:id", blueprint.Destroy, "", true)
			// Bound for singular associations too, so that a client trying
			// them learns to use update (400) instead of getting a 404.
			for _, a := range associations(m) {
				add("GET", b+"/:parentid/"+a+"/add/:childid", blueprint.Add, a, true)
				add("GET", b+"/:parentid/"+a+"/replace", blueprint.Replace, a, true)
				add("GET", b+"/:parentid/"+a+"/remove/:childid", blueprint.Remove, a, true)
			}
			if !bp.Rest {
				for _, a := range associations(m) {
					add("GET", b+"/:parentid/"+a, blueprint.Populate, a, true)
				}
			}
		}
		if bp.Rest {
			add("GET", br, blueprint.Find, "", false)
			add("GET", br+"/:id", blueprint.FindOne, "", false)
			add("POST", br, blueprint.Create, "", false)
			add("PATCH", br+"/:id", blueprint.Update, "", false)
			add("DELETE", br+"/:id?", blueprint.Destroy, "", false)
			add("PUT", br+"/:id", blueprint.Update, "", false)
			for _, a := range associations(m) {
				add("PUT", br+"/:parentid/"+a+"/:childid", blueprint.Add, a, false)
				add("PUT", br+"/:parentid/"+a, blueprint.Replace, a, false)
				add("DELETE", br+"/:parentid/"+a+"/:childid", blueprint.Remove, a, false)
			}
			for _, a := range associations(m) {
				add("GET", br+"/:parentid/"+a, blueprint.Populate, a, false)
			}
		}
	}
	return out
}

func (h *handler) addShadowRoutes() error {
	for _, rt := range shadowRoutes(h.cfg) {
		if rt.GoAction != "" {
			hd, err := h.secure("", nil, strings.ToLower(rt.GoAction), h.cfg.Actions[rt.GoAction], rt.Path)
			if err != nil {
				return err
			}
			if err := h.router.Add(router.Route{Path: rt.Path, Handler: hd}); err != nil {
				return fmt.Errorf("action route %s: %w", rt.Path, err)
			}
			continue
		}
		m := rt.Model
		hd := h.handleBlueprint(blueprintRoute{action: rt.Action, model: m, alias: rt.Alias, pathParams: pathParams(rt.Path)})
		hd, err := h.secure(rt.Method, nil, m.Identity+"/"+blueprintActionNames[rt.Action], hd, rt.Method+" "+rt.Path)
		if err == nil {
			err = h.router.Add(router.Route{Method: rt.Method, Path: rt.Path, Handler: hd})
		}
		if err != nil {
			return fmt.Errorf("blueprint routes of %s: %w", m.Identity, err)
		}
	}
	return nil
}

func associations(m *model.Model) []string {
	var out []string
	for _, name := range m.Order {
		if m.Attributes[name].IsAssociation() {
			out = append(out, name)
		}
	}
	return out
}

func defaultResponse(name string) (http.Handler, error) {
	status := map[string]int{
		"ok": http.StatusOK, "notFound": http.StatusNotFound, "forbidden": http.StatusForbidden,
		"badRequest": http.StatusBadRequest, "serverError": http.StatusInternalServerError,
	}[name]
	if status == 0 {
		return nil, fmt.Errorf("unknown response %q (ok, badRequest, forbidden, notFound, serverError)", name)
	}
	text := map[int]string{200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error"}[status]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeText(w, status, text) }), nil
}

// Pluralize returns the English plural of a model identity, covering the
// regular rules of the npm pluralize package Sails uses.
func Pluralize(s string) string {
	switch {
	case strings.HasSuffix(s, "quiz"):
		return s + "zes"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "z"),
		strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}
