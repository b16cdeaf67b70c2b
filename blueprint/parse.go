package blueprint

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/skiffhq/skiff/model"
)

// DefaultLimit is the blueprint page size when a request names no limit, and
// the cap on each populated collection.
const DefaultLimit = 30

// criteriaKeys are the parameters that shape a query rather than filter it.
var criteriaKeys = []string{"limit", "skip", "sort", "populate", "select", "omit", "where"}

// reservedParams are client habits (jQuery's cache-buster, JSONP callbacks,
// CSRF tokens) that Sails would turn into filters and then refuse; Skiff
// ignores them.
var reservedParams = []string{"_", "_csrf", "callback"}

// DefaultParseOptions is the built-in parseBlueprintOptions, computing the
// options of r.Action from the request parameters as Sails 1.x does, with
// Skiff's stricter handling of client mistakes (usage errors, never 500s).
func DefaultParseOptions(_ context.Context, r *Request) (*Options, error) {
	m := r.Model
	o := &Options{Using: m.Identity, Alias: r.Alias}
	pops, err := defaultPopulates(r)
	if err != nil {
		return nil, err
	}
	o.Populates = pops
	id, _ := r.Param("id")
	switch r.Action {
	case Find:
		c, err := findCriteria(r, "")
		if err != nil {
			return nil, err
		}
		o.Criteria = c
	case FindOne:
		c := map[string]any{"where": map[string]any{m.PrimaryKey: id}}
		if err := selectOmit(r, c); err != nil {
			return nil, err
		}
		o.Criteria = c
	case Create:
		o.NewRecord = r.AllParams()
		for name, a := range m.Attributes {
			if !a.IsPlural() {
				continue
			}
			if _, inBody := bodyValue(r, name); inBody {
				continue
			}
			// GET /user/create?pets=[1,2]: a JSON list in the query string.
			if s, ok := r.Query[name].(string); ok {
				var v any
				if json.Unmarshal([]byte(s), &v) == nil {
					o.NewRecord[name] = v
				}
			}
		}
		dropReserved(m, o.NewRecord)
		o.Meta = map[string]any{"fetch": true}
	case Update:
		o.Criteria = map[string]any{"where": map[string]any{m.PrimaryKey: id}}
		vals := r.AllParams()
		delete(vals, "id")
		dropReserved(m, vals)
		o.ValuesToSet = vals
		o.Meta = map[string]any{}
	case Destroy:
		// The key comes from the path alone: a stray id in the query
		// string or body of DELETE /user must not destroy a record
		// (Sails takes it from there too; docs/differences.md).
		var pathID any
		if v, ok := r.Path["id"]; ok && v != "" {
			pathID = v
		}
		o.Criteria = map[string]any{"where": map[string]any{m.PrimaryKey: pathID}}
		o.Meta = map[string]any{"fetch": true}
	case Add, Remove:
		o.TargetRecordID, _ = r.Param("parentid")
		child, _ := r.Param("childid")
		o.AssociatedIDs = []any{child}
	case Replace:
		o.Criteria = map[string]any{"where": map[string]any{}}
		o.TargetRecordID, _ = r.Param("parentid")
		ids, err := replaceIDs(r)
		if err != nil {
			return nil, err
		}
		o.AssociatedIDs = ids
	case Populate:
		parent, _ := r.Param("parentid")
		o.Criteria = map[string]any{"where": map[string]any{m.PrimaryKey: parent}}
		a := m.Attr(r.Alias)
		if a == nil {
			return nil, invalidPopulates("`%s` is not an association of %s", r.Alias, m.Identity)
		}
		if a.IsPlural() {
			sub, err := findCriteria(r, "parentid")
			if err != nil {
				return nil, err
			}
			o.Populates = map[string]any{r.Alias: sub}
		} else {
			o.Populates = map[string]any{r.Alias: true}
		}
	default:
		return nil, fmt.Errorf("unknown blueprint action %q", r.Action)
	}
	return o, nil
}

// dropReserved removes the reserved parameters that m does not declare
// from the values of a write: a schemaless model would otherwise store a
// CSRF token or a cache-buster as one of its keys (schemaful models drop
// them anyway).
func dropReserved(m *model.Model, vals map[string]any) {
	for _, k := range reservedParams {
		if m.Attr(k) == nil {
			delete(vals, k)
		}
	}
}

func bodyValue(r *Request, name string) (any, bool) {
	b, ok := r.Body.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := b[name]
	return v, ok
}

// findCriteria computes the criteria of find (and of populate's children).
func findCriteria(r *Request, exclude string) (map[string]any, error) {
	c := map[string]any{}
	if w, ok := r.Param("where"); ok && w != nil {
		switch x := w.(type) {
		case string:
			var v any
			if err := json.Unmarshal([]byte(x), &v); err != nil {
				return nil, invalidCriteria("Could not parse the provided `where` clause as JSON: %v", err)
			}
			c["where"] = v
		default:
			c["where"] = x
		}
	} else {
		where := r.AllParams()
		for _, k := range criteriaKeys {
			delete(where, k)
		}
		for _, k := range reservedParams {
			delete(where, k)
		}
		if exclude != "" {
			delete(where, exclude)
		}
		c["where"] = where
	}
	if v, ok := r.Param("limit"); ok {
		c["limit"] = v
	} else {
		c["limit"] = float64(DefaultLimit)
	}
	if v, ok := r.Param("skip"); ok {
		c["skip"] = v
	}
	if v, ok := r.Param("sort"); ok && v != nil && v != "" {
		if s, isStr := v.(string); isStr {
			var parsed any
			if json.Unmarshal([]byte(s), &parsed) == nil {
				v = parsed
			}
		}
		c["sort"] = v
	}
	if err := selectOmit(r, c); err != nil {
		return nil, err
	}
	return c, nil
}

