package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/cors"
	"github.com/skiffhq/skiff/internal/policy"
	"github.com/skiffhq/skiff/settings"
)

// defaultBodyLimit is the request body limit when http.bodyLimit is unset.
const defaultBodyLimit = 1 << 20

// build turns a (merged or single-source) configuration tree into an App;
// src names the tree's origin in errors. Key names are already checked.
func build(src string, tree *omap, env string) (*App, error) {
	app := &App{
		Env:      env,
		Models:   section(tree, "models"),
		Security: section(tree, "security"),
		Sockets:  section(tree, "sockets"),
		Session:  section(tree, "session"),
		Policies: section(tree, "policies"),
		HTTP:     section(tree, "http"),
		Custom:   section(tree, "custom"),
	}
	if v, ok := tree.get("explicitHost"); ok {
		app.Host, _ = v.(string) // the schema made it a string
	}
	var err error
	if app.Port, err = port(src, tree); err != nil {
		return nil, err
	}
	if err := defaultMigrate(src, app.Models, env); err != nil {
		return nil, err
	}
	if app.Blueprints, err = blueprints(src, section(tree, "blueprints"), env); err != nil {
		return nil, err
	}
	app.Datastores = datastores(section(tree, "datastores"))
	routes, _ := tree.get("routes")
	if app.Routes, err = parseRoutes(src, routes); err != nil {
		return nil, err
	}
	app.CSRF, _ = app.Security["csrf"].(bool)
	c, _ := app.Security["cors"].(map[string]any)
	if app.CORS, err = cors.Decode(c); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", src, err, ErrInvalid)
	}
	if app.PolicyRules, err = policy.Decode(app.Policies); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", src, err, ErrInvalid)
	}
	if app.SessionSettings, err = sessionSettings(src, app.Session); err != nil {
		return nil, err
	}
	if app.ServerSettings, err = serverSettings(src, app.HTTP); err != nil {
		return nil, err
	}
	if app.SocketSettings, err = socketSettings(src, app.Sockets); err != nil {
		return nil, err
	}
	if v, ok := app.HTTP["cache"]; ok && v != nil {
		if app.AssetsMaxAge, err = duration(v); err != nil {
			return nil, fmt.Errorf("%s: http.cache: %w", src, err)
		}
	}
	app.ETag = true
	if v, ok := app.HTTP["etag"].(bool); ok {
		app.ETag = v // the schema let only true or false through
	}
	app.AdminAddr, _ = section(tree, "admin")["addr"].(string) // the schema made it a string
	if app.Health, err = healthSettings(src, section(tree, "health")); err != nil {
		return nil, err
	}
	if app.OpenAPI, err = openAPISettings(src, section(tree, "openapi")); err != nil {
		return nil, err
	}
	app.BodyLimit = defaultBodyLimit
	if v, ok := app.HTTP["bodyLimit"]; ok {
		if app.BodyLimit, err = parseSize(v); err != nil {
			return nil, fmt.Errorf("%s: http.bodyLimit: %w", src, err)
		}
	}
	return app, nil
}

// healthSettings reads health.liveness and health.readiness: a path
// starting with "/", or false to turn the endpoint off.
func healthSettings(src string, m map[string]any) (settings.Health, error) {
	var hs settings.Health
	read := func(key string, path *string, off *bool) error {
		switch v := m[key].(type) {
		case nil:
		case bool:
			if v {
				return fmt.Errorf("%s: health.%s must be a path such as /%s, or false: %w", src, key, key, ErrInvalid)
			}
			*off = true
		case string:
			if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?# ") {
				return fmt.Errorf("%s: health.%s must be a path starting with /, not %q: %w", src, key, v, ErrInvalid)
			}
			*path = v
		default:
			return fmt.Errorf("%s: health.%s must be a path or false, not %s: %w", src, key, describe(v), ErrInvalid)
		}
		return nil
	}
	if err := read("liveness", &hs.Liveness, &hs.NoLiveness); err != nil {
		return hs, err
	}
	return hs, read("readiness", &hs.Readiness, &hs.NoReadiness)
}

// openAPISettings reads openapi.enabled (the schema made it a boolean) and
// openapi.path, a path starting with "/".
func openAPISettings(src string, m map[string]any) (settings.OpenAPI, error) {
	var s settings.OpenAPI
	if v, ok := m["enabled"].(bool); ok {
		s.Enabled = &v
	}
	if v, ok := m["path"].(string); ok {
		if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?#: *") {
			return s, fmt.Errorf("%s: openapi.path must be a plain path starting with /, not %q: %w", src, v, ErrInvalid)
		}
		s.Path = v
	}
	return s, nil
}

