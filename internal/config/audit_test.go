package config_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/internal/config"
)

// outcome is what a setting does at start.
type outcome int

const (
	honoured outcome = iota // loads without a warning
	warned                  // loads with exactly one warning, naming the key
	refused                 // stops the start, naming the key
)

// TestSettingOutcomes holds, for each setting Skiff accepts but cannot
// carry out as Sails does, what its values do: nothing is accepted and
// then silently ignored.
func TestSettingOutcomes(t *testing.T) {
	tests := []struct {
		config string
		want   outcome
		key    string // named by the warning or the error
	}{
		// Sails' standard sections.
		{"log: {level: warn}", honoured, ""},
		{"log: {level: loud}", refused, "log.level"},
		{"log: {format: json}", honoured, ""},
		{"log: {format: xml}", refused, "log.format"},
		{"log: {level: info, inspect: false}", warned, "log.inspect"},
		{"custom: {apiKey: x, limits: {a: 1}}", honoured, ""},
		{"views: {extension: ejs, layout: layouts/layout}", warned, "views"},
		{"i18n: {locales: [en, de]}", warned, "i18n"},
		{"globals: {_: false, async: false, models: false, sails: false}", honoured, ""},
		{"globals: false", honoured, ""},
		{"globals: {models: true, sails: true}", warned, "globals"},
		{"paths: {public: www}", warned, "paths"},
		{"hookTimeout: 40000", warned, "hookTimeout"},
		{"proxyHost: example.com", warned, "proxyHost"},
		{"proxyPort: 443", warned, "proxyPort"},
		{"ssl: {}", honoured, ""},
		{"ssl: false", honoured, ""},
		{"ssl: {key: k, cert: c}", refused, "ssl"},
		{"ssl: true", refused, "ssl"},
		{"environment: development", honoured, ""},
		{"environment: production", refused, "environment"},
		{"explicitHost: 127.0.0.1", honoured, ""},
		{"openapi: {enabled: true, path: /api/openapi.json}", honoured, ""},
		{"openapi: {enabled: yes-please}", refused, "openapi.enabled"},
		{"openapi: {path: openapi.json}", refused, "openapi.path"},
		{"bootstrap: x", refused, "bootstrap"},
		{"hooks: {grunt: false, views: false, i18n: false, session: false, sockets: false, blueprints: false}", honoured, ""},
		{"hooks: {orm: false}", refused, "hooks.orm"},
		{"hooks: {myHook: sails-hook-x}", refused, "hooks.myHook"},

		// models
		{"models: {description: Everything}", honoured, ""},
		{"models: {globalId: X}", warned, "models.globalId"},
		{"models: {archiveModelIdentity: false}", honoured, ""},
		{"models: {archiveModelIdentity: archive}", warned, "models.archiveModelIdentity"},
		{"models: {dataEncryptionKeys: {default: abc}}", warned, "models.dataEncryptionKeys"},
		{"models: {dontUseObjectIds: false}", honoured, ""},
		{"models: {dontUseObjectIds: true}", warned, "models.dontUseObjectIds"},
		{"models: {fetchRecordsOnUpdate: false}", honoured, ""},
		{"models: {fetchRecordsOnCreate: true}", warned, "models.fetchRecordsOnCreate"},
		{"models: {fetchRecordsOnCreateEach: true}", warned, "models.fetchRecordsOnCreateEach"},
		{"models: {fetchRecordsOnUpdate: true}", warned, "models.fetchRecordsOnUpdate"},
		{"models: {fetchRecordsOnDestroy: true}", warned, "models.fetchRecordsOnDestroy"},

		// sockets
		{"sockets: {adapter: memory}", honoured, ""},
		{"sockets: {adapter: '@sailshq/socket.io-redis'}", honoured, ""},
		{"sockets: {adapter: socket.io-redis, url: 'redis://h', adapterOptions: {key: app1}}", honoured, ""},
		{"sockets: {adapter: redis, host: h, port: 6379, pass: p, db: 1}", honoured, ""},
		{"sockets: {adapter: nats, url: 'nats://h:4222', key: app1}", honoured, ""},
		{"sockets: {adapter: nats, db: 1}", warned, "sockets.db: ignored: only the redis adapter"},
		{"sockets: {adapter: socket.io-mongo}", refused, "unknown socket adapter"},
		{"sockets: {adapter: redis, adapterOptions: {a: 1}}", warned, "sockets.adapterOptions.a"},
		{"sockets: {adapterOptions: {a: 1}}", warned, "sockets.adapterOptions"},
		{"sockets: {url: 'redis://h'}", warned, "sockets.url"},
		{"sockets: {db: 1}", warned, "sockets.db"},
		{"sockets: {host: h}", warned, "sockets.host"},
		{"sockets: {port: 6379}", warned, "sockets.port"},
		{"sockets: {pass: p}", warned, "sockets.pass"},
		{"sockets: {pubClient: x}", warned, "sockets.pubClient"},
		{"sockets: {subClient: x}", warned, "sockets.subClient"},
		{"sockets: {subEvent: x}", warned, "sockets.subEvent"},
		{"sockets: {key: x}", warned, "sockets.key"},
		{"sockets: {adminPubClient: x}", warned, "sockets.adminPubClient"},
		{"sockets: {adminSubClient: x}", warned, "sockets.adminSubClient"},
		{"sockets: {onRedisDisconnect: x}", warned, "sockets.onRedisDisconnect"},
		{"sockets: {onRedisReconnect: x}", warned, "sockets.onRedisReconnect"},
		{"sockets: {socket: x}", warned, "sockets.socket"},
		{"sockets: {beforeConnect: false}", honoured, ""},
		{"sockets: {beforeConnect: x}", refused, "sockets.beforeConnect"},
		{"sockets: {afterDisconnect: false}", honoured, ""},
		{"sockets: {afterDisconnect: x}", refused, "sockets.afterDisconnect"},
		{"sockets: {onConnect: x}", refused, "sockets.onConnect"},
		{"sockets: {onDisconnect: x}", refused, "sockets.onDisconnect"},
		{"sockets: {authorization: false}", honoured, ""},
		{"sockets: {authorization: true}", refused, "sockets.authorization"},
		{"sockets: {path: /socket.io}", honoured, ""},
		{"sockets: {path: /ws}", refused, "sockets.path"},
		{"sockets: {serveClient: false}", honoured, ""},
		{"sockets: {serveClient: true}", warned, "sockets.serveClient"},
		{"sockets: {allowUpgrades: false}", honoured, ""},
		{"sockets: {cookie: false}", honoured, ""},
		{"sockets: {cookie: io}", warned, "sockets.cookie"},
		{"sockets: {sendResponseHeaders: true}", honoured, ""},
		{"sockets: {sendResponseHeaders: false}", warned, "sockets.sendResponseHeaders"},
		{"sockets: {sendStatusCode: false}", warned, "sockets.sendStatusCode"},

		// session
		{"session: {resave: false}", honoured, ""},
		{"session: {resave: true}", warned, "session.resave"},
		{"session: {rolling: true}", warned, "session.rolling"},
		{"session: {proxy: true}", warned, "session.proxy"},
		{"session: {unset: keep}", honoured, ""},
		{"session: {unset: destroy}", warned, "session.unset"},
		{"session: {ttl: 3600}", warned, "session.ttl"},
		{"session: {collection: sessions}", warned, "session.collection"},
		{"session: {cookie: {expires: x}}", warned, "session.cookie.expires"},
		{"session: {cookie: {partitioned: true}}", warned, "session.cookie.partitioned"},
		{"session: {cookie: {priority: high}}", warned, "session.cookie.priority"},
		{"session: {adapter: redis, url: 'redis://h', prefix: 's:'}", honoured, ""},
		{"session: {adapter: redis, host: h, port: 6380, user: u, pass: p, db: 2}", honoured, ""},
		{"session: {url: 'redis://h'}", warned, "session.url"},
		{"session: {adapter: redis, datastore: default}", warned, "session.datastore"},
		{"session: {adapter: datastore, datastore: default, prefix: x}", warned, "session.prefix"},

		// http
		{"http: {trustProxy: false}", honoured, ""},
		{"http: {trustProxy: true}", warned, "http.trustProxy"},
		{"http: {bodyParser: false}", honoured, ""},
		{"http: {bodyParser: skipper}", refused, "http.bodyParser"},
		{"http: {middleware: {order: [cookieParser, session, bodyParser, compress, poweredBy, router, www, favicon]}}", honoured, ""},
		{"http: {middleware: {order: [cookieParser, session, bodyParser, paginate, router, www]}}", honoured, ""},
		{"http: {middleware: {order: [cookieParser, session, bodyParser, www]}}", warned, "www comes before router"},
		{"http: {middleware: {poweredBy: false, compress: false, favicon: false, www: false}}", honoured, ""},
		{"http: {middleware: {bodyParser: false}}", warned, "bodyParser is left out or off"},
		{"http: {middleware: {bodyParser: skipper}}", refused, "http.middleware.bodyParser"},
		{"http: {middleware: {paginate: false, order: [session, bodyParser, paginate, router]}}", honoured, ""},
		{"http: {middleware: {paginate: require(x), order: [session, bodyParser, paginate, router]}}", honoured, ""},
		{"http: {middleware: {order: [session, bodyParser, router, router]}}", refused, "router"},
		{"http: {middleware: {order: [session, bodyParser, router, 3]}}", refused, "http.middleware.order"},
		{"http: {middleware: {order: router}}", refused, "http.middleware.order"},
		{"http: {middleware: {order: [session, router, www]}}", warned, "bodyParser"},
		{"http: {middleware: {order: [router, session, bodyParser]}}", warned, "router comes before session, bodyParser"},
		{"http: {middleware: {order: [session, bodyParser, www, router]}}", warned, "www comes before router"},

		{"http: {customMiddleware: x}", refused, "http.customMiddleware"},
		{"http: {serverOptions: {}}", refused, "http.serverOptions"},

		// datastores
		{"datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}", honoured, ""},
		{"datastores: {default: {adapter: sails-disk, dir: data}}", honoured, ""},
		{"datastores: {default: {adapter: sails-disk, inMemoryOnly: true, url: x.db}}", refused, "inMemoryOnly"},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d', inMemoryOnly: true}}", refused, "datastores.default.inMemoryOnly"},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d', inMemoryOnly: false}}", honoured, ""},
		{"datastores: {default: {adapter: sails-disk, poolSize: 5}}", warned, "datastores.default.poolSize"},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d', ssl: true, earlyLockRelease: false}}", honoured, ""},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d', ssl: {ca: x}}}", refused, "datastores.default.ssl"},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d?sslmode=disable', ssl: true}}", refused, "sslmode"},
		{"datastores: {default: {adapter: sails-postgresql, url: 'postgres://h/d', schemaName: app}}", warned, "datastores.default.schemaName"},
		{"datastores: {default: {adapter: sails-mysql, host: h, port: 3306, user: u, password: p, database: d, ssl: true}}", honoured, ""},
		{"datastores: {default: {adapter: sails-mysql, url: 'mysql://h/d', poolSize: 5}}", warned, "datastores.default.poolSize"},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			a, err := config.Load(app(map[string]string{"config/app.yaml": tt.config}), "", nil)
			switch tt.want {
			case honoured:
				if err != nil || len(a.Warnings) != 0 {
					t.Fatalf("Load = %v, warnings %q; want it honoured without a warning", err, warnings(a))
				}
			case warned:
				if err != nil {
					t.Fatalf("Load error = %v, want one warning", err)
				}
				if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], tt.key) {
					t.Fatalf("Load warnings = %q, want one naming %s", a.Warnings, tt.key)
				}
			case refused:
				if !errors.Is(err, config.ErrUnsupported) && !errors.Is(err, config.ErrInvalid) {
					t.Fatalf("Load error = %v, want it refused", err)
				}
				if !strings.Contains(err.Error(), tt.key) {
					t.Errorf("Load error %q does not name %s", err, tt.key)
				}
			}
		})
	}
}

