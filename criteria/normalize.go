package criteria

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff/model"
)

// Limits on what one criteria may ask for, so that a request's work stays
// bounded and every engine accepts the SQL it becomes (SQLite refuses more
// than 32,766 parameters, PostgreSQL more than 65,535). No honest client
// comes near them; a criteria over one is refused with E_INVALID_CRITERIA.
const (
	// MaxDepth bounds where-clause nesting of and / or, as Waterline does.
	MaxDepth = 25
	// MaxTerms bounds the size of one where clause: its comparisons plus
	// the values of its in / nin lists.
	MaxTerms = 10000
	// MaxSortKeys bounds the keys of one sort.
	MaxSortKeys = 64
)

// invalid returns an E_INVALID_CRITERIA usage error.
func invalid(format string, args ...any) error {
	return model.Errorf(model.Invalid, model.CodeInvalidCriteria, format, args...)
}

var topLevelKeys = map[string]bool{"where": true, "limit": true, "skip": true, "sort": true, "select": true, "omit": true}

// Normalize turns the loose criteria of a find over m (as JSON decodes it:
// a dictionary with where/limit/skip/sort/select/omit, a bare where clause,
// a primary key or list of keys, false, or nil) into a Criteria, with
// Waterline's rules. Errors are *model.Error with code E_INVALID_CRITERIA.
// An absent limit means Unlimited; the blueprint layer supplies its default.
func Normalize(raw any, m *model.Model) (*Criteria, error) {
	c := &Criteria{Limit: Unlimited}
	switch x := raw.(type) {
	case nil:
		return c, nil
	case bool:
		if !x {
			c.Noop = true
			return c, nil
		}
		return nil, invalid("Criteria must be a dictionary, not `true`.")
	case map[string]any:
		for _, agg := range []string{"groupBy", "sum", "average", "min", "max"} {
			if _, ok := x[agg]; ok {
				return nil, invalid("Aggregation (`%s`) is not supported in criteria (removed in Sails 1.0).", agg)
			}
		}
		explicit := false
		for k := range x {
			if topLevelKeys[k] {
				explicit = true
			}
		}
		if !explicit {
			return whereOnly(c, x, m)
		}
		for k, v := range x {
			if !topLevelKeys[k] && v != nil {
				return nil, invalid("Unrecognized property `%s` in criteria: put constraints inside `where`.", k)
			}
		}
		w, noop, err := NormalizeWhere(x["where"], m)
		if err != nil {
			return nil, err
		}
		c.Where, c.Noop = w, noop
		if v, ok := x["limit"]; ok {
			if c.Limit, err = NormalizeLimit(v); err != nil {
				return nil, err
			}
			if c.Limit == 0 {
				c.Noop = true
			}
		}
		if v, ok := x["skip"]; ok {
			if c.Skip, err = NormalizeSkip(v); err != nil {
				return nil, err
			}
		}
		if v, ok := x["sort"]; ok {
			if c.Sort, err = NormalizeSort(v, m); err != nil {
				return nil, err
			}
		}
		sel, hasSel := x["select"]
		om, hasOmit := x["omit"]
		if hasSel {
			if c.Select, err = normalizeSelect(sel, m); err != nil {
				return nil, err
			}
		}
		if hasOmit {
			if c.Omit, err = normalizeOmit(om, m); err != nil {
				return nil, err
			}
		}
		if c.Select != nil && len(c.Omit) > 0 {
			return nil, invalid("Cannot specify both `select` and `omit`.")
		}
		return c, nil
	default:
		return whereOnly(c, raw, m)
	}
}

func whereOnly(c *Criteria, where any, m *model.Model) (*Criteria, error) {
	w, noop, err := NormalizeWhere(where, m)
	if err != nil {
		return nil, err
	}
	c.Where, c.Noop = w, noop
	return c, nil
}

// NormalizeLimit reads a limit: a number or numeric string; null, Infinity
// and "Infinity" mean Unlimited; 0 and "" mean none (a no-op query).
// Negative, fractional and non-numeric limits are errors.
func NormalizeLimit(raw any) (int64, error) {
	f, err := wholeNumber("limit", raw, true)
	if err != nil {
		return 0, err
	}
	if f < 0 {
		return 0, invalid("`limit` must not be negative (got %s).", model.Describe(raw))
	}
	return int64(f), nil
}

