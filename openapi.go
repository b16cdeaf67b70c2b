package skiff

import (
	"net/http"

	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/internal/openapi"
	"github.com/skiffhq/skiff/model"
)

// DefaultOpenAPIPath is where the API description is served.
const DefaultOpenAPIPath = "/openapi.json"

// OpenAPI configures the API description: an OpenAPI 3.1 document of the
// routes the app serves (blueprint routes with schemas from the models,
// custom routes without), at GET Path. See docs/openapi.md.
type OpenAPI struct {
	// Enabled serves the document; nil means in development only (any Env
	// but "production").
	Enabled *bool
	// Path is where; "" means DefaultOpenAPIPath. An app route on the same
	// path and method wins.
	Path string
	// Title and Version fill the document's info; "" means "Skiff app" and
	// "0.0.0".
	Title, Version string
}

// served reports whether the document is served in env.
func (o OpenAPI) served(env string) bool {
	if o.Enabled != nil {
		return *o.Enabled
	}
	return env != "production"
}

// httpRoutes are the custom routes New binds: /__getcookie for sails.io.js
// first, the app's routes, then the API description when served (doc).
func httpRoutes(opts *Options, doc http.Handler) []httpapi.Route {
	routes := make([]httpapi.Route, 0, len(opts.Routes)+2)
	if !opts.Sockets.Disabled && !opts.Sockets.NoCookieRoute {
		// sails.io.js loads it as a script before connecting cross-origin, so
		// that the browser holds the session cookie the handshake will carry.
		routes = append(routes, httpapi.Route{Method: http.MethodGet, Path: "/__getcookie", Handler: http.HandlerFunc(getCookie),
			Summary: "sails.io.js loads it as a script before connecting cross-origin, to get the session cookie."})
	}
	for _, r := range opts.Routes {
		routes = append(routes, httpapi.Route{
			Method: r.Method, Path: r.Path, Action: r.Action, Handler: r.Handler, Redirect: r.Redirect,
			Response: r.Response, Options: r.Options, ParseOptions: r.ParseBlueprintOptions,
		})
	}
	if doc != nil {
		path := opts.OpenAPI.Path
		if path == "" {
			path = DefaultOpenAPIPath
		}
		routes = append(routes, httpapi.Route{Method: http.MethodGet, Path: path, Handler: doc, Summary: "This OpenAPI document."})
	}
	return routes
}

func httpBlueprints(bp Blueprints) httpapi.Blueprints {
	return httpapi.Blueprints{
		Actions: bp.Actions, Rest: bp.Rest, Shortcuts: bp.Shortcuts, Pluralize: bp.Pluralize,
		Prefix: bp.Prefix, RestPrefix: bp.RestPrefix,
	}
}

// describe is the OpenAPI document of the routes cfg binds.
func describe(opts *Options, cfg httpapi.Config) ([]byte, error) {
	return openapi.Generate(openapi.Input{Title: opts.OpenAPI.Title, Version: opts.OpenAPI.Version, Routes: httpapi.Describe(cfg)})
}

// documentHandler serves the API description held in *doc, which is set
// once the route table it describes (this route included) is built.
func documentHandler(doc *[]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(*doc)
	})
}

// DescribeAPI returns the OpenAPI 3.1 document of the HTTP API an app
// built from opts serves, as JSON, without opening or touching a
// datastore: what GET /openapi.json answers (when served), whatever
// OpenAPI.Enabled says. It fails on model definition errors.
func DescribeAPI(opts Options) ([]byte, error) {
	if opts.Env == "" {
		opts.Env = "development"
	}
	bp := DefaultBlueprints(opts.Env)
	if opts.Blueprints != nil {
		bp = *opts.Blueprints
	}
	ownModels(&opts)
	schema, err := model.NewSchema(opts.Models)
	if err != nil {
		return nil, err
	}
	var doc http.Handler
	if opts.OpenAPI.served(opts.Env) {
		doc = documentHandler(new([]byte))
	}
	return describe(&opts, httpapi.Config{
		Models: schema.Models(), Blueprints: httpBlueprints(bp), Routes: httpRoutes(&opts, doc), Actions: opts.Actions,
	})
}