func warnings(a *config.App) []string {
	if a == nil {
		return nil
	}
	return a.Warnings
}

func TestLogLevels(t *testing.T) {
	for level, want := range map[string]slog.Level{
		"silent": config.LevelSilent, "error": slog.LevelError, "warn": slog.LevelWarn, "debug": slog.LevelInfo,
		"info": slog.LevelInfo, "verbose": slog.LevelDebug, "silly": slog.LevelDebug, "Warn": slog.LevelWarn,
	} {
		a := mustLoad(t, map[string]string{"config/log.yaml": "log: {level: " + level + "}"}, "", nil)
		if a.LogLevel != want {
			t.Errorf("log.level %s: LogLevel = %v, want %v", level, a.LogLevel, want)
		}
	}
	if a := mustLoad(t, nil, "", nil); a.LogLevel != slog.LevelInfo {
		t.Errorf("no log.level: LogLevel = %v, want INFO", a.LogLevel)
	}
	a := mustLoad(t, map[string]string{"config/log.yaml": "log: {level: info}"}, "", map[string]string{"SKIFF_LOG__LEVEL": "error"})
	if a.LogLevel != slog.LevelError {
		t.Errorf("SKIFF_LOG__LEVEL=error: LogLevel = %v, want ERROR", a.LogLevel)
	}
}

