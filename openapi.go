package skiff

import (
	"net/http"

	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/internal/openapi"
	"github.com/skiffhq/skiff/model"
)

// httpRoutes are the custom routes New binds: /__getcookie for sails.io.js
// first, the app's routes, then the API description when served (doc).
func httpRoutes(opts *Options, doc http.Handler) []httpapi.Route {
	routes := make([]httpapi.Route, 0, len(opts.Routes)+2)
	if !opts.Sockets.Disabled && !opts.Sockets.NoCookieRoute {
		// sails.io.js loads it as a script before connecting cross-origin, so
		// that the browser holds the session cookie the handshake will carry.
		routes = append(routes, httpapi.Route{Route: Route{Method: http.MethodGet, Path: "/__getcookie", Handler: http.HandlerFunc(getCookie)},
			Summary: "sails.io.js loads it as a script before connecting cross-origin, to get the session cookie."})
	}
	for _, r := range opts.Routes {
		routes = append(routes, httpapi.Route{Route: r})
	}
	if doc != nil {
		path := opts.OpenAPI.Path
		if path == "" {
			path = DefaultOpenAPIPath
		}
		routes = append(routes, httpapi.Route{Route: Route{Method: http.MethodGet, Path: path, Handler: doc}, Summary: "This OpenAPI document."})
	}
	return routes
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
	if opts.OpenAPI.Served(opts.Env) {
		doc = documentHandler(new([]byte))
	}
	return describe(&opts, httpapi.Config{
		Models: schema.Models(), Blueprints: bp, Routes: httpRoutes(&opts, doc), Actions: opts.Actions,
	})
}
