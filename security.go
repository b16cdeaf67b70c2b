package skiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/internal/cors"
	"github.com/skiffhq/skiff/internal/csrf"
	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/internal/policy"
	"github.com/skiffhq/skiff/internal/session"
	"github.com/skiffhq/skiff/model"
)

// devSecret signs session cookies in development when no secret is set,
// as Sails falls back to a fixed one. It is public: never use it in
// production (New refuses to).
const devSecret = "skiff-development-session-secret"

// Session is a request's session: read and write it from actions and
// policies (a login action puts the user id, a policy reads it). Values
// must be encodable with encoding/gob.
type Session = session.Session

// SessionFrom returns the session of the request whose context is ctx, or
// nil when it has none (sessions off, or disabled for that request).
func SessionFrom(ctx context.Context) *Session { return session.FromContext(ctx) }

// Forbidden answers r as Sails' res.forbidden() does: 403 with the text
// Forbidden. Policies use it to refuse a request.
func Forbidden(w http.ResponseWriter, r *http.Request) { httpapi.Forbidden.ServeHTTP(w, r) }

// CSRFToken returns a fresh CSRF token for r's session, as the
// security/grant-csrf-token action answers it: "" when CSRF does not apply
// to r's route or r has no session.
func CSRFToken(r *http.Request) string { return csrf.Token(r) }

// productionProblems lists what keeps opts from starting in production:
// Sails refuses to lift without a session secret or a socket origin policy,
// and Skiff also refuses models that would alter tables.
func productionProblems(opts *Options) error {
	var errs []error
	if !opts.Session.Disabled && opts.Session.Secret == "" {
		errs = append(errs, errors.New("production needs a session secret: set session.secret (e.g. SKIFF_SESSION__SECRET) to a long random string"))
	}
	if !opts.Sockets.Disabled && len(opts.Sockets.OnlyAllowOrigins) == 0 && opts.Sockets.BeforeConnect == nil {
		errs = append(errs, errors.New("production needs sockets.onlyAllowOrigins (the origins allowed to open sockets, e.g. [https://example.com]) or a BeforeConnect hook"))
	}
	var unsafe []string
	for _, m := range opts.Models {
		if m.Migrate != model.MigrateSafe {
			unsafe = append(unsafe, m.Identity+" ("+string(m.Migrate)+")")
		}
	}
	if len(unsafe) > 0 {
		slices.Sort(unsafe)
		errs = append(errs, fmt.Errorf("production only runs with models.migrate: safe; these models would change their tables: %s", strings.Join(unsafe, ", ")))
	}
	if len(errs) > 0 {
		return fmt.Errorf("refusing to start in production: %w", errors.Join(errs...))
	}
	return nil
}

// security is what New builds for the security layer.
type security struct {
	sessions *session.Manager
	cors     *cors.Settings
	policies *policy.Table
}

// newSecurity checks the security options and sets up the session store.
func newSecurity(ctx context.Context, opts *Options) (*security, error) {
	for _, o := range opts.Sockets.OnlyAllowOrigins {
		if err := cors.CheckOrigin(o); err != nil {
			return nil, fmt.Errorf("sockets.onlyAllowOrigins: %w", err)
		}
	}
	sec := &security{}
	var err error
	if sec.cors, err = cors.Parse(opts.CORS); err != nil {
		return nil, err
	}
	pols := make(map[string]policy.Middleware, len(opts.Policies))
	for name, p := range opts.Policies {
		if p == nil {
			return nil, fmt.Errorf("policy %s is nil", name)
		}
		pols[name] = p
	}
	if sec.policies, err = policy.New(opts.PolicyRules, pols, httpapi.Forbidden); err != nil {
		return nil, err
	}
	if opts.Session.Disabled {
		if opts.CSRF {
			// As Sails' E_INVALID_SECURITY_CONFIG: every checked request
			// would be refused.
			return nil, errors.New("security.csrf needs sessions (the CSRF secret lives in the session): turn sessions on or CSRF off")
		}
		return sec, nil
	}
	so := opts.Session
	secret := so.Secret
	if secret == "" {
		opts.Logger.Warn("session.secret is not set: using a fixed development secret (production refuses to start without one)")
		secret = devSecret
	}
	store := so.Store
	if store == nil {
		switch strings.ToLower(so.Adapter) {
		case "", "memory":
			store = session.NewMemoryStore()
		case "redis", "connect-redis", "@sailshq/connect-redis":
			// The Redis client is linked by package app, not by the
			// embedding API.
			return nil, fmt.Errorf("session: the %s adapter needs Session.Store set to the store (app.Load and app.Connect open it from the url)", so.Adapter)
		case "datastore":
			name := so.Datastore
			if name == "" {
				name = "default"
			}
			db, ok := opts.Datastores[name]
			if !ok {
				return nil, fmt.Errorf("session: the datastore adapter names datastore %q, which is not configured", name)
			}
			if store, err = session.NewDatastoreStore(ctx, db); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("session: unknown adapter %q (use memory, redis or datastore)", so.Adapter)
		}
	}
	errs := errorWriterFor(opts)
	so.Secret, so.Store = secret, store
	sec.sessions, err = session.New(session.Config{Session: so, OnError: errs})
	if err != nil {
		return nil, err
	}
	return sec, nil
}

// errorWriterFor answers session store failures: logged, then a plain 500.
func errorWriterFor(opts *Options) func(w http.ResponseWriter, r *http.Request, err error) {
	log := opts.Logger
	return func(w http.ResponseWriter, r *http.Request, err error) {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "url", r.URL.String(), "err", err)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "Internal Server Error")
	}
}