// NormalizeSkip reads a skip: a natural number or numeric string.
func NormalizeSkip(raw any) (int64, error) {
	if raw == nil {
		return 0, nil
	}
	f, err := wholeNumber("skip", raw, false)
	if err != nil {
		return 0, err
	}
	if f < 0 {
		return 0, invalid("`skip` must not be negative (got %s).", model.Describe(raw))
	}
	return int64(f), nil
}

func wholeNumber(key string, raw any, infinite bool) (float64, error) {
	var f float64
	switch x := raw.(type) {
	case nil:
		if infinite {
			return float64(Unlimited), nil
		}
		return 0, nil
	case float64:
		f = x
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case string:
		s := strings.TrimSpace(x)
		switch {
		case s == "":
			return 0, nil
		case infinite && (s == "Infinity" || s == "null"):
			return float64(Unlimited), nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, invalid("`%s` must be a number (got %s).", key, model.Describe(raw))
		}
		f = v
	default:
		return 0, invalid("`%s` must be a number (got %s).", key, model.Describe(raw))
	}
	if infinite && math.IsInf(f, 1) {
		return float64(Unlimited), nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f > float64(Unlimited) {
		return 0, invalid("`%s` must be a whole number no larger than %d (got %s).", key, Unlimited, model.Describe(raw))
	}
	return f, nil
}

// NormalizeSort reads every sort form Waterline accepts: "name",
// "name DESC", ["name DESC", {"age": "ASC"}] and the deprecated {"name": -1}.
func NormalizeSort(raw any, m *model.Model) ([]Sort, error) {
	var keys []Sort
	add := func(attr, dir string) error {
		desc := false
		switch strings.ToUpper(dir) {
		case "", "ASC":
		case "DESC":
			desc = true
		default:
			return invalid("Sort direction for `%s` must be ASC or DESC (got %q).", attr, dir)
		}
		if err := checkSortAttr(attr, m); err != nil {
			return err
		}
		if len(keys) == MaxSortKeys {
			return invalid("A sort may have at most %d keys.", MaxSortKeys)
		}
		for _, k := range keys {
			if k.Attr == attr {
				return invalid("`%s` appears twice in sort.", attr)
			}
		}
		keys = append(keys, Sort{Attr: attr, Desc: desc})
		return nil
	}
	fromString := func(s string) error {
		parts := strings.Fields(s)
		if len(parts) == 0 || len(parts) > 2 || strings.Contains(s, ",") {
			return invalid("Cannot sort by %q: use \"attribute\" or \"attribute DESC\" (an array for several keys).", s)
		}
		dir := ""
		if len(parts) == 2 {
			dir = parts[1]
		}
		return add(parts[0], dir)
	}
	fromObject := func(o map[string]any, inArray bool) error {
		names := make([]string, 0, len(o))
		for k := range o {
			names = append(names, k)
		}
		sort.Strings(names)
		if !inArray {
			// Waterline's normalizeSortClause: a bare dictionary is read
			// Mongo-style (1 / -1) only; a single "ASC"/"DESC" pair
			// was meant for an array. Its words, through forgeStageTwoQuery.
			for _, n := range names {
				switch v := o[n].(type) {
				case string:
					if len(o) == 1 {
						return invalid("%s", "Could not use the provided `sort` clause: The `sort` clause in the provided criteria is invalid.  "+
							"If specified, it should be either a string like `'fullName DESC'`, or an array like `[ { fullName: 'DESC' } ]`.  "+
							"But it looks like you might need to wrap this in an array, because instead, got: "+inspectDict(o, names))
					}
				case float64:
					if v == 1 || v == -1 {
						continue
					}
				}
				return invalid("%s", "Could not use the provided `sort` clause: The `sort` clause in the provided criteria is invalid.  "+
					"If specified as a dictionary, it should use Mongo-esque semantics, using -1 and 1 for the sort direction  "+
					"(something like `{ fullName: -1, rank: 1 }`).  But instead, got: "+inspectDict(o, names))
			}
		}
		for _, n := range names {
			switch v := o[n].(type) {
			case float64:
				switch v {
				case 1:
					if err := add(n, "ASC"); err != nil {
						return err
					}
				case -1:
					if err := add(n, "DESC"); err != nil {
						return err
					}
				default:
					return invalid("Sort value for `%s` must be 1 or -1.", n)
				}
			case string:
				if err := add(n, v); err != nil {
					return err
				}
			default:
				return invalid("Sort value for `%s` must be ASC or DESC.", n)
			}
		}
		return nil
	}
	switch x := raw.(type) {
	case nil:
		return nil, nil
	case string:
		if err := fromString(x); err != nil {
			return nil, err
		}
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case string:
				if err := fromString(y); err != nil {
					return nil, err
				}
			case map[string]any:
				if len(y) != 1 {
					return nil, invalid("Each sort item must name exactly one attribute.")
				}
				if err := fromObject(y, true); err != nil {
					return nil, err
				}
			default:
				return nil, invalid("Each sort item must be a string or a dictionary.")
			}
		}
	case map[string]any:
		if err := fromObject(x, false); err != nil {
			return nil, err
		}
	default:
		return nil, invalid("Cannot sort by %s.", model.Describe(raw))
	}
	return keys, nil
}

