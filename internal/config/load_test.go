package config_test

import (
	"net/http"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/internal/config"
	"github.com/skiffhq/skiff/settings"
)

// app builds a MapFS from path → content.
func app(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// vars returns m as an environ list ("NAME=value").
func vars(m map[string]string) []string {
	var environ []string
	for k, v := range m {
		environ = append(environ, k+"="+v)
	}
	return environ
}

func mustLoad(t *testing.T, files map[string]string, env string, env2 map[string]string) *config.App {
	t.Helper()
	a, err := config.Load(app(files), env, vars(env2))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return a
}

func TestLoadEmptyApp(t *testing.T) {
	a, err := config.Load(fstest.MapFS{}, "", nil)
	if err != nil {
		t.Fatalf("Load(empty) error: %v", err)
	}
	want := &config.App{
		Env:        "development",
		Models:     map[string]any{"migrate": "alter"},
		Blueprints: settings.Blueprints{Rest: true, Shortcuts: true, AutoWatch: true, DeepWatch: true, NotificationFormat: "seed"},
		Datastores: map[string]map[string]any{"default": {"adapter": "sqlite"}},
		Security:   map[string]any{}, Sockets: map[string]any{}, Session: map[string]any{},
		Policies: map[string]any{}, HTTP: map[string]any{},
		BodyLimit: 1 << 20, ETag: true,
		Custom: map[string]any{}, MiddlewareSettings: map[string]any{},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Load(empty) mismatch (-want +got):\n%s", diff)
	}
}

func TestMergeOrder(t *testing.T) {
	files := map[string]string{
		"config/a.yaml": `
blueprints: {prefix: a, actions: true}
security:
  cors: {allowOrigins: [https://a.com, https://b.com], allRoutes: true}
sockets: {transports: [websocket, polling]}
`,
		"config/b.yml":  "blueprints: {prefix: b}\nsecurity: {cors: {allowOrigins: [https://c.com]}}\n",
		"config/c.json": `{"sockets": {"transports": null}, "port": 1400}`,
		// local.yaml sorts before z.yaml but is applied last of all files.
		"config/local.yaml":           "blueprints: {restPrefix: local}\nport: 1500\n",
		"config/z.yaml":               "blueprints: {restPrefix: z, pluralize: true}\nport: 1600\n",
		"config/env/development.yaml": "blueprints: {restPrefix: dev, prefix: dev}\n",
		"config/env/production.yaml":  "blueprints: {prefix: prod}\n",
		"config/.hidden.yaml":         "nonsense: [",
		"config/notes.txt":            "nonsense",
	}
	a := mustLoad(t, files, "development", nil)
	wantBP := settings.Blueprints{
		Actions: true, Rest: true, Shortcuts: true, Pluralize: true, AutoWatch: true, DeepWatch: true,
		NotificationFormat: "seed", Prefix: "/dev", RestPrefix: "/local",
	}
	if diff := cmp.Diff(wantBP, a.Blueprints); diff != "" {
		t.Errorf("Blueprints mismatch (-want +got):\n%s", diff)
	}
	wantSec := map[string]any{"cors": map[string]any{"allowOrigins": []any{"https://c.com"}, "allRoutes": true}}
	if diff := cmp.Diff(wantSec, a.Security); diff != "" {
		t.Errorf("Security mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, a.Sockets); diff != "" {
		t.Errorf("Sockets (null removes the key) mismatch (-want +got):\n%s", diff)
	}
	if a.Port != 1500 {
		t.Errorf("Port = %d, want 1500 (local.yaml last)", a.Port)
	}

	p := mustLoad(t, files, "production", nil)
	if p.Blueprints.Prefix != "/prod" || p.Blueprints.RestPrefix != "/local" {
		t.Errorf("production prefix, restPrefix = %q, %q; want /prod, /local", p.Blueprints.Prefix, p.Blueprints.RestPrefix)
	}
	if p.Env != "production" {
		t.Errorf("Env = %q, want production", p.Env)
	}
}

func TestShortcutDefaults(t *testing.T) {
	tests := []struct {
		env, config string
		want        bool
	}{
		{"development", "", true},
		{"", "", true},
		{"staging", "", true},
		{"production", "", false},
		{"production", "blueprints: {shortcuts: true}", true},
		{"development", "blueprints: {shortcuts: false}", false},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/blueprints.yaml": tt.config}, tt.env, nil)
		if a.Blueprints.Shortcuts != tt.want {
			t.Errorf("Load(env %q, %q).Blueprints.Shortcuts = %t, want %t", tt.env, tt.config, a.Blueprints.Shortcuts, tt.want)
		}
	}
}

func TestMigrateDefault(t *testing.T) {
	tests := []struct {
		env, config, want string
	}{
		{"development", "", "alter"},
		{"production", "", "safe"},
		{"development", "models: {migrate: drop}", "drop"},
		{"production", "models: {migrate: alter}", "alter"}, // kept: refusing it is the server's job
		{"production", "models: {migrate: ~}", "safe"},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/models.yaml": tt.config}, tt.env, nil)
		if got := a.Models["migrate"]; got != tt.want {
			t.Errorf("Load(env %q, %q).Models[migrate] = %v, want %s", tt.env, tt.config, got, tt.want)
		}
	}
}

func TestPrefixes(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{"api", "/api"}, {"/api", "/api"}, {"/api/", "/api"}, {"", ""}, {"api/v1", "/api/v1"},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/b.yaml": "blueprints: {prefix: '" + tt.prefix + "', restPrefix: '" + tt.prefix + "'}"}, "", nil)
		if a.Blueprints.Prefix != tt.want || a.Blueprints.RestPrefix != tt.want {
			t.Errorf("prefix %q → %q, %q; want %q", tt.prefix, a.Blueprints.Prefix, a.Blueprints.RestPrefix, tt.want)
		}
	}
}

func TestDatastores(t *testing.T) {
	tests := []struct {
		name, config string
		want         map[string]map[string]any
	}{
		{"none", "", map[string]map[string]any{"default": {"adapter": "sqlite"}}},
		{"empty", "datastores: {}", map[string]map[string]any{"default": {"adapter": "sqlite"}}},
		{"sails names", `
datastores:
  default: {adapter: sails-disk, inMemoryOnly: true}
  pg: {adapter: sails-postgresql, url: "postgres://h/db/"}
  my: {adapter: sails-mysql, url: "mysql://h/db", poolSize: 5}
`, map[string]map[string]any{
			"default": {"adapter": "sqlite", "inMemoryOnly": true},
			"pg":      {"adapter": "postgres", "url": "postgres://h/db"},
			"my":      {"adapter": "mysql", "url": "mysql://h/db", "poolSize": 5.0},
		}},
		{"url only", "datastores: {default: {url: 'postgresql://h/db'}, b: {url: 'mysql://h/b'}, c: {dir: x}}",
			map[string]map[string]any{
				"default": {"adapter": "postgres", "url": "postgresql://h/db"},
				"b":       {"adapter": "mysql", "url": "mysql://h/b"},
				"c":       {"adapter": "sqlite", "dir": "x"},
			}},
		{"own names kept", "datastores: {x: {adapter: redis}}", map[string]map[string]any{"x": {"adapter": "redis"}}},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/datastores.yaml": tt.config}, "", nil)
		if diff := cmp.Diff(tt.want, a.Datastores); diff != "" {
			t.Errorf("%s: Datastores mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	tests := []struct {
		config string
		want   int64
	}{
		{"", 1 << 20},
		{"http: {bodyLimit: 2048}", 2048},
		{"http: {bodyLimit: 1mb}", 1 << 20},
		{"http: {bodyLimit: 512kb}", 512 << 10},
		{"http: {bodyLimit: 1.5MB}", 3 << 19},
		{"http: {bodyLimit: '100 b'}", 100},
		{"http: {bodyLimit: '1gb'}", 1 << 30},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/http.yaml": tt.config}, "", nil)
		if a.BodyLimit != tt.want {
			t.Errorf("Load(%q).BodyLimit = %d, want %d", tt.config, a.BodyLimit, tt.want)
		}
	}
}

func TestAssetsMaxAge(t *testing.T) {
	tests := []struct {
		config string
		want   time.Duration
	}{
		{"", 0},
		{"http: {cache: 1}", time.Millisecond},
		{"http: {cache: 31557600000}", 31557600 * time.Second},
		{"http: {cache: 1h}", time.Hour},
		{"http: {cache: ~}", 0},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/http.yaml": tt.config}, "", nil)
		if a.AssetsMaxAge != tt.want {
			t.Errorf("Load(%q).AssetsMaxAge = %v, want %v", tt.config, a.AssetsMaxAge, tt.want)
		}
	}
}

func TestETag(t *testing.T) {
	tests := []struct {
		config string
		vars   map[string]string
		want   bool
	}{
		{"", nil, true},
		{"http: {etag: true}", nil, true},
		{"http: {etag: ~}", nil, true},
		{"http: {etag: false}", nil, false},
		{"", map[string]string{"SKIFF_HTTP__ETAG": "false"}, false},
		{"http: {etag: false}", map[string]string{"SKIFF_HTTP__ETAG": "true"}, true},
	}
	for _, tt := range tests {
		a := mustLoad(t, map[string]string{"config/http.yaml": tt.config}, "", tt.vars)
		if a.ETag != tt.want {
			t.Errorf("Load(%q, %v).ETag = %v, want %v", tt.config, tt.vars, a.ETag, tt.want)
		}
	}
}

func TestNumberNormalisation(t *testing.T) {
	files := map[string]string{
		"models/Pet.yaml": `
attributes:
  age: {type: number, min: 0, max: 30, defaultsTo: -1}
  weight: {type: number, defaultsTo: 2.5}
  tags: {type: json, defaultsTo: [1, 2]}
`,
		"models/owner.json": `{"attributes": {"n": {"type": "number", "max": 18446744073709551615}}}`,
		"config/app.yaml": `
port: 8080
sockets: {pingTimeout: 60000, db: 2}
session: {cookie: {maxAge: 86400000}}
routes:
  GET /x: {action: x/y, locals: {n: 3, list: [1, {m: 2}]}}
`,
	}
	a := mustLoad(t, files, "", nil)
	if a.Port != 8080 {
		t.Errorf("Port = %d, want 8080", a.Port)
	}
	wantPet := map[string]any{"attributes": map[string]any{
		"age":    map[string]any{"type": "number", "min": 0.0, "max": 30.0, "defaultsTo": -1.0},
		"weight": map[string]any{"type": "number", "defaultsTo": 2.5},
		"tags":   map[string]any{"type": "json", "defaultsTo": []any{1.0, 2.0}},
	}}
	wantOwner := map[string]any{"attributes": map[string]any{"n": map[string]any{"type": "number", "max": 18446744073709551615.0}}}
	wantFiles := []config.ModelFile{
		{Identity: "owner", Source: "models/owner.json", Def: wantOwner},
		{Identity: "pet", Source: "models/Pet.yaml", Def: wantPet},
	}
	if diff := cmp.Diff(wantFiles, a.ModelFiles); diff != "" {
		t.Errorf("ModelFiles mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"pingTimeout": 60000.0, "db": 2.0}, a.Sockets); diff != "" {
		t.Errorf("Sockets mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"cookie": map[string]any{"maxAge": 86400000.0}}, a.Session); diff != "" {
		t.Errorf("Session mismatch (-want +got):\n%s", diff)
	}
	wantOpts := map[string]any{"locals": map[string]any{"n": 3.0, "list": []any{1.0, map[string]any{"m": 2.0}}}}
	if diff := cmp.Diff(wantOpts, a.Routes[0].Options); diff != "" {
		t.Errorf("route options mismatch (-want +got):\n%s", diff)
	}
}

func TestModelFiles(t *testing.T) {
	files := map[string]string{
		"models/user.yaml":   "attributes: {name: {type: string}}\n",
		"models/Zebra.yml":   "primaryKey: code\nattributes: {code: {type: string}}\n",
		"models/Admin.json":  `{"tableName": "admins"}`,
		"models/.draft.yaml": "bad: [",
		"models/readme.md":   "# not a model",
		"models/empty.yaml":  "# nothing yet\n",
		"models/sub/x.yaml":  "attributes: {}",
		"models/nulls.yaml":  "attributes: {old: ~}\n",
		"config/models.yaml": "models: {attributes: {id: {type: number, autoIncrement: true}}, schema: true}",
	}
	a := mustLoad(t, files, "", nil)
	want := []config.ModelFile{
		{Identity: "admin", Source: "models/Admin.json", Def: map[string]any{"tableName": "admins"}},
		{Identity: "empty", Source: "models/empty.yaml", Def: map[string]any{}},
		{Identity: "nulls", Source: "models/nulls.yaml", Def: map[string]any{"attributes": map[string]any{"old": nil}}},
		{Identity: "user", Source: "models/user.yaml", Def: map[string]any{"attributes": map[string]any{"name": map[string]any{"type": "string"}}}},
		{Identity: "zebra", Source: "models/Zebra.yml", Def: map[string]any{"primaryKey": "code", "attributes": map[string]any{"code": map[string]any{"type": "string"}}}},
	}
	if diff := cmp.Diff(want, a.ModelFiles); diff != "" {
		t.Errorf("ModelFiles mismatch (-want +got):\n%s", diff)
	}
	wantModels := map[string]any{
		"attributes": map[string]any{"id": map[string]any{"type": "number", "autoIncrement": true}},
		"schema":     true,
		"migrate":    "alter",
	}
	if diff := cmp.Diff(wantModels, a.Models); diff != "" {
		t.Errorf("Models mismatch (-want +got):\n%s", diff)
	}
}

func TestSecuritySettings(t *testing.T) {
	a := mustLoad(t, map[string]string{"config/security.yaml": `
security: {csrf: true, cors: {allRoutes: true}}
session:
  adapter: redis
  host: cache
  port: 6380
  pass: pw
  db: 2
  secret: s3cret
  cookie: {maxAge: 86400000, secure: true, sameSite: lax, httpOnly: false}
sockets: {onlyAllowOrigins: [https://a.example], maxConnectionsPerIP: 20}
http: {readHeaderTimeout: 5000, idleTimeout: 1m, maxHeaderBytes: 64kb}
`}, "", nil)
	if !a.CSRF {
		t.Error("CSRF = false, want true")
	}
	s := a.SessionSettings
	if s.Adapter != "redis" || s.URL != "redis://:pw@cache:6380/2" || s.Secret != "s3cret" {
		t.Errorf("session adapter, url, secret = %q, %q, %q", s.Adapter, s.URL, s.Secret)
	}
	if s.MaxAge != 24*time.Hour || !s.Secure || s.SameSite != http.SameSiteLaxMode || s.HTTPOnly == nil || *s.HTTPOnly {
		t.Errorf("session cookie = %+v", s)
	}
	if got := a.SocketSettings; len(got.OnlyAllowOrigins) != 1 || got.MaxConnectionsPerIP != 20 {
		t.Errorf("SocketSettings = %+v", got)
	}
	if got := a.ServerSettings; got.ReadHeaderTimeout != 5*time.Second || got.IdleTimeout != time.Minute || got.MaxHeaderBytes != 64<<10 {
		t.Errorf("ServerSettings = %+v", got)
	}
}
