package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

// userKey is the session key holding the logged-in user's id.
const userKey = "userId"

// chat holds the app's Go parts: what a Sails app keeps in api/controllers
// and api/policies. The actions read and write users through the app's ORM,
// which exists only once skiff.New has run, hence the late-bound app.
type chat struct {
	app *skiff.App
}

// configure adds the Go parts to opts: the auth actions named by
// config/routes.yaml, the isLoggedIn policy named by config/policies.yaml,
// and a parseBlueprintOptions that makes the session's user the author of
// every new message.
func (c *chat) configure(opts *skiff.Options) {
	opts.Actions = map[string]http.Handler{
		"auth/login":  http.HandlerFunc(c.login),
		"auth/logout": http.HandlerFunc(c.logout),
		"auth/me":     http.HandlerFunc(c.me),
	}
	opts.Policies = map[string]skiff.Policy{"isLoggedIn": isLoggedIn}
	opts.ParseBlueprintOptions = authorFromSession
}

// isLoggedIn lets a request through only when its session holds a user.
func isLoggedIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := skiff.SessionFrom(r.Context()); s == nil || !s.Exists(userKey) {
			skiff.Forbidden(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authorFromSession is the app's parseBlueprintOptions: a message is always
// posted by the logged-in user, whatever the client sent as `user`.
func authorFromSession(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
	o, err := blueprint.DefaultParseOptions(ctx, r)
	if err != nil || r.Action != blueprint.Create || r.Model.Identity != "message" {
		return o, err
	}
	var author any
	if r.HTTP != nil {
		if s := skiff.SessionFrom(r.HTTP.Context()); s != nil {
			author = s.Get(userKey)
		}
	}
	if author == nil {
		// The isLoggedIn policy runs first; this guards a misconfiguration.
		return nil, blueprint.UsageError("log in before posting")
	}
	o.NewRecord["user"] = author
	return o, nil
}

// login finds or creates the user named by the `username` parameter and
// keeps its id in the session. It does not renew the session token, though a
// login over HTTP should: over a socket the new cookie would reach the
// socket but never the browser, and the next page load would be logged out.
// Real Sails apps that log in over sockets do the same.
func (c *chat) login(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(param(r, "username"))
	if name == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "E_MISSING_USERNAME", "message": "username is required"})
		return
	}
	m := c.app.ORM().Schema().Model("user")
	user, err := c.findOrCreateUser(r.Context(), m, name)
	var me *model.Error
	switch {
	case errors.As(err, &me) && me.Kind == model.Invalid:
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": me.Code, "message": me.Msg})
		return
	case err != nil:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	s := skiff.SessionFrom(r.Context())
	if s == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "E_NO_SESSION", "message": "this request has no session (nosession?)"})
		return
	}
	s.Put(userKey, user[m.PrimaryKey])
	writeJSON(w, http.StatusOK, m.Serialize(user))
}

// findOrCreateUser returns the user named name, creating it the first time.
// Two first logins with one name race on the unique constraint: the loser
// reads the winner's record.
func (c *chat) findOrCreateUser(ctx context.Context, m *model.Model, name string) (model.Record, error) {
	o := c.app.ORM()
	find := func() (model.Record, error) {
		crit, err := criteria.Normalize(map[string]any{"where": map[string]any{"username": name}}, m)
		if err != nil {
			return nil, fmt.Errorf("find user %q: %w", name, err)
		}
		recs, err := o.Find(ctx, m, crit, nil)
		if err != nil || len(recs) == 0 {
			return nil, err
		}
		return recs[0], nil
	}
	if u, err := find(); u != nil || err != nil {
		return u, err
	}
	u, _, err := o.Create(ctx, m, map[string]any{"username": name})
	if model.KindOf(err) == model.Conflict {
		return find()
	}
	return u, err
}

// logout forgets the session's user. It keeps the session itself: the
// browser's cookie still names it, so a later login over the socket is seen
// by the next page load.
func (c *chat) logout(w http.ResponseWriter, r *http.Request) {
	if s := skiff.SessionFrom(r.Context()); s != nil {
		s.Remove(userKey)
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": nil})
}

// me answers {"user": <the logged-in user, or null>}.
func (c *chat) me(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"user": nil}
	s := skiff.SessionFrom(r.Context())
	if s != nil && s.Exists(userKey) {
		m := c.app.ORM().Schema().Model("user")
		u, err := c.app.ORM().FindByPK(r.Context(), m, s.Get(userKey), nil)
		switch {
		case model.KindOf(err) == model.NotFound:
			s.Remove(userKey) // the user is gone: log the session out
		case err != nil:
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		default:
			out["user"] = m.Serialize(u)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// param reads a request parameter from a JSON body (sails.io.js sends one),
// else from a form or the query string.
func param(r *http.Request, name string) string {
	if strings.Contains(r.Header.Get("Content-Type"), "json") {
		var body map[string]any
		if json.NewDecoder(r.Body).Decode(&body) == nil {
			s, _ := body[name].(string)
			return s
		}
		return ""
	}
	return r.FormValue(name)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
