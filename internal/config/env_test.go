package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/internal/config"
	"github.com/skiffhq/skiff/settings"
)

func TestEnvOverrides(t *testing.T) {
	base := map[string]string{
		"config/app.yaml": `
blueprints: {shortcuts: true, prefix: /api}
datastores:
  Main: {adapter: sqlite, dir: .tmp}
security:
  cors: {allowOrigins: [https://a.com], allRoutes: false}
session: {secret: from-file, cookie: {maxAge: 1000}}
models: {attributes: {createdAt: {type: number, autoCreatedAt: true}}}
`,
		"config/local.yaml": "blueprints: {restPrefix: /local}\n",
	}
	tests := []struct {
		name string
		vars map[string]string
		get  func(*config.App) any
		want any
	}{
		{"bool", map[string]string{"SKIFF_BLUEPRINTS__SHORTCUTS": "false"},
			func(a *config.App) any { return a.Blueprints.Shortcuts }, false},
		{"camelCase key, over local.yaml", map[string]string{"SKIFF_BLUEPRINTS__RESTPREFIX": "v2"},
			func(a *config.App) any { return a.Blueprints.RestPrefix }, "/v2"},
		{"port", map[string]string{"SKIFF_PORT": "9000"},
			func(a *config.App) any { return a.Port }, 9000},
		{"default datastore url when another is configured", map[string]string{"SKIFF_DATASTORES__DEFAULT__URL": "postgres://u:p@h:5432/db"},
			func(a *config.App) any { return a.Datastores["default"] },
			map[string]any{"adapter": "postgres", "url": "postgres://u:p@h:5432/db"}},
		{"existing datastore matched case-insensitively", map[string]string{"SKIFF_DATASTORES__MAIN__DIR": "/var/db"},
			func(a *config.App) any { return a.Datastores["Main"] },
			map[string]any{"adapter": "sqlite", "dir": "/var/db"}},
		{"existing free-form key of a datastore", map[string]string{"SKIFF_DATASTORES__MAIN__ADAPTER": "sails-postgresql"},
			func(a *config.App) any { return a.Datastores["Main"]["adapter"] }, "postgres"},
		{"list", map[string]string{"SKIFF_SECURITY__CORS__ALLOWORIGINS": "[https://b.com, https://c.com]"},
			func(a *config.App) any { return a.Security["cors"] },
			map[string]any{"allowOrigins": []any{"https://b.com", "https://c.com"}, "allRoutes": false}},
		{"known key not in any file", map[string]string{"SKIFF_SECURITY__CORS__ALLOWCREDENTIALS": "true"},
			func(a *config.App) any { return a.Security["cors"].(map[string]any)["allowCredentials"] }, true},
		{"mapping merges", map[string]string{"SKIFF_SESSION": "{name: app.sid, cookie: {secure: true}}"},
			func(a *config.App) any { return a.Session },
			map[string]any{"secret": "from-file", "name": "app.sid", "cookie": map[string]any{"maxAge": 1000.0, "secure": true}}},
		{"child wins over parent", map[string]string{
			"SKIFF_SESSION":         "{secret: from-parent}",
			"SKIFF_SESSION__SECRET": "from-child",
		}, func(a *config.App) any { return a.Session["secret"] }, "from-child"},
		{"raw string kept", map[string]string{"SKIFF_SESSION__SECRET": "a #b: c"},
			func(a *config.App) any { return a.Session["secret"] }, "a #b: c"},
		{"quoted number is a string", map[string]string{"SKIFF_SESSION__SECRET": `"123"`},
			func(a *config.App) any { return a.Session["secret"] }, "123"},
		{"number", map[string]string{"SKIFF_SESSION__COOKIE__MAXAGE": "86400000"},
			func(a *config.App) any { return a.Session["cookie"] }, map[string]any{"maxAge": 86400000.0}},
		{"null removes", map[string]string{"SKIFF_BLUEPRINTS__PREFIX": "null"},
			func(a *config.App) any { return a.Blueprints.Prefix }, ""},
		{"whole section", map[string]string{"SKIFF_POLICIES": `{"*": true, user/destroy: [isAdmin]}`},
			func(a *config.App) any { return a.Policies },
			map[string]any{"*": true, "user/destroy": []any{"isAdmin"}}},
		{"routes section", map[string]string{"SKIFF_ROUTES": `{"GET /health": health/check}`},
			func(a *config.App) any { return a.Routes },
			[]settings.Route{{Method: "GET", Path: "/health", Action: "health/check"}}},
		{"models default", map[string]string{"SKIFF_MODELS__MIGRATE": "safe"},
			func(a *config.App) any { return a.Models["migrate"] }, "safe"},
		{"names match in any case", map[string]string{"skiff_Blueprints__shortCuts": "false"},
			func(a *config.App) any { return a.Blueprints.Shortcuts }, false},
		{"new free-form name lower-cased", map[string]string{"SKIFF_DATASTORES__REPLICA__URL": "mysql://h/r"},
			func(a *config.App) any { return a.Datastores["replica"] },
			map[string]any{"adapter": "mysql", "url": "mysql://h/r"}},
		{"existing attribute matched case-insensitively", map[string]string{"SKIFF_MODELS__ATTRIBUTES__CREATEDAT__TYPE": "string"},
			func(a *config.App) any { return a.Models["attributes"] },
			map[string]any{"createdAt": map[string]any{"type": "string", "autoCreatedAt": true}}},
		{"other variables ignored", map[string]string{"SKIFF_ENV": "production", "SKIFF_TEST_POSTGRES_URL": "x", "PORT": "1", "SKIFF_": "x"},
			func(a *config.App) any { return []any{a.Port, a.Blueprints.Shortcuts} }, []any{0, true}},
		{"notification format", map[string]string{"SKIFF_BLUEPRINTS__NOTIFICATIONFORMAT": "sails"},
			func(a *config.App) any { return string(a.Blueprints.NotificationFormat) }, "sails"},
		{"deep watch", map[string]string{"SKIFF_BLUEPRINTS__DEEPWATCH": "false"},
			func(a *config.App) any { return []any{a.Blueprints.DeepWatch, a.Blueprints.AutoWatch} }, []any{false, true}},
		{"empty is unset", map[string]string{"SKIFF_BLUEPRINTS__SHORTCUTS": ""},
			func(a *config.App) any { return a.Blueprints.Shortcuts }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustLoad(t, base, "", tt.vars)
			if diff := cmp.Diff(tt.want, tt.get(a)); diff != "" {
				t.Errorf("Load with %v mismatch (-want +got):\n%s", tt.vars, diff)
			}
		})
	}
}

func TestEnvDefaultDatastoreWithoutConfig(t *testing.T) {
	a := mustLoad(t, nil, "production", map[string]string{"SKIFF_DATASTORES__DEFAULT__URL": "postgres://h/app/"})
	want := map[string]map[string]any{"default": {"adapter": "postgres", "url": "postgres://h/app"}}
	if diff := cmp.Diff(want, a.Datastores); diff != "" {
		t.Errorf("Datastores mismatch (-want +got):\n%s", diff)
	}
}
