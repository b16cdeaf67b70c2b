package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/cors"
	"github.com/skiffhq/skiff/internal/csrf"
	"github.com/skiffhq/skiff/internal/socketctx"
	"github.com/skiffhq/skiff/settings"
)

// GrantCSRFToken is the action identity of the built-in action answering
// {"_csrf": token}; no route is bound to it unless the app binds one.
const GrantCSRFToken = "security/grant-csrf-token"

func isSocket(r *http.Request) bool {
	_, ok := socketctx.FromContext(r.Context())
	return ok
}

// Forbidden is Sails' res.forbidden(): 403 with the text Forbidden.
var Forbidden http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	writeText(w, http.StatusForbidden, "Forbidden")
})

// blueprintActionNames are the action names of blueprint actions in action
// identities ("user/findone"), the keys policies use.
var blueprintActionNames = func() map[blueprint.Action]string {
	m := map[blueprint.Action]string{}
	for name, a := range blueprintActions {
		m[a] = name
	}
	return m
}()

// secure wraps a route's target with the security layer, outermost first:
// CORS headers (so refusals carry them too), the CSRF check, then the
// policies of actionID (none when it is ""). method and opts are the
// route's verb ("" for all) and options; where names it in errors.
func (h *handler) secure(method string, opts map[string]any, actionID string, target http.Handler, where string) (http.Handler, error) {
	hd := target
	if actionID != "" && h.cfg.Policies != nil {
		hd = h.cfg.Policies.Wrap(actionID, hd)
	}
	on := h.cfg.CSRF
	if v, ok := opts["csrf"]; ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("%s: route option csrf must be true or false, not %T", where, v)
		}
		if method != "" && !csrf.Checked(method) {
			h.cfg.Logger.Debug("ignoring the csrf route option: CSRF protection does not apply to GET, HEAD or OPTIONS routes", "route", where)
		} else {
			on = b
		}
	}
	if on {
		hd = csrf.Protect(hd, csrf.Config{BodyLimit: h.cfg.BodyLimit, Forbidden: Forbidden, Log: h.cfg.Logger})
	}
	c, err := h.cors.Route(opts["cors"], where)
	if err != nil {
		return nil, err
	}
	if c != nil && strings.EqualFold(actionID, GrantCSRFToken) {
		h.cfg.Logger.Debug("the grant-csrf-token action does not work cross-origin where browsers block third-party cookies", "route", where)
	}
	return c.Wrap(hd, isSocket), nil
}

// grantCSRFToken is Sails' security/grant-csrf-token action: {"_csrf":
// token}, with "" when CSRF does not apply to the route or the request has
// no session. Socket requests are refused (404 in production, 400
// otherwise): a token is only handed out over HTTP.
func (h *handler) grantCSRFToken() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isSocket(r) {
			if h.cfg.Production {
				writeText(w, http.StatusNotFound, "Not Found")
				return
			}
			writeText(w, http.StatusBadRequest, "Error: Cannot access CSRF token via socket request.  Instead, send an HTTP request (i.e. XHR) to this endpoint.")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"_csrf": csrf.Token(r)})
	})
}

// preflight answers OPTIONS requests as Sails' CORS hook does: with
// allRoutes, from the global config; otherwise from the cors option of the
// route the request's Access-Control-Request-Method would reach. Either
// way the answer is 200 with an empty body, with CORS headers only when the
// origin is allowed. An OPTIONS request no CORS setting claims goes to its
// route, or, when no route takes OPTIONS there, gets an empty 200 as
// Express gives. Socket requests pass straight through.
func (h *handler) preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions || isSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		origin, reqHeaders := r.Header.Get("Origin"), r.Header.Get("Access-Control-Request-Headers")
		path := r.URL.EscapedPath()
		if h.cors.AllRoutes {
			h.cors.Global.Preflight(w.Header(), origin, reqHeaders)
			w.WriteHeader(http.StatusOK)
			return
		}
		if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
			if rt := h.router.Lookup(strings.ToUpper(m), path); rt != nil {
				opts, _ := rt.Options.(map[string]any)
				if v, ok := opts["cors"]; ok && v != nil {
					// Checked when the route was added, so it cannot fail here.
					c, _ := h.cors.Route(v, "")
					c.Preflight(w.Header(), origin, reqHeaders)
					w.WriteHeader(http.StatusOK)
					return
				}
			}
		}
		if h.router.Lookup(http.MethodOptions, path) == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// corsSettings parses the security.cors section for NewHandler.
func corsSettings(s *cors.Settings) (*cors.Settings, error) {
	if s != nil {
		return s, nil
	}
	return cors.Parse(settings.CORS{})
}
