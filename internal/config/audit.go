package config

import (
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/settings"
)

// LevelSilent is the log level of log.level: silent; no record reaches it.
const LevelSilent = settings.LevelSilent

// verdict is what a setting Skiff does not fully carry out means for the
// start: a warning to print once (harmless), or an error (the user would be
// misled); both empty when the value asks for nothing Skiff leaves undone.
type verdict struct {
	warning string
	refusal string
}

// judge decides on one value of a setting.
type judge func(v any) verdict

// warn always warns with msg.
func warn(msg string) judge { return func(any) verdict { return verdict{warning: msg} } }

// refuse always refuses with msg.
func refuse(msg string) judge { return func(any) verdict { return verdict{refusal: msg} } }

// emptyMapping stands for {} among the values unless lets through.
type emptyMapping struct{}

// unless applies j except when v is one of the values ok lists (the ones
// that ask for what Skiff does anyway).
func unless(j judge, ok ...any) judge {
	return func(v any) verdict {
		if m, isMap := v.(*omap); isMap && len(m.keys) == 0 && slices.Contains(ok, any(emptyMapping{})) {
			return verdict{}
		}
		if _, isMap := v.(*omap); !isMap && slices.Contains(ok, v) {
			return verdict{}
		}
		return j(v)
	}
}

// Messages shared by several settings.
const (
	jsRedisClient = "ignored: a JavaScript Redis client; Skiff connects itself from sockets.url (or host, port, pass, db)"
	busFunction   = "ignored: a function in Sails; Skiff logs a bus outage and reconnects by itself"
	goFunction    = "is a function in Sails; set it from Go"
	noJSGlobals   = "ignored: Skiff exposes no JavaScript globals"
)

