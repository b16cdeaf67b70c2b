// Package policy applies Sails' config/policies to actions: a mapping from
// action identities ("user/find") or wildcards ("user/*", "*") to true,
// false, or the names of policies to run, in order, before the action.
//
// The most specific key wins and nothing is inherited: "user/find" beats
// "user/*", which beats "*" (and "user/*" also covers an action named just
// "user"). No key matching an action leaves it open.
package policy

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/settings"
)

// Middleware is a policy: it either calls next or answers the request
// itself (typically 403) to refuse it.
type Middleware = func(next http.Handler) http.Handler

// rule is what one key maps to.
type rule struct {
	deny  bool
	names []string // empty with deny false: allow (true)
}

// Table is a parsed policies mapping. It is immutable and safe for
// concurrent use.
type Table struct {
	rules     map[string]rule
	policies  map[string]Middleware
	forbidden http.Handler
}

// Decode reads the policies section as written (nil for none): keys are
// lower-cased, and the legacy {UserController: {find: ...}} form becomes
// "user/find". A value is true, false, a policy name or a list of names;
// true and false must stand alone. It fails on any other value.
func Decode(raw map[string]any) (settings.PolicyRules, error) {
	flat := map[string]any{}
	for k, v := range raw {
		if nested, ok := v.(map[string]any); ok {
			controller := strings.ToLower(strings.TrimSuffix(k, "Controller"))
			for action, pv := range nested {
				flat[controller+"/"+strings.ToLower(action)] = pv
			}
			continue
		}
		flat[strings.ToLower(k)] = v
	}
	var rules settings.PolicyRules
	for key, v := range flat {
		r, err := decodeRule(v)
		if err != nil {
			return nil, fmt.Errorf("policies: %s: %w", key, err)
		}
		if rules == nil {
			rules = settings.PolicyRules{}
		}
		rules[key] = r
	}
	return rules, nil
}

func decodeRule(v any) (settings.PolicyRule, error) {
	var list []any
	switch x := v.(type) {
	case bool:
		return settings.PolicyRule{Deny: !x}, nil
	case string:
		list = []any{x}
	case []any:
		list = x
	default:
		return settings.PolicyRule{}, fmt.Errorf("want true, false, a policy name or a list of names, not %T", v)
	}
	var r settings.PolicyRule
	for _, e := range list {
		switch x := e.(type) {
		case bool:
			if len(list) > 1 {
				return settings.PolicyRule{}, fmt.Errorf("%v must be the only entry of its list", x)
			}
			return settings.PolicyRule{Deny: !x}, nil
		case string:
			r.Policies = append(r.Policies, x)
		default:
			return settings.PolicyRule{}, fmt.Errorf("a policy must be a name, true or false, not %T", e)
		}
	}
	return r, nil
}

// New checks rules against the named policies and returns the Table.
// Keys and names match case-insensitively. forbidden answers the requests
// a Deny rule refuses. New fails on unknown names.
func New(rules settings.PolicyRules, policies map[string]Middleware, forbidden http.Handler) (*Table, error) {
	t := &Table{rules: map[string]rule{}, policies: map[string]Middleware{}, forbidden: forbidden}
	for name, p := range policies {
		if p == nil {
			return nil, fmt.Errorf("policy %s is nil", name)
		}
		t.policies[strings.ToLower(name)] = p
	}
	for key, pr := range rules {
		r := rule{deny: pr.Deny}
		for _, n := range pr.Policies {
			name := strings.ToLower(n)
			if _, ok := t.policies[name]; !ok {
				return nil, fmt.Errorf("policies: %s: unknown policy %q (known: %s)", key, n, strings.Join(t.names(), ", "))
			}
			r.names = append(r.names, name)
		}
		t.rules[strings.ToLower(key)] = r
	}
	return t, nil
}

func (t *Table) names() []string {
	out := make([]string, 0, len(t.policies))
	for n := range t.policies {
		out = append(out, n)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"none registered"}
	}
	return out
}

// lookup returns the rule of the most specific key matching the action
// identity id: id itself, then "<prefix>/*" for ever shorter prefixes
// (starting with id itself), then "*".
func (t *Table) lookup(id string) (rule, bool) {
	id = strings.ToLower(id)
	if r, ok := t.rules[id]; ok {
		return r, true
	}
	for p := id; p != ""; {
		if r, ok := t.rules[p+"/*"]; ok {
			return r, true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	r, ok := t.rules["*"]
	return r, ok
}

// Wrap returns h guarded by the policies of action identity id, the first
// policy outermost; h itself when none apply.
func (t *Table) Wrap(id string, h http.Handler) http.Handler {
	r, ok := t.lookup(id)
	if !ok {
		return h
	}
	if r.deny {
		return t.forbidden
	}
	for i := len(r.names) - 1; i >= 0; i-- {
		h = t.policies[r.names[i]](h)
	}
	return h
}