// inspectDict renders a flat dictionary as Node's util.inspect does in
// Waterline's messages: { name: 'DESC', 'first name': 1 }. keys gives the
// order.
func inspectDict(o map[string]any, keys []string) string {
	if len(keys) == 0 {
		return "{}"
	}
	// util.inspect picks the first quote the string does not contain.
	quote := func(s string) string {
		s = strings.ReplaceAll(s, `\`, `\\`)
		for _, q := range []string{"'", `"`, "`"} {
			if !strings.Contains(s, q) {
				return q + s + q
			}
		}
		return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	var b strings.Builder
	b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if jsIdentifier.MatchString(k) {
			b.WriteString(k)
		} else {
			b.WriteString(quote(k))
		}
		b.WriteString(": ")
		switch v := o[k].(type) {
		case string:
			b.WriteString(quote(v))
		case nil:
			b.WriteString("null")
		case float64:
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case []any:
			b.WriteString("[Array]")
		default:
			b.WriteString("[Object]")
		}
	}
	b.WriteString(" }")
	return b.String()
}

var jsIdentifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func checkSortAttr(attr string, m *model.Model) error {
	if strings.Contains(attr, ".") {
		return invalid("Cannot sort by `%s`: deep paths are not supported.", attr)
	}
	a := m.Attr(attr)
	if a == nil {
		if m.Schema {
			return invalid("Cannot sort by `%s`: it is not a recognized attribute of %s.", attr, m.Identity)
		}
		if !model.ValidKey(attr) {
			return invalid("Cannot sort by `%s`: it is not a valid attribute name.", attr)
		}
		return nil
	}
	if a.IsPlural() {
		return invalid("Cannot sort by `%s`: it is a collection.", attr)
	}
	return nil
}

func nameList(key string, raw any) ([]string, error) {
	switch x := raw.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{x}, nil
	case []string:
		return x, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, invalid("`%s` must be a list of attribute names.", key)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, invalid("`%s` must be a list of attribute names.", key)
}

func normalizeSelect(raw any, m *model.Model) ([]string, error) {
	names, err := nameList("select", raw)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 || len(names) == 1 && names[0] == "*" {
		return nil, nil
	}
	if !m.Schema {
		return nil, invalid("Cannot use a custom `select` on %s: its schema is not enforced.", m.Identity)
	}
	out := []string{m.PrimaryKey}
	for _, n := range names {
		a := m.Attr(n)
		switch {
		case a == nil:
			return nil, invalid("Cannot select `%s`: it is not a recognized attribute of %s.", n, m.Identity)
		case a.IsPlural():
			return nil, invalid("Cannot select `%s`: it is a collection (use populate).", n)
		}
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func normalizeOmit(raw any, m *model.Model) ([]string, error) {
	names, err := nameList("omit", raw)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, nil
	}
	if !m.Schema {
		return nil, invalid("Cannot use `omit` on %s: its schema is not enforced.", m.Identity)
	}
	var out []string
	for _, n := range names {
		a := m.Attr(n)
		switch {
		case a == nil:
			return nil, invalid("Cannot omit `%s`: it is not a recognized attribute of %s.", n, m.Identity)
		case n == m.PrimaryKey:
			return nil, invalid("Cannot omit the primary key `%s`.", n)
		case a.IsPlural():
			continue
		}
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NormalizeWhere normalises a where clause for m. It returns nil for a
// clause matching everything, and noop true for one matching nothing.
func NormalizeWhere(raw any, m *model.Model) (Expr, bool, error) {
	switch x := raw.(type) {
	case nil:
		return nil, false, nil
	case map[string]any:
		e, err := branch(x, m, 0)
		if err != nil {
			return nil, false, err
		}
		if err := checkTerms(e); err != nil {
			return nil, false, err
		}
		return simplify(e)
	case float64, string, int, int64, []any:
		e, err := constraint(m.PrimaryKey, raw, m)
		if err != nil {
			return nil, false, err
		}
		if err := checkTerms(e); err != nil {
			return nil, false, err
		}
		return simplify(e)
	}
	return nil, false, invalid("The `where` clause must be a dictionary (got %s).", model.Describe(raw))
}

// checkTerms refuses a where clause of more than MaxTerms comparisons and
// list values.
func checkTerms(e Expr) error {
	if n := terms(e); n > MaxTerms {
		return invalid("The `where` clause is too large: %d comparisons and list values, at most %d are allowed.", n, MaxTerms)
	}
	return nil
}

// terms counts the comparisons of e and the values of its lists.
func terms(e Expr) int {
	n := 0
	switch x := e.(type) {
	case *And:
		for _, c := range x.Exprs {
			n += terms(c)
		}
	case *Or:
		for _, c := range x.Exprs {
			n += terms(c)
		}
	case *Cmp:
		n = 1
		if list, ok := x.Value.([]any); ok && (x.Op == In || x.Op == Nin) {
			n = max(len(list), 1)
		}
	}
	return n
}

// void is the clause matching nothing; nil is the clause matching everything.
var void Expr = &Or{}

func isVoid(e Expr) bool {
	o, ok := e.(*Or)
	return ok && len(o.Exprs) == 0
}

func simplify(e Expr) (Expr, bool, error) {
	if isVoid(e) {
		return nil, true, nil
	}
	return e, false, nil
}

func branch(w map[string]any, m *model.Model, depth int) (Expr, error) {
	if depth > MaxDepth {
		return nil, invalid("The `where` clause is nested too deeply.")
	}
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []Expr
	for _, k := range keys {
		var e Expr
		var err error
		switch k {
		case "and", "or":
			e, err = predicate(k, w[k], m, depth)
		default:
			e, err = constraint(k, w[k], m)
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, e)
	}
	return and(parts), nil
}

// and combines children with the universal/void algebra.
func and(parts []Expr) Expr {
	var kept []Expr
	for _, p := range parts {
		switch {
		case p == nil:
		case isVoid(p):
			return void
		default:
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return nil
	case 1:
		return kept[0]
	}
	return &And{Exprs: kept}
}

func or(parts []Expr) Expr {
	var kept []Expr
	for _, p := range parts {
		switch {
		case p == nil:
			return nil
		case isVoid(p):
		default:
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return void
	case 1:
		return kept[0]
	}
	return &Or{Exprs: kept}
}

func predicate(op string, raw any, m *model.Model, depth int) (Expr, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid("`%s` must be an array of dictionaries.", op)
	}
	parts := make([]Expr, 0, len(list))
	for _, item := range list {
		sub, ok := item.(map[string]any)
		if !ok {
			return nil, invalid("`%s` must be an array of dictionaries.", op)
		}
		e, err := branch(sub, m, depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, e)
	}
	if op == "and" {
		if len(parts) == 0 {
			return nil, nil
		}
		return and(parts), nil
	}
	return or(parts), nil
}

var modifierAliases = map[string]string{
	"lessThan": "<", "lessThanOrEqual": "<=", "greaterThan": ">", "greaterThanOrEqual": ">=",
	"not": "!=", "!": "!=", "!==": "!=",
}

// constraint normalises one `attr: value` pair.
func constraint(attr string, raw any, m *model.Model) (Expr, error) {
	if strings.Contains(attr, ".") {
		return nil, invalid("Cannot filter by `%s`: deep paths are not supported.", attr)
	}
	a := m.Attr(attr)
	if a == nil && m.Schema {
		return nil, invalid("`%s` is not a recognized attribute of %s.", attr, m.Identity)
	}
	if a == nil && !model.ValidKey(attr) {
		return nil, invalid("Cannot filter by `%s`: it is not a valid attribute name.", attr)
	}
	if a != nil && a.IsPlural() {
		return nil, invalid("Cannot filter by `%s`: it is a collection.", attr)
	}
	if model.HasNUL(raw) {
		return nil, invalid("Cannot filter by `%s`: %s", attr, model.NULMessage)
	}
	switch x := raw.(type) {
	case []any:
		return inList(attr, In, x, a)
	case map[string]any:
		if len(x) == 0 {
			return nil, invalid("The constraint on `%s` is an empty dictionary: give a modifier such as `>` or `contains`.", attr)
		}
		mods := make([]string, 0, len(x))
		for k := range x {
			mods = append(mods, k)
		}
		sort.Strings(mods)
		parts := make([]Expr, 0, len(mods))
		for _, mod := range mods {
			e, err := modifier(attr, mod, x[mod], a)
			if err != nil {
				return nil, err
			}
			parts = append(parts, e)
		}
		return and(parts), nil
	}
	v, err := compareValue(attr, raw, a, true)
	if err != nil {
		return nil, err
	}
	return &Cmp{Attr: attr, Op: Eq, Value: v}, nil
}

func modifier(attr, mod string, raw any, a *model.Attribute) (Expr, error) {
	if alias, ok := modifierAliases[mod]; ok {
		mod = alias
	}
	switch mod {
	case "<", "<=", ">", ">=":
		if a != nil && a.Type == model.Boolean {
			return nil, invalid("Cannot use `%s` on the boolean attribute `%s`.", mod, attr)
		}
		if raw == nil {
			return nil, invalid("Cannot compare `%s` %s null.", attr, mod)
		}
		v, err := compareValue(attr, raw, a, false)
		if err != nil {
			return nil, err
		}
		op := map[string]Op{"<": Lt, "<=": Lte, ">": Gt, ">=": Gte}[mod]
		return &Cmp{Attr: attr, Op: op, Value: v}, nil
	case "!=":
		if list, ok := raw.([]any); ok {
			return inList(attr, Nin, list, a)
		}
		v, err := compareValue(attr, raw, a, true)
		if err != nil {
			return nil, err
		}
		return &Cmp{Attr: attr, Op: Ne, Value: v}, nil
	case "in", "nin":
		list, ok := raw.([]any)
		if !ok {
			return nil, invalid("`%s` on `%s` must be an array.", mod, attr)
		}
		op := In
		if mod == "nin" {
			op = Nin
		}
		return inList(attr, op, list, a)
	case "contains", "startsWith", "endsWith", "like":
		if a != nil && (a.Type == model.Number || a.Type == model.Boolean) {
			return nil, invalid("Cannot use `%s` on `%s`, which is not a string.", mod, attr)
		}
		var s string
		switch x := raw.(type) {
		case string:
			s = x
		case float64:
			if mod == "like" {
				return nil, invalid("`like` on `%s` needs a string.", attr)
			}
			s = model.FormatNumber(x)
		default:
			return nil, invalid("`%s` on `%s` needs a string (got %s).", mod, attr, model.Describe(raw))
		}
		if mod == "like" {
			if s == "" {
				return nil, invalid("`like` on `%s` needs a non-empty pattern.", attr)
			}
			if s == "%%" || strings.Trim(s, "%") == "" {
				return nil, nil
			}
			return &Cmp{Attr: attr, Op: Like, Value: s}, nil
		}
		if s == "" {
			return nil, nil
		}
		esc := strings.ReplaceAll(s, "%", `\%`)
		pattern := map[string]string{"contains": "%" + esc + "%", "startsWith": esc + "%", "endsWith": "%" + esc}[mod]
		return &Cmp{Attr: attr, Op: Like, Value: pattern}, nil
	}
	return nil, invalid("Unrecognized modifier `%s` on `%s`.", mod, attr)
}

func inList(attr string, op Op, list []any, a *model.Attribute) (Expr, error) {
	vals := make([]any, 0, len(list))
	for _, item := range list {
		if item == nil {
			return nil, invalid("`%s` on `%s` cannot contain null.", op, attr)
		}
		v, err := compareValue(attr, item, a, false)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		if op == In {
			return void, nil
		}
		return nil, nil
	}
	return &Cmp{Attr: attr, Op: op, Value: vals}, nil
}

// compareValue coerces a comparison value to the attribute's type (loose
// rules); values on undeclared attributes of schemaless models stay as given.
func compareValue(attr string, raw any, a *model.Attribute, nullOK bool) (any, error) {
	if raw == nil {
		if nullOK {
			return nil, nil
		}
		return nil, invalid("Cannot compare `%s` with null here.", attr)
	}
	switch raw.(type) {
	case map[string]any, []any:
		if a == nil || a.Type != model.JSON && a.Type != model.Ref {
			return nil, invalid("Cannot compare `%s` with %s.", attr, model.Describe(raw))
		}
	}
	if a == nil {
		return raw, nil
	}
	t := a.Type
	if a.IsSingular() && t == "" {
		t = model.Number
	}
	v, err := model.CoerceLoose(t, raw)
	if err != nil {
		return nil, invalid("Invalid value for `%s`: %v.", attr, err)
	}
	return v, nil
}