func port(src string, tree *omap) (int, error) {
	v, _ := tree.get("port")
	if v == nil {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < 0 || f > 65535 {
		return 0, fmt.Errorf("%s: port must be a whole number from 0 to 65535, not %s: %w", src, describe(v), ErrInvalid)
	}
	return int(f), nil
}

// defaultMigrate sets models.migrate when unset. A configured value is kept
// as it is, even "alter" in production: refusing that is the server's job,
// and silently rewriting it would hide the mistake.
func defaultMigrate(src string, models map[string]any, env string) error {
	v, ok := models["migrate"]
	if !ok {
		models["migrate"] = "alter"
		if env == "production" {
			models["migrate"] = "safe"
		}
		return nil
	}
	switch v {
	case "safe", "alter", "drop":
		return nil
	}
	return fmt.Errorf("%s: models.migrate must be safe, alter or drop, not %s: %w", src, describe(v), ErrInvalid)
}

// blueprints applies the Sails defaults, with shortcuts off in production
// (decisions.md). Types were checked by the schema.
func blueprints(src string, m map[string]any, env string) (settings.Blueprints, error) {
	b := settings.DefaultBlueprints(env)
	b.NotificationFormat = blueprint.FormatSeed
	flags := map[string]*bool{
		"actions": &b.Actions, "rest": &b.Rest, "shortcuts": &b.Shortcuts,
		"pluralize": &b.Pluralize, "autoWatch": &b.AutoWatch, "mirror": &b.Mirror,
		"deepWatch": &b.DeepWatch,
	}
	for k, p := range flags {
		if v, ok := m[k].(bool); ok {
			*p = v
		}
	}
	b.Prefix = routePrefix(m["prefix"])
	b.RestPrefix = routePrefix(m["restPrefix"])
	if v, ok := m["notificationFormat"].(string); ok {
		if v != "seed" && v != "sails" {
			return b, fmt.Errorf("%s: blueprints.notificationFormat must be seed or sails, not %q: %w", src, v, ErrInvalid)
		}
		b.NotificationFormat = blueprint.NotificationFormat(v)
	}
	return b, nil
}

func routePrefix(v any) string {
	s, _ := v.(string)
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return strings.TrimRight(s, "/")
}

// adapterName translates Sails adapter packages to Skiff adapter names.
func adapterName(a string) string {
	switch a {
	case "sails-disk":
		return "sqlite"
	case "sails-postgresql":
		return "postgres"
	case "sails-mysql":
		return "mysql"
	}
	return a
}

// adapterFromURL guesses the adapter of a datastore configured by URL only.
func adapterFromURL(url string) string {
	scheme, _, _ := strings.Cut(url, ":")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return "postgres"
	case "mysql", "mariadb":
		return "mysql"
	}
	return "sqlite"
}

// datastores fills in each datastore's adapter: translated from the Sails
// package name, else guessed from url, else sqlite.
func datastores(m map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for name, v := range m {
		ds, _ := v.(map[string]any) // the schema makes every entry a mapping
		url, _ := ds["url"].(string)
		if url != "" {
			url = strings.TrimSuffix(url, "/")
			ds["url"] = url
		}
		a, _ := ds["adapter"].(string)
		switch {
		case a != "":
			ds["adapter"] = adapterName(a)
		case url != "":
			ds["adapter"] = adapterFromURL(url)
		default:
			ds["adapter"] = "sqlite"
		}
		out[name] = ds
	}
	if len(out) == 0 {
		out["default"] = map[string]any{"adapter": "sqlite"}
	}
	return out
}

// parseSize reads a byte count: a whole number, or a string such as "512kb"
// or "1.5mb" (units of 1024, as the bytes package Sails uses).
func parseSize(v any) (int64, error) {
	var n float64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) {
			return 0, fmt.Errorf("want a whole number of bytes, not %v: %w", x, ErrInvalid)
		}
		n = x
	case string:
		m := regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$`).FindStringSubmatch(strings.ToLower(strings.TrimSpace(x)))
		if m == nil {
			return 0, fmt.Errorf("want a size such as 1048576, \"512kb\" or \"1mb\", not %q: %w", x, ErrInvalid)
		}
		n, _ = strconv.ParseFloat(m[1], 64)
		n *= map[string]float64{"": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}[m[2]]
		n = math.Floor(n)
	default:
		return 0, fmt.Errorf("want a size such as 1048576 or \"1mb\", not %s: %w", describe(v), ErrInvalid)
	}
	if n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %v out of range: %w", v, ErrInvalid)
	}
	return int64(n), nil
}
