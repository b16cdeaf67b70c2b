package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/config"
)

func TestLoadErrors(t *testing.T) {
	cfg := func(s string) map[string]string { return map[string]string{"config/app.yaml": s} }
	tests := []struct {
		name  string
		files map[string]string
		env   string
		vars  map[string]string
		want  error
		// mention lists what the message must name (file, line, key path,
		// variable): the point of these errors is to lead to the mistake.
		mention []string
	}{
		{"config syntax", cfg("blueprints: {prefix: [\n"), "", nil, config.ErrSyntax, []string{"config/app.yaml:1"}},
		{"model syntax", map[string]string{"models/user.yaml": "attributes:\n  name: {type: string\n"}, "", nil, config.ErrSyntax, []string{"models/user.yaml:"}},
		{"model not a map", map[string]string{"models/user.yaml": "# c\n\n- a\n- b\n"}, "", nil, config.ErrSyntax, []string{"models/user.yaml:3"}},
		{"model scalar", map[string]string{"models/user.json": `"x"`}, "", nil, config.ErrSyntax, []string{"models/user.json:1"}},
		{"config not a map", cfg("[1, 2]"), "", nil, config.ErrSyntax, []string{"config/app.yaml:1"}},
		{"duplicate key", cfg("port: 1\nport: 2\n"), "", nil, config.ErrSyntax, []string{"config/app.yaml:2"}},
		{"duplicate model", map[string]string{"models/User.yaml": "{}", "models/user.json": "{}"}, "", nil, config.ErrDuplicateModel, []string{"models/User.yaml", "models/user.json"}},
		{"bad env name", nil, "../prod", nil, config.ErrInvalid, nil},

		{"unknown section", cfg("blueprint: {}"), "", nil, config.ErrUnknownKey, []string{"config/app.yaml", "blueprint"}},
		{"unknown blueprints key", cfg("blueprints: {actionz: true}"), "", nil, config.ErrUnknownKey, []string{"blueprints.actionz"}},
		{"key case matters in files", cfg("blueprints: {restprefix: /x}"), "", nil, config.ErrUnknownKey, []string{"blueprints.restprefix", "restPrefix"}},
		{"unknown cors key", cfg("security: {cors: {allowOrigin: '*'}}"), "", nil, config.ErrUnknownKey, []string{"security.cors.allowOrigin"}},
		{"unknown session cookie key", cfg("session: {cookie: {secur: true}}"), "", nil, config.ErrUnknownKey, []string{"session.cookie.secur"}},
		{"unknown models key", cfg("models: {primarykey: id}"), "", nil, config.ErrUnknownKey, []string{"models.primarykey"}},
		{"unknown http key", cfg("http: {bodylimit: 1}"), "", nil, config.ErrUnknownKey, []string{"http.bodylimit"}},
		{"unknown sockets key", cfg("sockets: {origins: []}"), "", nil, config.ErrUnknownKey, []string{"sockets.origins"}},
		{"bad notification format", cfg("blueprints: {notificationFormat: sails15}"), "", nil, config.ErrInvalid,
			[]string{"config/app.yaml", "blueprints.notificationFormat", "seed or sails", "sails15"}},
		{"notification format not a string", cfg("blueprints: {notificationFormat: 1}"), "", nil, config.ErrInvalid, []string{"blueprints.notificationFormat"}},
		{"deepWatch not a flag", cfg("blueprints: {deepWatch: yes please}"), "", nil, config.ErrInvalid, []string{"blueprints.deepWatch"}},
		{"env bad notification format", nil, "", map[string]string{"SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT": "Sails"}, config.ErrInvalid,
			[]string{"blueprints.notificationFormat", "Sails"}},
		{"error in env file", map[string]string{"config/env/production.yaml": "blueprints: {x: 1}"}, "production", nil, config.ErrUnknownKey, []string{"config/env/production.yaml"}},
		{"error in local file", map[string]string{"config/local.json": `{"nope": 1}`}, "", nil, config.ErrUnknownKey, []string{"config/local.json", "nope"}},

		{"jsonp", cfg("blueprints: {jsonp: true}"), "", nil, config.ErrUnsupported, []string{"blueprints.jsonp", "E_JSONP_UNSUPPORTED"}},
		{"defaultLimit", cfg("blueprints: {defaultLimit: 10}"), "", nil, config.ErrUnsupported, []string{"blueprints.defaultLimit", "parseBlueprintOptions"}},
		{"populate", cfg("blueprints: {populate: false}"), "", nil, config.ErrUnsupported, []string{"blueprints.populate", "1.0"}},
		{"parseBlueprintOptions", cfg("blueprints: {parseBlueprintOptions: x}"), "", nil, config.ErrUnsupported, nil},
		{"models.connection", cfg("models: {connection: db}"), "", nil, config.ErrUnsupported, []string{"models.connection"}},
		{"models.autoPK", cfg("models: {autoPK: false}"), "", nil, config.ErrUnsupported, nil},
		{"models.tableName", cfg("models: {tableName: t}"), "", nil, config.ErrUnsupported, nil},
		{"cors.securityLevel", cfg("security: {cors: {securityLevel: 1}}"), "", nil, config.ErrUnsupported, nil},
		{"session.routesDisabled", cfg("session: {routesDisabled: [/x]}"), "", nil, config.ErrUnsupported, nil},
		{"session function", cfg("session: {isSessionDisabled: x}"), "", nil, config.ErrUnsupported, nil},
		{"sockets.allowRequest", cfg("sockets: {allowRequest: x}"), "", nil, config.ErrUnsupported, nil},

		{"prefix not a string", cfg("blueprints: {prefix: 1}"), "", nil, config.ErrInvalid, []string{"blueprints.prefix"}},
		{"flag not a bool", cfg("blueprints: {shortcuts: 'yes'}"), "", nil, config.ErrInvalid, []string{"blueprints.shortcuts"}},
		{"etag not a bool", cfg("http: {etag: weak}"), "", nil, config.ErrInvalid, []string{"http.etag", "true or false"}},
		{"etag env not a bool", nil, "", map[string]string{"SKIFF_HTTP__ETAG": "off"}, config.ErrInvalid, []string{"SKIFF_HTTP__ETAG"}},
		{"csrf object", cfg("security: {csrf: {routesDisabled: x}}"), "", nil, config.ErrInvalid, []string{"security.csrf"}},
		{"section not a map", cfg("blueprints: true"), "", nil, config.ErrInvalid, []string{"blueprints"}},
		{"datastore not a map", cfg("datastores: {default: sqlite}"), "", nil, config.ErrInvalid, []string{"datastores.default"}},
		{"adapter not a string", cfg("datastores: {default: {adapter: 1}}"), "", nil, config.ErrInvalid, []string{"datastores.default.adapter"}},
		{"port string", cfg("port: http"), "", nil, config.ErrInvalid, []string{"port"}},
		{"port fraction", cfg("port: 80.5"), "", nil, config.ErrInvalid, nil},
		{"port range", cfg("port: 70000"), "", nil, config.ErrInvalid, nil},
		{"port negative", cfg("port: -1"), "", nil, config.ErrInvalid, nil},
		{"bodyLimit words", cfg("http: {bodyLimit: lots}"), "", nil, config.ErrInvalid, []string{"http.bodyLimit"}},
		{"bodyLimit zero", cfg("http: {bodyLimit: 0}"), "", nil, config.ErrInvalid, nil},
		{"bodyLimit unit", cfg("http: {bodyLimit: 1tb}"), "", nil, config.ErrInvalid, nil},
		{"bodyLimit bool", cfg("http: {bodyLimit: true}"), "", nil, config.ErrInvalid, nil},
		{"migrate", cfg("models: {migrate: create}"), "", nil, config.ErrInvalid, []string{"models.migrate"}},
		{"session mongo", cfg("session: {adapter: connect-mongo}"), "", nil, config.ErrUnsupported, []string{"session.adapter"}},
		{"session adapter", cfg("session: {adapter: file}"), "", nil, config.ErrInvalid, []string{"session.adapter"}},
		{"session secret number", cfg("session: {secret: 123}"), "", nil, config.ErrInvalid, []string{"session.secret"}},
		{"session maxAge", cfg("session: {cookie: {maxAge: 1d}}"), "", nil, config.ErrInvalid, []string{"session.cookie.maxAge"}},
		{"session sameSite", cfg("session: {cookie: {sameSite: sometimes}}"), "", nil, config.ErrInvalid, []string{"session.cookie.sameSite"}},
		{"session redis port", cfg("session: {adapter: redis, port: x}"), "", nil, config.ErrInvalid, []string{"session.port"}},
		{"http timeout", cfg("http: {readHeaderTimeout: soon}"), "", nil, config.ErrInvalid, []string{"http.readHeaderTimeout"}},
		{"http cache", cfg("http: {cache: -1}"), "", nil, config.ErrInvalid, []string{"http.cache"}},
		{"socket origins string", cfg("sockets: {onlyAllowOrigins: 'https://a.com'}"), "", nil, config.ErrInvalid, []string{"sockets.onlyAllowOrigins"}},
		{"socket cap fraction", cfg("sockets: {maxConnectionsPerIP: 1.5}"), "", nil, config.ErrInvalid, []string{"sockets.maxConnectionsPerIP"}},

		{"routes list", cfg("routes: [a]"), "", nil, config.ErrInvalid, []string{"routes"}},
		{"route without slash", cfg("routes: {user: user/find}"), "", nil, config.ErrInvalid, []string{`routes["user"]`}},
		{"route unknown verb", cfg("routes: {FETCH /user: user/find}"), "", nil, config.ErrInvalid, []string{"FETCH /user"}},
		{"route number target", cfg("routes: {/x: 1}"), "", nil, config.ErrInvalid, nil},
		{"route list target", cfg("routes: {/x: [a/b]}"), "", nil, config.ErrInvalid, nil},
		{"route empty target", cfg("routes: {/x: ''}"), "", nil, config.ErrInvalid, nil},
		{"route bad dot target", cfg("routes: {/x: a.b.c}"), "", nil, config.ErrInvalid, nil},
		{"route controller only", cfg("routes: {/x: {controller: User}}"), "", nil, config.ErrInvalid, nil},
		{"route two targets", cfg("routes: {/x: {action: a/b, redirect: /y}}"), "", nil, config.ErrInvalid, nil},
		{"route options only", cfg("routes: {/x: {cors: true}}"), "", nil, config.ErrInvalid, nil},
		{"route action not string", cfg("routes: {/x: {action: 1}}"), "", nil, config.ErrInvalid, nil},
		{"route view", cfg("routes: {/x: {view: pages/home}}"), "", nil, config.ErrUnsupported, nil},
		{"route policy", cfg("routes: {/x: {policy: isAdmin}}"), "", nil, config.ErrUnsupported, nil},
		{"route blueprint", cfg("routes: {/x: {blueprint: find}}"), "", nil, config.ErrUnsupported, nil},

		{"env bool", nil, "", map[string]string{"SKIFF_BLUEPRINTS__SHORTCUTS": "maybe"}, config.ErrInvalid, []string{"SKIFF_BLUEPRINTS__SHORTCUTS"}},
		{"env port", nil, "", map[string]string{"SKIFF_PORT": "http"}, config.ErrInvalid, []string{"SKIFF_PORT"}},
		{"env removed key", nil, "", map[string]string{"SKIFF_BLUEPRINTS": "{jsonp: true}"}, config.ErrUnsupported, []string{"SKIFF_BLUEPRINTS"}},
		{"env unknown key", nil, "", map[string]string{"SKIFF_SECURITY": "{foo: 1}"}, config.ErrUnknownKey, []string{"SKIFF_SECURITY", "security.foo"}},
		{"env malformed flow", nil, "", map[string]string{"SKIFF_ROUTES": "{GET /x: a/b"}, config.ErrInvalid, []string{"SKIFF_ROUTES"}},
		{"env bad route", nil, "", map[string]string{"SKIFF_ROUTES": "{x: a/b}"}, config.ErrInvalid, []string{"SKIFF_ROUTES"}},
		{"env unknown key in section", nil, "", map[string]string{"SKIFF_BLUEPRINTS__NOPE": "1"}, config.ErrUnknownKey, []string{"SKIFF_BLUEPRINTS__NOPE", "blueprints.nope"}},
		{"env unknown nested key", nil, "", map[string]string{"SKIFF_SESSION__COOKIE__SECUR": "true"}, config.ErrUnknownKey, []string{"session.cookie.secur"}},
		{"env removed key by name", nil, "", map[string]string{"SKIFF_BLUEPRINTS__JSONP": "true"}, config.ErrUnsupported, []string{"SKIFF_BLUEPRINTS__JSONP"}},
		{"env key under a scalar", nil, "", map[string]string{"SKIFF_PORT__X": "1"}, config.ErrInvalid, []string{"SKIFF_PORT__X"}},
		{"env empty segment", nil, "", map[string]string{"SKIFF_BLUEPRINTS____PREFIX": "x"}, config.ErrInvalid, nil},
		{"env bad body limit", nil, "", map[string]string{"SKIFF_HTTP__BODYLIMIT": "big"}, config.ErrInvalid, []string{"SKIFF_HTTP__BODYLIMIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(app(tt.files), tt.env, vars(tt.vars))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load error = %v, want %v", err, tt.want)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("Load error %q does not mention %q", err, m)
				}
			}
		})
	}
}

