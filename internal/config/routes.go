package config

import (
	"fmt"
	"strings"

	"github.com/skiffhq/skiff/settings"
)

// parseRoutes reads the routes section in its written order.
func parseRoutes(src string, v any) ([]settings.Route, error) {
	m, ok := v.(*omap)
	if !ok {
		return nil, nil // null or missing; other types are refused by the schema
	}
	routes := make([]settings.Route, 0, len(m.keys))
	for _, addr := range m.keys {
		if m.vals[addr] == nil {
			continue // removes the route of an earlier file
		}
		r, err := parseRoute(addr, m.vals[addr])
		if err != nil {
			return nil, fmt.Errorf("%s: routes[%q]: %w", src, addr, err)
		}
		routes = append(routes, r)
	}
	return routes, nil
}

func parseRoute(addr string, target any) (settings.Route, error) {
	var r settings.Route
	a := strings.TrimSpace(addr)
	if verb, rest, ok := strings.Cut(a, " "); ok && isVerb(verb) {
		r.Method = strings.ToUpper(verb)
		if r.Method == "ALL" {
			r.Method = ""
		}
		a = strings.TrimSpace(rest)
	}
	if !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "r|") {
		return r, fmt.Errorf("address must be [VERB ]/path or r|regex|, got %q: %w", addr, ErrInvalid)
	}
	if strings.ContainsAny(a, " \t") && !strings.HasPrefix(a, "r|") {
		return r, fmt.Errorf("address %q has a space in its path (unknown verb?): %w", addr, ErrInvalid)
	}
	r.Path = a

	switch t := target.(type) {
	case string:
		return r, stringTarget(&r, t)
	case *omap:
		return r, objectTarget(&r, t)
	}
	return r, fmt.Errorf("target must be an action name or a mapping, not %s: %w", describe(target), ErrInvalid)
}

// isVerb reports whether s is an address prefix Sails recognises
// ("get /foo"); "all" and a missing verb both mean every method.
func isVerb(s string) bool {
	switch strings.ToUpper(s) {
	case "ALL", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT":
		return true
	}
	return false
}

// stringTarget handles 'user/find', 'UserController.find' and the redirect
// shorthand '/other/path' or 'https://…'.
func stringTarget(r *settings.Route, t string) error {
	t = strings.TrimSpace(t)
	switch {
	case t == "":
		return fmt.Errorf("empty target: %w", ErrInvalid)
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://"):
		r.Redirect = t
		return nil
	}
	a, err := actionIdentity("", t)
	r.Action = a
	return err
}

// actionIdentity returns the lower-cased action identity for a controller
// (optional, "User" or "UserController") and an action ("find",
// "user/find" or "UserController.find").
func actionIdentity(controller, action string) (string, error) {
	action = strings.TrimSpace(action)
	if c, a, ok := strings.Cut(action, "."); ok {
		if controller != "" || c == "" || a == "" || strings.Contains(a, ".") || strings.Contains(a, "/") {
			return "", fmt.Errorf("malformed action %q (want user/find or UserController.find): %w", action, ErrInvalid)
		}
		controller, action = c, a
	}
	if action == "" {
		return "", fmt.Errorf("empty action: %w", ErrInvalid)
	}
	if controller != "" {
		c := strings.TrimSpace(controller)
		if len(c) > len("controller") && strings.EqualFold(c[len(c)-len("controller"):], "controller") {
			c = c[:len(c)-len("controller")]
		}
		if c == "" {
			return "", fmt.Errorf("empty controller %q: %w", controller, ErrInvalid)
		}
		action = c + "/" + action
	}
	return strings.ToLower(action), nil
}

// objectTarget handles {action}, {controller, action}, {redirect} and
// {response}; every other key becomes a route option.
func objectTarget(r *settings.Route, t *omap) error {
	for k, why := range map[string]string{
		"view":      "view targets are not supported: Skiff serves no views",
		"policy":    "policy targets are not supported: bind policies in config/policies",
		"blueprint": "blueprint targets were removed in Sails 1.0: use {action: '<model>/<blueprint>'}",
		"fn":        "function targets cannot be written in a config file",
	} {
		if _, ok := t.get(k); ok {
			return fmt.Errorf("%s: %w", why, ErrUnsupported)
		}
	}
	str := func(k string) (string, bool, error) {
		v, ok := t.get(k)
		if !ok || v == nil {
			return "", false, nil
		}
		s, isStr := v.(string)
		if !isStr || strings.TrimSpace(s) == "" {
			return "", true, fmt.Errorf("%s must be a non-empty string, not %s: %w", k, describe(v), ErrInvalid)
		}
		return s, true, nil
	}
	action, hasAction, err := str("action")
	if err != nil {
		return err
	}
	controller, hasController, err := str("controller")
	if err != nil {
		return err
	}
	redirect, hasRedirect, err := str("redirect")
	if err != nil {
		return err
	}
	response, hasResponse, err := str("response")
	if err != nil {
		return err
	}
	if hasController && !hasAction {
		return fmt.Errorf("controller %q without an action: %w", controller, ErrInvalid)
	}
	n := 0
	for _, b := range []bool{hasAction, hasRedirect, hasResponse} {
		if b {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("target needs exactly one of action, redirect or response: %w", ErrInvalid)
	}
	switch {
	case hasAction:
		if r.Action, err = actionIdentity(controller, action); err != nil {
			return err
		}
	case hasRedirect:
		r.Redirect = strings.TrimSpace(redirect)
	default:
		r.Response = strings.TrimSpace(response)
	}
	for _, k := range t.keys {
		switch k {
		case "action", "controller", "redirect", "response":
			continue
		}
		if t.vals[k] == nil {
			continue
		}
		if r.Options == nil {
			r.Options = map[string]any{}
		}
		r.Options[k] = plain(t.vals[k], true)
	}
	return nil
}
