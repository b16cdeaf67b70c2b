package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// kind is the type a schema demands of a value.
type kind uint8

const (
	anyKind kind = iota
	mapKind
	boolKind
	stringKind
	numberKind
	listKind
)

// schema describes the keys Skiff accepts at one place of the configuration.
// A nil *schema accepts any value.
type schema struct {
	kind    kind
	keys    map[string]*schema // known keys of a mapping
	open    bool               // the mapping also takes keys outside keys ...
	elem    *schema            // ... whose values follow elem
	refused map[string]string  // keys rejected with ErrUnsupported and this reason
}

func mapping(keys map[string]*schema) *schema { return &schema{kind: mapKind, keys: keys} }

func openMapping(elem *schema) *schema { return &schema{kind: mapKind, open: true, elem: elem} }

// appSchema returns the sections of an app's configuration and their known
// keys, after config.md (Sails 1.x hook defaults) and security.md.
func appSchema() *schema {
	boolean := &schema{kind: boolKind}
	text := &schema{kind: stringKind}
	number := &schema{kind: numberKind}
	fn := "is a function in Sails; it cannot be set from a config file (use the Go API)"
	models := mapping(map[string]*schema{
		"attributes": openMapping(nil), "primaryKey": text, "datastore": text, "schema": boolean,
		"migrate": text, "cascadeOnDestroy": boolean, "customToJSON": nil, "description": nil,
		"globalId": nil, "archiveModelIdentity": nil, "dataEncryptionKeys": openMapping(nil),
		"fetchRecordsOnCreate": boolean, "fetchRecordsOnCreateEach": boolean,
		"fetchRecordsOnUpdate": boolean, "fetchRecordsOnDestroy": boolean, "dontUseObjectIds": nil,
	})
	models.refused = map[string]string{
		"autoPK":        "autoPK was removed in Sails 1.0: declare the primary key attribute and name it in primaryKey",
		"autoCreatedAt": "top-level autoCreatedAt was removed in Sails 1.0: set autoCreatedAt: true on an attribute",
		"autoUpdatedAt": "top-level autoUpdatedAt was removed in Sails 1.0: set autoUpdatedAt: true on an attribute",
		"connection":    "connection was removed in Sails 1.0: use datastore",
		"types":         "custom types were removed in Sails 1.0: use validation rules",
		"tableName":     "tableName cannot be set for every model: set it in the model file",
		"identity":      "identity cannot be set for every model: it comes from the model file name",
	}

	blueprints := mapping(map[string]*schema{
		"actions": boolean, "rest": boolean, "shortcuts": boolean, "pluralize": boolean,
		"autoWatch": boolean, "mirror": boolean, "prefix": text, "restPrefix": text,
		"deepWatch": boolean, "notificationFormat": text,
	})
	removed := "was removed in Sails 1.0 (the default limit is 30 and populate follows the request): " +
		"customise blueprint queries with parseBlueprintOptions from Go"
	blueprints.refused = map[string]string{
		"jsonp":                 "E_JSONP_UNSUPPORTED: JSONP is not supported; use CORS instead",
		"defaultLimit":          "defaultLimit " + removed,
		"populate":              "populate " + removed,
		"parseBlueprintOptions": "parseBlueprintOptions " + fn,
	}

	// A datastore takes any key (an adapter's own settings); audit warns
	// about the ones its adapter does not read.
	datastore := openMapping(nil)
	datastore.keys = map[string]*schema{
		"adapter": text, "url": text, "inMemoryOnly": boolean, "dir": text, "earlyLockRelease": boolean, "ssl": nil,
	}
	datastores := openMapping(datastore)

	cors := mapping(map[string]*schema{
		"allRoutes": boolean, "allowOrigins": nil, "allowCredentials": boolean,
		"allowRequestMethods": nil, "allowRequestHeaders": nil, "allowResponseHeaders": nil,
		"allowAnyOriginWithCredentialsUnsafe": boolean,
		// legacy names that Sails maps to the ones above
		"origin": nil, "credentials": nil, "headers": nil, "methods": nil, "exposeHeaders": nil,
	})
	cors.refused = map[string]string{"securityLevel": "securityLevel was removed in Sails 1.0"}
	security := mapping(map[string]*schema{"csrf": boolean, "cors": cors})

	sockets := mapping(map[string]*schema{
		"adapter": nil, "adapterOptions": openMapping(nil), "url": nil, "db": nil, "host": nil,
		"port": nil, "pass": nil, "pubClient": nil, "subClient": nil, "subEvent": nil, "socket": nil,
		"key": nil, "adminPubClient": nil, "adminSubClient": nil, "transports": nil,
		"onlyAllowOrigins": nil, "beforeConnect": nil, "afterDisconnect": nil, "path": nil,
		"serveClient": nil, "pingTimeout": nil, "pingInterval": nil, "maxHttpBufferSize": nil,
		"maxBufferSize": nil, "allowUpgrades": nil, "cookie": nil, "sendResponseHeaders": nil,
		"sendStatusCode": nil, "grant3rdPartyCookie": nil, "onRedisDisconnect": nil,
		"onRedisReconnect": nil, "authorization": nil, "onDisconnect": nil, "onConnect": nil,
		"maxConnectionsPerIP": number,
	})
	sockets.refused = map[string]string{"allowRequest": "allowRequest is not supported: use beforeConnect"}

	cookie := mapping(map[string]*schema{
		"maxAge": nil, "secure": boolean, "httpOnly": nil, "path": nil, "domain": nil,
		"sameSite": nil, "expires": nil, "partitioned": nil, "priority": nil,
	})
	session := mapping(map[string]*schema{
		"adapter": nil, "name": text, "key": nil, "secret": text, "cookie": cookie,
		"resave": nil, "saveUninitialized": boolean, "rolling": nil, "proxy": nil, "unset": nil,
		// store-specific (connect-redis, connect-mongo, ...)
		"url": nil, "host": nil, "port": nil, "pass": nil, "password": nil, "user": nil,
		"username": nil, "db": nil, "prefix": nil, "ttl": nil, "collection": nil,
		"datastore": text,
	})
	session.refused = map[string]string{
		"routesDisabled":                 "routesDisabled was removed in Sails 1.0: use isSessionDisabled from Go",
		"isSessionDisabled":              "isSessionDisabled " + fn,
		"handleConstructingSessionStore": "handleConstructingSessionStore " + fn,
		"genid":                          "genid " + fn,
	}

	middleware := openMapping(nil)
	middleware.keys = map[string]*schema{"order": {kind: listKind}}
	http := mapping(map[string]*schema{
		"bodyLimit": nil, "middleware": middleware, "trustProxy": nil, "cache": nil, "bodyParser": nil,
		"readHeaderTimeout": nil, "readTimeout": nil, "writeTimeout": nil, "idleTimeout": nil, "maxHeaderBytes": nil,
		"etag": boolean,
	})

	http.refused = map[string]string{
		"customMiddleware": "customMiddleware " + fn + ": register Go middleware (Options.Middleware) and name it in http.middleware.order",
		"loadMiddleware":   "loadMiddleware " + fn + ": register Go middleware (Options.Middleware) and name it in http.middleware.order",
		"serverOptions":    "serverOptions are Node server options: Skiff's server takes readHeaderTimeout, readTimeout, writeTimeout, idleTimeout and maxHeaderBytes, and serves plain HTTP",
	}

	log := openMapping(nil)
	log.keys = map[string]*schema{"level": text, "format": text}

	// Sails' other standard sections (a new app's config/ and the core's
	// top-level settings); audit decides what each value means for Skiff.
	app := mapping(map[string]*schema{
		"models": models, "blueprints": blueprints, "datastores": datastores,
		"routes": openMapping(nil), "security": security, "sockets": sockets, "session": session,
		"policies": openMapping(nil), "http": http, "port": number,
		"log": log, "custom": openMapping(nil), "views": nil, "i18n": nil, "globals": nil,
		"hooks": openMapping(nil), "paths": openMapping(nil), "environment": text, "explicitHost": text,
		"ssl": nil, "proxyHost": text, "proxyPort": number, "hookTimeout": number,
		// Skiff's own: the paths of the health endpoints.
		"health": mapping(map[string]*schema{"liveness": nil, "readiness": nil}),
		// Skiff's own: the admin listener (metrics, pprof), off by default.
		"admin": mapping(map[string]*schema{"addr": text}),
		// Skiff's own: the OpenAPI description (GET /openapi.json).
		"openapi": mapping(map[string]*schema{"enabled": boolean, "path": text}),
	})
	app.refused = map[string]string{
		"bootstrap": "bootstrap " + fn + ", before calling Serve",
	}
	return app
}

