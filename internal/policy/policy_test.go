package policy_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/policy"
)

// tag is a policy that records its name in a header and lets the request
// through.
func tag(name string) policy.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Policy", name)
			next.ServeHTTP(w, r)
		})
	}
}

var forbidden = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) })

func run(t *testing.T, tb *policy.Table, id string) string {
	t.Helper()
	h := tb.Wrap(id, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Header().Add("X-Policy", "action") }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code == 403 {
		return "403"
	}
	return strings.Join(w.Header().Values("X-Policy"), ",")
}

func TestMostSpecificKeyWins(t *testing.T) {
	tb, err := newTable(map[string]any{
		"*":              "isLoggedIn",
		"user/*":         []any{"isAdmin"},
		"User/Find":      true,
		"user/foo/*":     []any{"isLoggedIn", "IsAdmin"},
		"pet/destroy":    false,
		"PetController":  map[string]any{"Create": []any{false}},
		"public/*":       true,
		"report/monthly": []any{"isAdmin"},
	}, map[string]policy.Middleware{"isLoggedIn": tag("isLoggedIn"), "isAdmin": tag("isAdmin")}, forbidden)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"user/find":       "action",
		"user/findone":    "isAdmin,action",
		"user":            "isAdmin,action",
		"user/foo/bar":    "isLoggedIn,isAdmin,action",
		"pet/destroy":     "403",
		"pet/create":      "403",
		"pet/find":        "isLoggedIn,action",
		"public/page":     "action",
		"report/monthly":  "isAdmin,action",
		"report/yearly":   "isLoggedIn,action",
		"something":       "isLoggedIn,action",
		"users/find":      "isLoggedIn,action",
		"USER/FINDONE":    "isAdmin,action",
		"user/foo":        "isLoggedIn,isAdmin,action",
		"user/foobar/baz": "isAdmin,action",
	} {
		if got := run(t, tb, id); got != want {
			t.Errorf("policies for %s = %s, want %s", id, got, want)
		}
	}
}

func TestNoPoliciesAllowEverything(t *testing.T) {
	tb, err := newTable(nil, nil, forbidden)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, tb, "user/destroy"); got != "action" {
		t.Errorf("no policies: user/destroy = %s, want action", got)
	}
}

func TestNewRefuses(t *testing.T) {
	known := map[string]policy.Middleware{"isLoggedIn": tag("x")}
	for name, raw := range map[string]map[string]any{
		"unknown name":       {"*": "isAdmin"},
		"true in a list":     {"*": []any{true, "isLoggedIn"}},
		"false in a list":    {"user/find": []any{"isLoggedIn", false}},
		"number":             {"*": 1.0},
		"number in a list":   {"*": []any{1.0}},
		"nested unknown":     {"UserController": map[string]any{"find": "nope"}},
		"unknown among many": {"*": true, "pet/*": []any{"isLoggedIn", "isOwner"}},
	} {
		if _, err := newTable(raw, known, forbidden); err == nil {
			t.Errorf("New(%s) succeeded, want an error", name)
		}
	}
}

// newTable is the policies section as written, decoded and checked.
func newTable(raw map[string]any, policies map[string]policy.Middleware, forbidden http.Handler) (*policy.Table, error) {
	rules, err := policy.Decode(raw)
	if err != nil {
		return nil, err
	}
	return policy.New(rules, policies, forbidden)
}