// Keys that look unusual but are documented must load.
func TestLoadAcceptsKnownKeys(t *testing.T) {
	files := map[string]string{"config/app.yaml": `
models:
  attributes: {id: {type: number, autoIncrement: true}}
  primaryKey: id
  datastore: default
  schema: true
  cascadeOnDestroy: true
  dataEncryptionKeys: {default: abc}
  fetchRecordsOnUpdate: true
  archiveModelIdentity: false
blueprints: {actions: false, rest: true, shortcuts: false, prefix: '', restPrefix: '', pluralize: false, autoWatch: true, mirror: true, deepWatch: false, notificationFormat: sails}
datastores:
  default: {adapter: sails-postgresql, url: 'postgres://x/y', ssl: {rejectUnauthorized: false}, poolSize: 10}
security:
  csrf: true
  cors: {allRoutes: true, allowOrigins: '*', allowCredentials: false, allowRequestMethods: GET, allowRequestHeaders: content-type, allowResponseHeaders: '', allowAnyOriginWithCredentialsUnsafe: false, origin: '*'}
sockets: {onlyAllowOrigins: [https://a.com], transports: [websocket], adapter: memory, url: 'redis://h', adapterOptions: {x: 1}, beforeConnect: false, grant3rdPartyCookie: true}
session: {adapter: redis, url: 'redis://h', name: sails.sid, secret: s, prefix: 'sess:', ttl: 60, db: 0, cookie: {secure: false, maxAge: 1, sameSite: lax}, rolling: true}
policies: {'*': isLoggedIn, 'user/*': [isLoggedIn, isAdmin], user/find: true, UserController: {find: false}}
http: {bodyLimit: 10kb, trustProxy: true, cache: 1, middleware: {order: [router]}}
port: 0
`}
	a := mustLoad(t, files, "production", nil)
	if a.BodyLimit != 10<<10 || !a.Blueprints.Mirror || a.Port != 0 {
		t.Errorf("Load: BodyLimit=%d Mirror=%t Port=%d, want 10240 true 0", a.BodyLimit, a.Blueprints.Mirror, a.Port)
	}
}