func TestSailsSectionsHonoured(t *testing.T) {
	a := mustLoad(t, map[string]string{"config/app.yaml": `
custom: {apiKey: k, limits: {daily: 5}}
explicitHost: 127.0.0.1
hooks: {session: false, sockets: false, blueprints: false}
http: {middleware: {order: [cookieParser, bodyParser, paginate, router], paginate: true}}
datastores:
  default: {adapter: sails-postgresql, url: 'postgres://h/d', ssl: {rejectUnauthorized: false}}
  other: {adapter: sails-postgresql, url: 'postgres://h/d', ssl: true}
`}, "", nil)
	if diff := cmp.Diff(map[string]any{"apiKey": "k", "limits": map[string]any{"daily": 5.0}}, a.Custom); diff != "" {
		t.Errorf("Custom mismatch (-want +got):\n%s", diff)
	}
	if a.Host != "127.0.0.1" || !a.SessionDisabled || !a.SocketsDisabled || a.Blueprints.Rest || a.Blueprints.Shortcuts {
		t.Errorf("Host %q SessionDisabled %t SocketsDisabled %t Rest %t Shortcuts %t, want 127.0.0.1 true true false false",
			a.Host, a.SessionDisabled, a.SocketsDisabled, a.Blueprints.Rest, a.Blueprints.Shortcuts)
	}
	if diff := cmp.Diff([]string{"cookieParser", "bodyParser", "paginate", "router"}, a.MiddlewareOrder); diff != "" {
		t.Errorf("MiddlewareOrder mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"paginate": true}, a.MiddlewareSettings); diff != "" {
		t.Errorf("MiddlewareSettings mismatch (-want +got):\n%s", diff)
	}
	b := mustLoad(t, map[string]string{"config/http.yaml": "http: {middleware: {session: false, www: false, paginate: false, order: [session, bodyParser, paginate, router, www]}}"}, "", nil)
	if diff := cmp.Diff([]string{"bodyParser", "router"}, b.MiddlewareOrder); diff != "" || !b.SessionDisabled {
		t.Errorf("middleware set to false: SessionDisabled %t, MiddlewareOrder mismatch (-want +got):\n%s", b.SessionDisabled, diff)
	}
	if c := mustLoad(t, nil, "", nil); c.MiddlewareOrder != nil || c.SessionDisabled {
		t.Errorf("no http.middleware: MiddlewareOrder %q SessionDisabled %t, want nil false", c.MiddlewareOrder, c.SessionDisabled)
	}
	if got := a.Datastores["default"]["url"]; got != "postgres://h/d?sslmode=require" {
		t.Errorf("ssl {rejectUnauthorized: false}: url = %v, want sslmode=require", got)
	}
	if got := a.Datastores["other"]["url"]; got != "postgres://h/d?sslmode=verify-full" {
		t.Errorf("ssl true: url = %v, want sslmode=verify-full", got)
	}
}

// TestOpenAPISettings: openapi.enabled and openapi.path, from a file or the
// environment.
func TestOpenAPISettings(t *testing.T) {
	a, err := config.Load(app(map[string]string{"config/app.yaml": "openapi: {path: /spec.json}\n"}), "production",
		[]string{"SKIFF_OPENAPI__ENABLED=true"})
	if err != nil {
		t.Fatal(err)
	}
	if a.OpenAPI.Enabled == nil || !*a.OpenAPI.Enabled || a.OpenAPI.Path != "/spec.json" {
		t.Errorf("OpenAPI = %+v, want enabled at /spec.json", a.OpenAPI)
	}
	if a, err = config.Load(app(nil), "", nil); err != nil || a.OpenAPI.Enabled != nil || a.OpenAPI.Path != "" {
		t.Errorf("OpenAPI without the section = %+v, %v; want the defaults", a.OpenAPI, err)
	}
}