// selectOmit reads select (or, without it, omit) as a comma list.
func selectOmit(r *Request, c map[string]any) error {
	for _, key := range []string{"select", "omit"} {
		v, ok := r.Param(key)
		if !ok || v == nil || v == "" {
			continue
		}
		list, err := nameList(key, v)
		if err != nil {
			return err
		}
		c[key] = list
		return nil
	}
	return nil
}

// nameList reads a comma-separated string or, from a socket body, a list of
// strings.
func nameList(key string, v any) ([]any, error) {
	var out []any
	switch x := v.(type) {
	case string:
		for _, s := range strings.Split(x, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, invalidCriteria("`%s` must be a comma-separated list of attribute names", key)
			}
			out = append(out, strings.TrimSpace(s))
		}
	default:
		return nil, invalidCriteria("`%s` must be a comma-separated list of attribute names", key)
	}
	return out, nil
}

// defaultPopulates populates every association (collections capped at
// DefaultLimit), or only those the populate parameter lists; "false" turns
// population off.
func defaultPopulates(r *Request) (map[string]any, error) {
	m := r.Model
	pops := map[string]any{}
	v, given := r.Param("populate")
	if given && v != nil && v != "" {
		if v == "false" || v == false {
			return pops, nil
		}
		names, err := nameList("populate", v)
		if err != nil {
			return nil, invalidPopulates("`populate` must be false or a comma-separated list of associations")
		}
		for _, n := range names {
			name := n.(string)
			a := m.Attr(name)
			if a == nil || !a.IsAssociation() {
				return nil, invalidPopulates("Could not populate `%s`: %s has no such association", name, m.Identity)
			}
			pops[name] = populateDefault(a)
		}
		return pops, nil
	}
	omitted := map[string]bool{}
	if o, ok := r.Param("omit"); ok {
		if names, err := nameList("omit", o); err == nil {
			for _, n := range names {
				omitted[n.(string)] = true
			}
		}
	}
	for _, name := range m.Order {
		a := m.Attributes[name]
		if a.IsAssociation() && !omitted[name] {
			pops[name] = populateDefault(a)
		}
	}
	return pops, nil
}

func populateDefault(a *model.Attribute) any {
	if a.IsPlural() {
		return map[string]any{"where": map[string]any{}, "limit": float64(DefaultLimit), "skip": 0.0}
	}
	return true
}

// isDefaultPopulate reports whether sub is the criteria populateDefault
// gives a collection, unchanged: {where: {}, limit: DefaultLimit, skip: 0}.
func isDefaultPopulate(sub map[string]any) bool {
	if len(sub) != 3 {
		return false
	}
	w, ok := sub["where"].(map[string]any)
	if !ok || len(w) != 0 {
		return false
	}
	limit, ok := sub["limit"].(float64)
	if !ok || limit != float64(DefaultLimit) {
		return false
	}
	skip, ok := sub["skip"].(float64)
	return ok && skip == 0
}

// replaceIDs reads the new members of replace: a bare JSON array body,
// {"fks": [...]}, or ?fks=[...] / ?<alias>=[...] in the query string (the
// shortcut route's form). A url-encoded or multipart body is never read for
// them: Sails takes the ids from an array body only, so `pets=[6]` sent as
// a form must not replace anything (it is 400, as in Sails, unless the
// query string carries the ids).
func replaceIDs(r *Request) ([]any, error) {
	form := formBody(r.HTTP)
	switch b := r.Body.(type) {
	case []any:
		return b, nil
	case map[string]any:
		if !form {
			if v, ok := b["fks"]; ok {
				return idList(v)
			}
			if v, ok := b[r.Alias]; ok {
				return idList(v)
			}
		}
	}
	for _, key := range []string{"fks", r.Alias} {
		if v, ok := r.Query[key]; ok {
			return idList(v)
		}
	}
	if form {
		return nil, &model.Error{Kind: model.Invalid, Code: model.CodeInvalidAssociatedIDs,
			Msg: fmt.Sprintf("replace takes the new members of `%s` as a JSON array of primary keys in the body "+
				"(Content-Type: application/json, for example `[1, 2]`), or as ?%s=[1,2] in the query string; "+
				"a url-encoded or multipart body cannot carry them", r.Alias, r.Alias)}
	}
	return nil, &model.Error{Kind: model.Invalid, Code: model.CodeInvalidAssociatedIDs,
		Msg: "replace needs the new members: send a JSON array of primary keys as the body, or {\"fks\": [...]}"}
}

// formBody reports whether r's body was url-encoded or multipart (nil r,
// a call from Go, has none).
func formBody(r *http.Request) bool {
	if r == nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		mt, _, _ = strings.Cut(r.Header.Get("Content-Type"), ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data"
}

func idList(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string:
		var ids []any
		if err := json.Unmarshal([]byte(x), &ids); err != nil {
			return nil, &model.Error{Kind: model.Invalid, Code: model.CodeInvalidAssociatedIDs,
				Msg: fmt.Sprintf("Could not parse the list of primary keys %s as a JSON array", model.Describe(x))}
		}
		return ids, nil
	}
	return nil, &model.Error{Kind: model.Invalid, Code: model.CodeInvalidAssociatedIDs,
		Msg: "the new members must be an array of primary keys"}
}

func invalidCriteria(format string, args ...any) error {
	return model.Errorf(model.Invalid, model.CodeInvalidCriteria, format, args...)
}

func invalidPopulates(format string, args ...any) error {
	return model.Errorf(model.Invalid, model.CodeInvalidPopulates, format, args...)
}