// rules judges the settings that Skiff accepts without (fully) carrying
// them out, by key path. Every key of appSchema is either read by build
// (or by the server from the App it returns) or listed here; the table test
// in audit_test.go holds each key's outcome. A key another part handles
// (session.saveUninitialized, ...) is simply absent.
func rules() map[string]judge {
	return map[string]judge{
		// Top-level sections and settings of a Sails app.
		"views":       warn("ignored: Skiff serves no server-rendered views (only JSON, assets/ and Go actions)"),
		"i18n":        warn("ignored: Skiff has no translations (req.__)"),
		"globals":     globals,
		"paths":       warn("ignored: Skiff serves static files from the app folder's assets/ and reads no other path setting"),
		"hookTimeout": warn("ignored: Skiff has no hooks to wait for"),
		"proxyHost":   warn("ignored: Skiff builds no absolute URLs (sails.getBaseUrl)"),
		"proxyPort":   warn("ignored: Skiff builds no absolute URLs (sails.getBaseUrl)"),
		"ssl": unless(refuse("Skiff serves plain HTTP only: terminate TLS in front of it "+
			"(a load balancer or reverse proxy), or remove ssl"), false, emptyMapping{}),

		"models.globalId":             warn("ignored: Skiff exposes no JavaScript globals"),
		"models.archiveModelIdentity": unless(warn("ignored: Skiff has no archive model (.archive() and soft deletes)"), false),
		"models.dataEncryptionKeys":   warn("ignored: Skiff encrypts no attributes (encrypt: true is refused on attributes)"),
		"models.dontUseObjectIds":     unless(warn("ignored: a sails-mongo setting; Skiff has no MongoDB adapter"), false),
		"models.fetchRecordsOnCreate": fetchRecords, "models.fetchRecordsOnCreateEach": fetchRecords,
		"models.fetchRecordsOnUpdate": fetchRecords, "models.fetchRecordsOnDestroy": fetchRecords,

		"sockets.adapter": unless(refuse("unknown socket adapter: use memory (one instance), "+
			"redis (Sails' @sailshq/socket.io-redis and socket.io-redis are read as redis) or nats"),
			"memory", "socket.io-adapter-memory", "redis", "socket.io-redis", "@sailshq/socket.io-redis", "nats"),
		"sockets.pubClient": warn(jsRedisClient), "sockets.subClient": warn(jsRedisClient),
		"sockets.adminPubClient": warn(jsRedisClient), "sockets.adminSubClient": warn(jsRedisClient),
		"sockets.subEvent":          warn("ignored: Skiff's bus has its own message format"),
		"sockets.onRedisDisconnect": warn(busFunction), "sockets.onRedisReconnect": warn(busFunction),
		"sockets.socket":          warn("ignored: Skiff does not know this socket.io setting"),
		"sockets.beforeConnect":   unless(refuse("beforeConnect "+goFunction+" (Options.Sockets.BeforeConnect), or use onlyAllowOrigins"), false),
		"sockets.afterDisconnect": unless(refuse("afterDisconnect "+goFunction+" (App.Realtime)"), false),
		"sockets.onConnect":       unless(refuse("onConnect was removed in Sails 1.0 and "+goFunction), false),
		"sockets.onDisconnect":    unless(refuse("onDisconnect was removed in Sails 1.0 and "+goFunction), false),
		"sockets.authorization":   unless(refuse("authorization was removed in Sails 1.0: use beforeConnect from Go, or onlyAllowOrigins"), false),
		"sockets.path": unless(refuse("Skiff serves socket.io at /socket.io only: a client "+
			"told to use another path would not connect"), "/socket.io", "/socket.io/"),
		"sockets.serveClient":         unless(warn("ignored: Skiff does not serve the socket.io client script; serve sails.io.js from assets/"), false),
		"sockets.cookie":              unless(warn("ignored: Skiff sets no socket.io cookie"), false),
		"sockets.sendResponseHeaders": unless(warn("ignored: Skiff always sends a virtual response's headers"), true),
		"sockets.sendStatusCode":      unless(warn("ignored: Skiff always sends a virtual response's status code"), true),

		"session.resave":     unless(warn("ignored: Skiff saves a session only when it changes (resave: false)"), false),
		"session.rolling":    unless(warn("ignored: Skiff renews the cookie only when the session changes (rolling: false)"), false),
		"session.proxy":      unless(warn("ignored: Skiff does not read X-Forwarded-Proto; cookie.secure cookies are sent whatever the scheme"), false),
		"session.unset":      unless(warn("ignored: Skiff keeps an unset session (unset: keep)"), "keep"),
		"session.ttl":        warn("ignored: the store keeps a session for cookie.maxAge, or 24 hours without one"),
		"session.collection": warn("ignored: a connect-mongo setting; Skiff has no MongoDB store"),

		"session.cookie.expires":     warn("ignored: use cookie.maxAge"),
		"session.cookie.partitioned": unless(warn("ignored: Skiff sets no Partitioned attribute"), false),
		"session.cookie.priority":    warn("ignored: Skiff sets no Priority attribute"),

		"http.trustProxy": unless(warn("ignored: Skiff does not read X-Forwarded-* headers: a client's address "+
			"is the proxy's (sockets.maxConnectionsPerIP counts per proxy: raise it, or set -1)"), false),
		"http.bodyParser": unless(refuse("a JavaScript body parser cannot run: Skiff parses JSON, "+
			"url-encoded and multipart bodies itself (up to http.bodyLimit)"), false),
	}
}

// fetchRecords judges models.fetchRecordsOn*: they change what Sails'
// model methods return to JavaScript code; blueprint actions fetch anyway.
func fetchRecords(v any) verdict {
	if v == false {
		return verdict{}
	}
	return verdict{warning: "ignored: blueprint actions always answer with the records, and Go code reads them from the orm package's return values"}
}

// globals judges the globals section: false, or false for each global,
// asks for nothing.
func globals(v any) verdict {
	m, ok := v.(*omap)
	if !ok {
		if v == false {
			return verdict{}
		}
		return verdict{warning: noJSGlobals}
	}
	for _, k := range m.keys {
		if m.vals[k] != false && m.vals[k] != nil {
			return verdict{warning: noJSGlobals}
		}
	}
	return verdict{}
}

// socketBusKeys are the sockets keys a bus reads, with the adapters that
// read them.
var socketBusKeys = map[string][]string{
	"url": {"redis", "nats"}, "key": {"redis", "nats"}, "adapterOptions": {"redis", "nats"},
	"host": {"redis"}, "port": {"redis"}, "pass": {"redis"}, "db": {"redis"},
}

