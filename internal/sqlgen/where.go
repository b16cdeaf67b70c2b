package sqlgen

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// builder accumulates SQL text and its parameters for one statement.
type builder struct {
	d *Dialect
	t *datastore.Table
	// qual, when set, qualifies column references (the alias of t in a
	// join).
	qual string
	// arrays lets in bind its list as one array parameter (see
	// Dialect.ArrayIn).
	arrays bool
	buf    []byte  // the SQL text so far
	pooled *[]byte // where buf came from, to give it back (nil: nowhere)
	args   []any
	// argsBuf is where args start (newBuilder): most statements have a
	// few parameters, which then cost no allocation of their own.
	argsBuf [4]any
}

func (b *builder) str(s string)      { b.buf = append(b.buf, s...) }
func (b *builder) ident(name string) { b.buf = b.d.appendIdent(b.buf, name) }

// colRef writes a reference to column name of t.
func (b *builder) colRef(name string) {
	if b.qual != "" {
		b.ident(b.qual)
		b.str(".")
	}
	b.ident(name)
}

func (b *builder) param(v any) {
	b.args = append(b.args, v)
	if b.d.Numbered {
		b.buf = strconv.AppendInt(append(b.buf, '$'), int64(len(b.args)), 10)
		return
	}
	b.buf = append(b.buf, '?')
}

func (b *builder) column(name string) (*datastore.Column, error) {
	c := b.t.Column(name)
	if c == nil {
		return nil, fmt.Errorf("table %s has no column %q", b.t.Name, name)
	}
	return c, nil
}

// where writes e as a boolean SQL expression.
func (b *builder) where(e criteria.Expr) error {
	switch e := e.(type) {
	case nil:
		b.str("TRUE")
	case *criteria.And:
		return b.junction(e.Exprs, " AND ", "TRUE")
	case *criteria.Or:
		return b.junction(e.Exprs, " OR ", "FALSE")
	case *criteria.Cmp:
		return b.cmp(e)
	default:
		return fmt.Errorf("unknown where node %T", e)
	}
	return nil
}

func (b *builder) junction(es []criteria.Expr, op, empty string) error {
	switch len(es) {
	case 0:
		b.str(empty)
		return nil
	case 1:
		return b.where(es[0])
	}
	if len(es) > junctionGroup {
		return b.groups(es, op, empty)
	}
	b.str("(")
	for i, e := range es {
		if i > 0 {
			b.str(op)
		}
		if err := b.where(e); err != nil {
			return err
		}
	}
	b.str(")")
	return nil
}

// junctionGroup bounds the operands of one run of AND or OR. SQLite parses
// a run as a left-deep tree and refuses one deeper than 1,000 ("Expression
// tree is too large"), so a longer run is written as at most junctionGroup
// parenthesised groups of its operands, recursively: a tree of
// logarithmic depth, which every engine reads as the same condition.
const junctionGroup = 64

// groups writes the junction of es, more than junctionGroup operands, as a
// junction of at most junctionGroup groups.
func (b *builder) groups(es []criteria.Expr, op, empty string) error {
	size := (len(es) + junctionGroup - 1) / junctionGroup
	b.str("(")
	for i := 0; i < len(es); i += size {
		if i > 0 {
			b.str(op)
		}
		if err := b.junction(es[i:min(i+size, len(es))], op, empty); err != nil {
			return err
		}
	}
	b.str(")")
	return nil
}

func (b *builder) cmp(e *criteria.Cmp) error {
	if e.Key != "" {
		return b.keyCmp(e)
	}
	c, err := b.column(e.Attr)
	if err != nil {
		return err
	}
	switch e.Op {
	case criteria.Eq, criteria.Ne:
		return b.equality(c, e.Op == criteria.Ne, e.Value)
	case criteria.Lt, criteria.Lte, criteria.Gt, criteria.Gte:
		return b.order(c, e.Op, e.Value)
	case criteria.In, criteria.Nin:
		list, ok := e.Value.([]any)
		if !ok {
			return fmt.Errorf("%s on %s wants a list, got %T", e.Op, c.Name, e.Value)
		}
		return b.in(c, e.Op == criteria.Nin, list)
	case criteria.Like:
		p, ok := e.Value.(string)
		if !ok {
			return fmt.Errorf("like on %s wants a string pattern, got %T", c.Name, e.Value)
		}
		b.like(c, p)
		return nil
	}
	return fmt.Errorf("unknown operator %v on %s", e.Op, c.Name)
}