// child returns the schema of key k inside s and whether k is allowed.
func (s *schema) child(k string) (*schema, bool) {
	if s == nil {
		return nil, true
	}
	if c, ok := s.keys[k]; ok {
		return c, true
	}
	return s.elem, s.open
}

// refusedKey reports whether s refuses k, and why.
func (s *schema) refusedKey(k string) (string, bool) {
	if s == nil {
		return "", false
	}
	why, ok := s.refused[k]
	return why, ok
}

// check validates v against s; src names the file or variable the value
// came from and keyPath where it sits.
func (s *schema) check(src string, keyPath []string, v any) error {
	if s == nil || v == nil {
		return nil
	}
	want := ""
	switch s.kind {
	case boolKind:
		if _, ok := v.(bool); !ok {
			want = "true or false"
		}
	case stringKind:
		if _, ok := v.(string); !ok {
			want = "a string"
		}
	case numberKind:
		if _, ok := v.(float64); !ok {
			want = "a number"
		}
	case mapKind:
		if _, ok := v.(*omap); !ok {
			want = "a mapping"
		}
	case listKind:
		if _, ok := v.([]any); !ok {
			want = "a list"
		}
	}
	if want != "" {
		return fmt.Errorf("%s: %s must be %s, not %s: %w", src, dotted(keyPath), want, describe(v), ErrInvalid)
	}
	m, ok := v.(*omap)
	if !ok {
		return nil
	}
	for _, k := range m.keys {
		p := append(keyPath[:len(keyPath):len(keyPath)], k)
		if why, ok := s.refused[k]; ok {
			return fmt.Errorf("%s: %s: %s: %w", src, dotted(p), why, ErrUnsupported)
		}
		c, ok := s.child(k)
		if !ok {
			return fmt.Errorf("%s: %w %s%s", src, ErrUnknownKey, dotted(p), s.hint(k, len(keyPath) == 0))
		}
		if err := c.check(src, p, m.vals[k]); err != nil {
			return err
		}
	}
	return nil
}

// hint suggests the known key that differs from k only in case, or lists
// the known keys.
func (s *schema) hint(k string, top bool) string {
	names := slices.Sorted(maps.Keys(s.keys))
	for _, n := range names {
		if strings.EqualFold(n, k) {
			return fmt.Sprintf(" (did you mean %s?)", n)
		}
	}
	what := "keys"
	if top {
		what = "sections"
	}
	return fmt.Sprintf(" (known %s: %s)", what, strings.Join(names, ", "))
}

func dotted(keyPath []string) string { return strings.Join(keyPath, ".") }