// auditSocketBus warns about the bus settings the chosen sockets.adapter
// does not read.
func auditSocketBus(sockets map[string]any, say func(keyPath, msg string)) {
	adapter, _ := sockets["adapter"].(string)
	switch adapter {
	case "", "socket.io-adapter-memory":
		adapter = "memory"
	case "socket.io-redis", "@sailshq/socket.io-redis":
		adapter = "redis"
	}
	for _, k := range slices.Sorted(maps.Keys(socketBusKeys)) {
		if _, set := sockets[k]; set && !slices.Contains(socketBusKeys[k], adapter) {
			say("sockets."+k, fmt.Sprintf("ignored: only the %s adapter reads it, and sockets.adapter is %s",
				strings.Join(socketBusKeys[k], " and "), adapter))
		}
	}
	if ao, ok := sockets["adapterOptions"].(map[string]any); ok && adapter != "memory" {
		for _, k := range slices.Sorted(maps.Keys(ao)) {
			if k != "key" {
				say("sockets.adapterOptions."+k, "ignored: Skiff's bus reads only adapterOptions.key (the channel prefix)")
			}
		}
	}
}

// sessionStoreKeys are session keys only one store reads, by store.
var sessionStoreKeys = map[string]string{
	"url": "redis", "host": "redis", "port": "redis", "pass": "redis", "password": "redis",
	"user": "redis", "username": "redis", "db": "redis", "prefix": "redis", "datastore": "datastore",
}

// datastoreKeys are the settings each adapter reads besides adapter and url.
var datastoreKeys = map[string][]string{
	"sqlite":   {"inMemoryOnly", "dir"},
	"postgres": {"earlyLockRelease", "ssl"},
	"mysql":    {"ssl", "host", "port", "user", "password", "database"},
}

// hookOff says what turning a Sails hook off (hooks.<name>: false) means.
// Hooks Skiff does not have are off already; session, sockets and
// blueprints are honoured by build; the rest cannot be turned off.
var hookOff = map[string]bool{
	"grunt": true, "views": true, "i18n": true, "userhooks": true,
	"session": true, "sockets": true, "blueprints": true,
}

// audit judges the merged tree's settings that Skiff does not carry out
// as written and applies the ones build honours by switching a feature off
// (hooks, http.middleware.order); it returns the warnings in key order, or
// the first refusal.
func audit(src string, tree *omap, app *App) ([]string, error) {
	var warnings []string
	say := func(keyPath, msg string) { warnings = append(warnings, keyPath+": "+msg) }
	rs := rules()
	for _, p := range slices.Sorted(maps.Keys(rs)) {
		v, ok := lookup(tree, strings.Split(p, "."))
		if !ok || v == nil {
			continue
		}
		switch vd := rs[p](v); {
		case vd.refusal != "":
			return nil, fmt.Errorf("%s: %s: %s: %w", src, p, vd.refusal, ErrUnsupported)
		case vd.warning != "":
			say(p, vd.warning)
		}
	}
	store := app.SessionSettings.Adapter
	if store == "" {
		store = "memory"
	}
	for _, k := range slices.Sorted(maps.Keys(sessionStoreKeys)) {
		if _, set := app.Session[k]; set && sessionStoreKeys[k] != store {
			say("session."+k, fmt.Sprintf("ignored: only the %s adapter reads it, and session.adapter is %s", sessionStoreKeys[k], store))
		}
	}
	auditSocketBus(app.Sockets, say)
	if err := auditLog(src, tree, app, say); err != nil {
		return nil, err
	}
	if err := auditHooks(src, tree, app); err != nil {
		return nil, err
	}
	if err := auditDatastores(src, app, say); err != nil {
		return nil, err
	}
	if err := auditMiddleware(src, app, say); err != nil {
		return nil, err
	}
	if v, ok := tree.get("environment"); ok && v != nil && v != app.Env {
		return nil, fmt.Errorf("%s: environment is %s, but Skiff runs the %q environment: choose it with --env or SKIFF_ENV, not in a config file: %w",
			src, describe(v), app.Env, ErrUnsupported)
	}
	return warnings, nil
}

// lookup returns the value at keyPath in tree.
func lookup(tree *omap, keyPath []string) (any, bool) {
	var v any = tree
	for _, k := range keyPath {
		m, ok := v.(*omap)
		if !ok {
			return nil, false
		}
		if v, ok = m.get(k); !ok {
			return nil, false
		}
	}
	return v, true
}

// logLevels maps Sails' log levels to slog's. Sails ranks debug between
// warn and info; Skiff has no messages of that rank, so debug shows info
// too. verbose and silly show everything.
var logLevels = map[string]slog.Level{
	"silent": LevelSilent, "error": slog.LevelError, "warn": slog.LevelWarn, "debug": slog.LevelInfo,
	"info": slog.LevelInfo, "verbose": slog.LevelDebug, "silly": slog.LevelDebug,
}