// fractional reports a non-integral number compared with an Integer
// column. Such comparisons are rewritten with integer bounds so that no
// engine has to compare a BIGINT with a fractional parameter.
func fractional(c *datastore.Column, v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && c.Kind == datastore.Integer && f != math.Trunc(f) && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// outOfRange reports a number compared with an Integer column that no
// BIGINT holds (1e308, say): the engine could not bind it (a 500), and the
// answer is known without it. sign is 1 above the range, -1 below.
func outOfRange(c *datastore.Column, v any) (sign int, ok bool) {
	f, isFloat := v.(float64)
	switch {
	case !isFloat || c.Kind != datastore.Integer || math.IsNaN(f):
		return 0, false
	case f >= 1<<63:
		return 1, true
	case f < -(1 << 63):
		return -1, true
	}
	return 0, false
}

func (b *builder) equality(c *datastore.Column, ne bool, v any) error {
	if v == nil {
		b.colRef(c.Name)
		if ne {
			b.str(" IS NOT NULL")
		} else {
			b.str(" IS NULL")
		}
		return nil
	}
	_, frac := fractional(c, v)
	if _, out := outOfRange(c, v); frac || out {
		if ne {
			b.str("TRUE")
		} else {
			b.str("FALSE")
		}
		return nil
	}
	ev, err := Encode(c.Kind, v)
	if err != nil {
		return err
	}
	if !ne {
		b.colRef(c.Name)
		b.str(" = ")
		b.param(ev)
		return nil
	}
	// Waterline's != matches records where the attribute is null
	// (sails-disk does, and clients rely on it), unlike SQL's <>.
	b.str("(")
	b.colRef(c.Name)
	b.str(" <> ")
	b.param(ev)
	b.str(" OR ")
	b.colRef(c.Name)
	b.str(" IS NULL)")
	return nil
}

func (b *builder) order(c *datastore.Column, op criteria.Op, v any) error {
	if v == nil {
		return fmt.Errorf("%s on %s with null", op, c.Name)
	}
	if sign, ok := outOfRange(c, v); ok {
		// Every stored value is below a number above the range, and above
		// one below it; null matches no order.
		if below := op == criteria.Lt || op == criteria.Lte; below == (sign > 0) {
			b.colRef(c.Name)
			b.str(" IS NOT NULL")
		} else {
			b.str("FALSE")
		}
		return nil
	}
	if f, ok := fractional(c, v); ok {
		switch op {
		case criteria.Lt, criteria.Gte:
			v = math.Ceil(f)
		default:
			v = math.Floor(f)
		}
	}
	ev, err := Encode(c.Kind, v)
	if err != nil {
		return err
	}
	b.colRef(c.Name)
	switch op {
	case criteria.Lt:
		b.str(" < ")
	case criteria.Lte:
		b.str(" <= ")
	case criteria.Gt:
		b.str(" > ")
	default:
		b.str(" >= ")
	}
	b.param(ev)
	return nil
}

// in writes [NOT] IN. A null in the list matches null values; nin, like !=,
// matches nulls unless the list names null.
func (b *builder) in(c *datastore.Column, not bool, list []any) error {
	var vals []any
	hasNil := false
	for _, v := range list {
		if v == nil {
			hasNil = true
			continue
		}
		if _, ok := fractional(c, v); ok {
			continue
		}
		if _, ok := outOfRange(c, v); ok {
			continue
		}
		ev, err := Encode(c.Kind, v)
		if err != nil {
			return err
		}
		vals = append(vals, ev)
	}
	switch {
	case len(vals) == 0 && !hasNil:
		if not {
			b.str("TRUE")
		} else {
			b.str("FALSE")
		}
		return nil
	case len(vals) == 0:
		return b.equality(c, not, nil)
	}
	wrap := not != hasNil // an extra "OR col IS NULL" is needed
	if wrap {
		b.str("(")
	}
	b.colRef(c.Name)
	if arr := b.array(c, vals); arr != nil {
		if not {
			b.str(" <> ALL(")
		} else {
			b.str(" = ANY(")
		}
		b.param(arr)
	} else if list, ok := b.jsonList(vals); ok {
		if not {
			b.str(" NOT IN (SELECT value FROM json_each(")
		} else {
			b.str(" IN (SELECT value FROM json_each(")
		}
		b.param(list)
		b.str(")")
	} else {
		if not {
			b.str(" NOT IN (")
		} else {
			b.str(" IN (")
		}
		b.params(vals)
	}
	b.str(")")
	if wrap {
		b.str(" OR ")
		b.colRef(c.Name)
		b.str(" IS NULL)")
	}
	return nil
}

// array returns vals, encoded values of c, as one typed slice to bind as an
// array parameter where the builder allows it (b.arrays), or nil for a
// list of parameters. A single value stays a list ("= $1" plans as well as
// it can), and so do columns of an explicit type and values not of the
// kind's Go type, whose binding is left to the engine's conversions one by
// one as before.
func (b *builder) array(c *datastore.Column, vals []any) any {
	if !(b.arrays || b.d.ArrayIn && len(vals) > manyValues) || len(vals) < 2 || c.Type != "" {
		return nil
	}
	return typedArray(c.Kind, vals)
}

// manyValues is the length past which a list of values is bound as one
// parameter where the engine can read one (an array on PostgreSQL, JSON
// text read by json_each on SQLite): a list of keys the ORM builds from
// stored rows (the parents of a populated page, say) has no bound, and
// the engines refuse more than 32,766 (SQLite) or 65,535 (PostgreSQL)
// parameters in a statement. Shorter lists stay lists, planned as before.
const manyValues = 1000

// jsonList returns vals as the JSON text of one parameter that SQLite's
// json_each reads back (dialects with JSONFunctions), when there are more
// than manyValues of them; ok is false otherwise. json_each yields JSON
// numbers as INTEGER or REAL and strings as TEXT, which compare with a
// column's values as the bound values would.
func (b *builder) jsonList(vals []any) (string, bool) {
	if b.d.JSON != JSONFunctions || len(vals) <= manyValues {
		return "", false
	}
	text, err := json.Marshal(vals)
	if err != nil {
		return "", false
	}
	return string(text), true
}

// typedArray returns vals, encoded values of kind k, as one typed slice to
// bind as an array parameter, or nil when k has no array type or some value
// is not of k's Go type.
func typedArray(k datastore.Kind, vals []any) any {
	switch k {
	case datastore.Integer:
		return typedSlice[int64](vals)
	case datastore.Number:
		return typedSlice[float64](vals)
	case datastore.String:
		return typedSlice[string](vals)
	case datastore.Boolean:
		return typedSlice[bool](vals)
	}
	return nil
}

// typedSlice returns vals as a []T, or nil unless every value is a T.
func typedSlice[T any](vals []any) any {
	out := make([]T, len(vals))
	for i, v := range vals {
		t, ok := v.(T)
		if !ok {
			return nil
		}
		out[i] = t
	}
	return out
}

// like writes a case-sensitive pattern match. On SQLite it uses GLOB:
// LIKE there ignores ASCII case unless PRAGMA case_sensitive_like is set on
// every connection (a deprecated pragma, and per-connection state that a
// pool can lose), while GLOB is case-sensitive by definition and, like
// LIKE, can use an index on the column for a constant prefix.
func (b *builder) like(c *datastore.Column, pattern string) {
	toks := parseLike(pattern)
	if b.d.Glob {
		b.colRef(c.Name)
		b.str(" GLOB ")
		b.param(globPattern(toks))
		return
	}
	if b.d.BinaryLike {
		b.str("CAST(")
		b.colRef(c.Name)
		b.str(" AS BINARY) LIKE CAST(")
		b.param(likePattern(toks))
		b.str(" AS BINARY) ESCAPE " + b.d.LikeEscape)
		return
	}
	if b.d.LikeCast != "" && c.Kind != datastore.String {
		b.str("CAST(")
		b.colRef(c.Name)
		b.str(" AS " + b.d.LikeCast + ")")
	} else {
		b.colRef(c.Name)
	}
	b.str(" LIKE ")
	b.param(likePattern(toks))
	b.str(" ESCAPE " + b.d.LikeEscape)
}

// likeTok is a run of literal text, or (wild) the % wildcard.
type likeTok struct {
	wild bool
	lit  string
}

// parseLike reads a Waterline Like pattern: % matches any run of
// characters, a backslash makes the next character literal (\% is a
// percent sign), and everything else, _ included, is literal.
func parseLike(p string) []likeTok {
	var toks []likeTok
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeTok{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(p); i++ {
		switch ch := p[i]; {
		case ch == '\\' && i+1 < len(p):
			i++
			lit.WriteByte(p[i])
		case ch == '%':
			flush()
			if n := len(toks); n == 0 || !toks[n-1].wild {
				toks = append(toks, likeTok{wild: true})
			}
		default:
			lit.WriteByte(ch)
		}
	}
	flush()
	return toks
}

func likePattern(toks []likeTok) string {
	var sb strings.Builder
	for _, t := range toks {
		if t.wild {
			sb.WriteByte('%')
			continue
		}
		for i := 0; i < len(t.lit); i++ {
			switch ch := t.lit[i]; ch {
			case '%', '_', '\\':
				sb.WriteByte('\\')
				sb.WriteByte(ch)
			default:
				sb.WriteByte(ch)
			}
		}
	}
	return sb.String()
}

func globPattern(toks []likeTok) string {
	var sb strings.Builder
	for _, t := range toks {
		if t.wild {
			sb.WriteByte('*')
			continue
		}
		for i := 0; i < len(t.lit); i++ {
			switch ch := t.lit[i]; ch {
			case '*', '?', '[':
				sb.WriteByte('[')
				sb.WriteByte(ch)
				sb.WriteByte(']')
			default:
				sb.WriteByte(ch)
			}
		}
	}
	return sb.String()
}
