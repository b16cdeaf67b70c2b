package skiff

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/settings"
)

// appMiddleware checks Options.Middleware against MiddlewareOrder and
// MiddlewareSettings and composes the Go middleware named before and after
// "router"; either result is nil when there is none. It fails on a name
// that is neither built-in nor registered, an order without router, a Go
// middleware the order does not name, and a middleware setting that names
// no Go middleware.
func appMiddleware(o *Options) (before, after func(http.Handler) http.Handler, err error) {
	for _, k := range slices.Sorted(maps.Keys(o.MiddlewareSettings)) {
		if o.Middleware[k] == nil {
			return nil, nil, fmt.Errorf("http.middleware.%s: Skiff cannot run JavaScript middleware: "+
				"register a Go middleware named %q (Options.Middleware), or remove the setting", k, k)
		}
	}
	order := o.MiddlewareOrder
	if order == nil {
		if len(o.Middleware) > 0 {
			return nil, nil, fmt.Errorf("middleware %s: name it in http.middleware.order (Options.MiddlewareOrder), or it would never run",
				strings.Join(slices.Sorted(maps.Keys(o.Middleware)), ", "))
		}
		return nil, nil, nil
	}
	// As in Sails, the router always runs: without it in the order, every
	// name comes before it.
	router := slices.Index(order, "router")
	if router < 0 {
		router = len(order)
	}
	var pre, post []func(http.Handler) http.Handler
	for i, name := range order {
		mw := o.Middleware[name]
		switch {
		case mw != nil && i < router:
			pre = append(pre, mw)
		case mw != nil:
			post = append(post, mw)
		case settings.IsBuiltinMiddleware(name):
		default:
			return nil, nil, fmt.Errorf("http.middleware.order names %q, which is neither a Sails built-in nor a Go middleware: "+
				"Skiff cannot run JavaScript middleware; register a Go middleware under that name (Options.Middleware) or remove it", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Middleware)) {
		if !slices.Contains(order, name) {
			return nil, nil, fmt.Errorf("middleware %q is registered but http.middleware.order does not name it, so it would never run", name)
		}
	}
	return chain(pre), chain(post), nil
}

// chain composes mws so that the first runs first; nil when mws is empty.
func chain(mws []func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	if len(mws) == 0 {
		return nil
	}
	return func(h http.Handler) http.Handler {
		for _, mw := range slices.Backward(mws) {
			h = mw(h)
		}
		return h
	}
}