// auditLog reads log.level and warns about the log section's other keys.
func auditLog(src string, tree *omap, app *App, say func(string, string)) error {
	v, _ := tree.get("log")
	m, _ := v.(*omap)
	if m == nil {
		return nil
	}
	for _, k := range m.keys {
		if k == "level" || k == "format" || m.vals[k] == nil {
			continue
		}
		say("log."+k, "ignored: Skiff logs through Go's log/slog (the command: lines on stderr); only log.level and log.format apply")
	}
	if fv, _ := m.get("format"); fv != nil {
		f, _ := fv.(string)
		switch f = strings.ToLower(strings.TrimSpace(f)); f {
		case "text", "json":
			app.LogFormat = f
		default:
			return fmt.Errorf("%s: log.format must be text or json, not %q: %w", src, fv, ErrInvalid)
		}
	}
	lv, _ := m.get("level")
	if lv == nil {
		return nil
	}
	s, _ := lv.(string) // the schema made it a string
	level, ok := logLevels[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return fmt.Errorf("%s: log.level must be silent, error, warn, debug, info, verbose or silly, not %q: %w", src, s, ErrInvalid)
	}
	app.LogLevel = level
	return nil
}

// auditHooks applies hooks.<name>: false for the hooks Skiff can do
// without, and refuses the rest (and installable hooks, which are
// JavaScript).
func auditHooks(src string, tree *omap, app *App) error {
	v, _ := tree.get("hooks")
	m, _ := v.(*omap)
	if m == nil {
		return nil
	}
	for _, k := range m.keys {
		switch val := m.vals[k]; {
		case val == nil || val == true:
		case val == false && hookOff[k]:
			switch k {
			case "session":
				app.SessionDisabled = true
			case "sockets":
				app.SocketsDisabled = true
			case "blueprints":
				app.Blueprints.Actions, app.Blueprints.Rest, app.Blueprints.Shortcuts = false, false, false
			}
		case val == false:
			return fmt.Errorf("%s: hooks.%s: false: Skiff cannot run without its %s (it can turn off session, sockets and blueprints): %w", src, k, k, ErrUnsupported)
		default:
			return fmt.Errorf("%s: hooks.%s is %s: installable hooks are JavaScript, which Skiff cannot run: %w", src, k, describe(val), ErrUnsupported)
		}
	}
	return nil
}

// auditDatastores checks each datastore's settings against its adapter:
// inMemoryOnly is sails-disk's and makes no sense on a server database, and
// keys the adapter does not read get a warning. Adapters Skiff does not
// ship are refused when the app opens its datastores.
func auditDatastores(src string, app *App, say func(string, string)) error {
	for _, name := range slices.Sorted(maps.Keys(app.Datastores)) {
		ds := app.Datastores[name]
		adapter, _ := ds["adapter"].(string)
		known, ok := datastoreKeys[adapter]
		if !ok {
			continue
		}
		if on, _ := ds["inMemoryOnly"].(bool); on {
			if adapter != "sqlite" {
				return fmt.Errorf("%s: datastores.%s.inMemoryOnly: a sails-disk setting: a %s database keeps its data on its server (use adapter sails-disk or sqlite for an in-memory database): %w",
					src, name, adapter, ErrUnsupported)
			}
			if ds["url"] != nil || ds["dir"] != nil {
				return fmt.Errorf("%s: datastores.%s: inMemoryOnly keeps no file, so it cannot be combined with url or dir: %w", src, name, ErrInvalid)
			}
		}
		if adapter == "postgres" && ds["ssl"] != nil {
			if err := postgresSSL(ds); err != nil {
				return fmt.Errorf("%s: datastores.%s.ssl: %w", src, name, err)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(ds)) {
			if k == "adapter" || k == "url" || slices.Contains(known, k) || (k == "inMemoryOnly" && ds[k] == false) {
				continue
			}
			say("datastores."+name+"."+k, fmt.Sprintf("ignored: the %s adapter reads only adapter, url, %s", adapter, strings.Join(known, ", ")))
		}
	}
	return nil
}

// auditMiddleware checks http.middleware as Sails 1.x reads it: order is a
// list of names; those after router run for requests no route matched (the
// router always runs: an order without it puts every name before it); a
// middleware set to false is off, as if the order left it out. Leaving
// www or session out turns static files or sessions off; built-ins Skiff
// runs in another place get a warning. Other names, and other values of
// middleware keys, are the server's to judge against the Go middleware.
func auditMiddleware(src string, app *App, say func(string, string)) error {
	mw, _ := app.HTTP["middleware"].(map[string]any)
	app.MiddlewareSettings = map[string]any{}
	off := map[string]bool{}
	for k, v := range mw {
		switch {
		case k == "order":
		case v == false:
			off[k] = true
		case settings.IsBuiltinMiddleware(k):
			return fmt.Errorf("%s: http.middleware.%s: Skiff runs its own %s and cannot run a JavaScript replacement: remove the setting (or set it to false to turn %s off): %w",
				src, k, k, k, ErrUnsupported)
		default:
			app.MiddlewareSettings[k] = v
		}
	}
	v, set := mw["order"]
	if !set {
		if len(off) > 0 {
			return auditOrder(src, app, nil, off, say)
		}
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: http.middleware.order must be a list of middleware names, not %s: %w", src, describe(v), ErrInvalid)
	}
	order := make([]string, 0, len(list))
	for _, e := range list {
		name, ok := e.(string)
		if !ok || name == "" {
			return fmt.Errorf("%s: http.middleware.order must list middleware names, not %s: %w", src, describe(e), ErrInvalid)
		}
		if slices.Contains(order, name) {
			return fmt.Errorf("%s: http.middleware.order lists %q twice: %w", src, name, ErrInvalid)
		}
		order = append(order, name)
	}
	return auditOrder(src, app, order, off, say)
}

// defaultOrder is Sails 1.x's http.middleware.order.
var defaultOrder = []string{"cookieParser", "session", "bodyParser", "compress", "poweredBy", "router", "www", "favicon"}

// auditOrder applies order (nil: Sails' default) less the middleware
// turned off, and warns about built-ins out of Skiff's place.
func auditOrder(src string, app *App, order []string, off map[string]bool, say func(string, string)) error {
	if order == nil {
		order = defaultOrder
	}
	order = slices.DeleteFunc(slices.Clone(order), func(n string) bool { return off[n] })
	app.MiddlewareOrder = order
	router := slices.Index(order, "router")
	if router < 0 {
		router = len(order)
	}
	if !slices.Contains(order, "session") {
		app.SessionDisabled = true
	}
	if !slices.Contains(order, "bodyParser") {
		say("http.middleware.order", "bodyParser is left out or off, but Skiff parses request bodies anyway")
	}
	var late []string
	for _, name := range []string{"cookieParser", "session", "bodyParser"} {
		if i := slices.Index(order, name); i > router {
			late = append(late, name)
		}
	}
	if len(late) > 0 {
		say("http.middleware.order", "router comes before "+strings.Join(late, ", ")+", but Skiff runs them before routing")
	}
	if i := slices.Index(order, "www"); i >= 0 && i < router {
		say("http.middleware.order", "www comes before router, but Skiff serves static files only to requests no route matched")
	}
	return nil
}

// postgresSSL turns sails-postgresql's ssl setting into the url's sslmode:
// false is disable, true verify-full (node-postgres checks the
// certificate), {rejectUnauthorized: false} require (encrypted, not
// verified). Certificates and a url that already has sslmode are refused:
// they belong in the url, once.
func postgresSSL(ds map[string]any) error {
	raw, _ := ds["url"].(string)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("give sslmode in the connection string instead: %w", ErrUnsupported)
	}
	q := u.Query()
	if q.Has("sslmode") {
		return fmt.Errorf("the url already sets sslmode: remove ssl: %w", ErrInvalid)
	}
	mode := ""
	switch v := ds["ssl"].(type) {
	case bool:
		mode = map[bool]string{false: "disable", true: "verify-full"}[v]
	case map[string]any:
		mode = "verify-full"
		for k, x := range v {
			if k != "rejectUnauthorized" {
				return fmt.Errorf("%s cannot be set here: give sslmode, sslrootcert, sslcert and sslkey in the url: %w", k, ErrUnsupported)
			}
			b, ok := x.(bool)
			if !ok {
				return fmt.Errorf("rejectUnauthorized must be true or false, not %s: %w", describe(x), ErrInvalid)
			}
			if !b {
				mode = "require"
			}
		}
	default:
		return fmt.Errorf("must be true, false or {rejectUnauthorized: false}, not %s: %w", describe(v), ErrInvalid)
	}
	q.Set("sslmode", mode)
	u.RawQuery = q.Encode()
	ds["url"] = u.String()
	return nil
}
