package sqlgen

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// This file compiles comparisons, sorts and updates that reach into a JSON
// column by key (the catch-all column of schemaless models). Keys come from
// clients: each is checked with model.ValidKey and travels as a bound
// parameter (a $."key" path on SQLite, a text operand of -> on PostgreSQL),
// so neither the SQL text nor the path syntax depends on client input.

// jsonClass is the JSON type of a compared value.
type jsonClass uint8

const (
	jsonNull jsonClass = iota
	jsonString
	jsonNumber
	jsonBool
)

// classify returns the JSON type of v and v with numbers as float64.
func classify(v any) (jsonClass, any, error) {
	switch x := v.(type) {
	case nil:
		return jsonNull, nil, nil
	case string:
		return jsonString, x, nil
	case bool:
		return jsonBool, x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, nil, fmt.Errorf("cannot compare a JSON key with %v", x)
		}
		return jsonNumber, x, nil
	case int:
		return jsonNumber, float64(x), nil
	case int64:
		return jsonNumber, float64(x), nil
	}
	return 0, nil, fmt.Errorf("cannot compare a JSON key with a %T", v)
}

// jsonColumn checks that e addresses a valid key of a JSON column.
func (b *builder) jsonColumn(attr, key string) (*datastore.Column, error) {
	c, err := b.column(attr)
	if err != nil {
		return nil, err
	}
	if c.Kind != datastore.JSON {
		return nil, fmt.Errorf("column %s is not JSON: cannot address key %q in it", c.Name, key)
	}
	if !model.ValidKey(key) {
		return nil, fmt.Errorf("invalid JSON key %q", key)
	}
	if b.d.JSON != JSONFunctions && b.d.JSON != JSONBOperators && b.d.JSON != JSONMySQL {
		return nil, fmt.Errorf("dialect %s cannot address keys inside JSON columns", b.d.Name)
	}
	return c, nil
}

// keyParam binds the key the way the dialect addresses it.
func (b *builder) keyParam(key string) {
	if b.d.JSON == JSONFunctions || b.d.JSON == JSONMySQL {
		// ValidKey leaves no character with a meaning inside the quotes.
		b.param(`$."` + key + `"`)
		return
	}
	b.param(key)
	b.str("::text")
}

// keyValue writes the key's value: the SQL value (text, number, or 1/0 for
// booleans) on SQLite, jsonb on PostgreSQL.
func (b *builder) keyValue(c *datastore.Column, key string) {
	if b.d.JSON == JSONFunctions {
		b.str("json_extract(")
		b.colRef(c.Name)
		b.str(", ")
		b.keyParam(key)
		b.str(")")
		return
	}
	b.str("(")
	b.colRef(c.Name)
	b.str(" -> ")
	b.keyParam(key)
	b.str(")")
}

// keyText writes the key's value as SQL text (PostgreSQL ->>; SQLite's
// json_extract already gives text for strings).
func (b *builder) keyText(c *datastore.Column, key string) {
	if b.d.JSON == JSONFunctions {
		b.keyValue(c, key)
		return
	}
	b.str("(")
	b.colRef(c.Name)
	b.str(" ->> ")
	b.keyParam(key)
	b.str(")")
}

// keyIsType writes a test that the key holds a value of class k (NULL when
// the key is absent, which callers treat as false).
func (b *builder) keyIsType(c *datastore.Column, key string, k jsonClass) {
	if b.d.JSON == JSONFunctions {
		b.str("json_type(")
		b.colRef(c.Name)
		b.str(", ")
		b.keyParam(key)
		switch k {
		case jsonString:
			b.str(") = 'text'")
		default:
			b.str(") IN ('integer', 'real')")
		}
		return
	}
	b.str("jsonb_typeof(")
	b.keyValue(c, key)
	if k == jsonString {
		b.str(") = 'string'")
	} else {
		b.str(") = 'number'")
	}
}

// keyCmp compiles a comparison on one key of a JSON column.
func (b *builder) keyCmp(e *criteria.Cmp) error {
	c, err := b.jsonColumn(e.Attr, e.Key)
	if err != nil {
		return err
	}
	if b.d.JSON == JSONMySQL {
		return b.mysqlKeyCmp(c, e)
	}
	switch e.Op {
	case criteria.Eq:
		return b.keyEq(c, e.Key, e.Value)
	case criteria.Ne:
		if e.Value == nil {
			b.keyText(c, e.Key)
			b.str(" IS NOT NULL")
			return nil
		}
		b.str("(")
		if err := b.keyEq(c, e.Key, e.Value); err != nil {
			return err
		}
		b.str(") IS NOT TRUE")
		return nil
	case criteria.In, criteria.Nin:
		list, ok := e.Value.([]any)
		if !ok {
			return fmt.Errorf("%s on %s.%s wants a list, got %T", e.Op, c.Name, e.Key, e.Value)
		}
		return b.keyIn(c, e.Key, e.Op == criteria.Nin, list)
	case criteria.Lt, criteria.Lte, criteria.Gt, criteria.Gte:
		return b.keyOrder(c, e.Key, e.Op, e.Value)
	case criteria.Like:
		p, ok := e.Value.(string)
		if !ok {
			return fmt.Errorf("like on %s.%s wants a string pattern, got %T", c.Name, e.Key, e.Value)
		}
		toks := parseLike(p)
		b.str("(")
		b.keyIsType(c, e.Key, jsonString)
		b.str(" AND ")
		b.keyText(c, e.Key)
		if b.d.Glob {
			b.str(" GLOB ")
			b.param(globPattern(toks))
		} else {
			b.str(" LIKE ")
			b.param(likePattern(toks))
			b.str(" ESCAPE " + b.d.LikeEscape)
		}
		b.str(")")
		return nil
	}
	return fmt.Errorf("unknown operator %v on %s.%s", e.Op, c.Name, e.Key)
}

// keyEq writes a type-strict equality; it is NULL, not false, for an
// absent key unless v is nil.
func (b *builder) keyEq(c *datastore.Column, key string, v any) error {
	k, v, err := classify(v)
	if err != nil {
		return err
	}
	if k == jsonNull {
		// json_extract and ->> give NULL for an absent key and for null.
		b.keyText(c, key)
		b.str(" IS NULL")
		return nil
	}
	if b.d.JSON == JSONBOperators {
		// jsonb equality never equates values of different types.
		enc, err := encodeJSON(v)
		if err != nil {
			return err
		}
		b.keyValue(c, key)
		b.str(" = ")
		b.param(enc)
		b.str("::jsonb")
		return nil
	}
	if k == jsonBool {
		// json_extract gives 1/0 for booleans; json_type tells them apart.
		b.str("json_type(")
		b.colRef(c.Name)
		b.str(", ")
		b.keyParam(key)
		if v == true {
			b.str(") = 'true'")
		} else {
			b.str(") = 'false'")
		}
		return nil
	}
	b.str("(")
	b.keyIsType(c, key, k)
	b.str(" AND ")
	b.keyValue(c, key)
	b.str(" = ")
	b.param(v)
	b.str(")")
	return nil
}

// keyIn writes in/nin as a disjunction of equalities; nin, like !=,
// matches records where the key is absent or null unless null is listed.
func (b *builder) keyIn(c *datastore.Column, key string, not bool, list []any) error {
	if len(list) == 0 {
		if not {
			b.str("TRUE")
		} else {
			b.str("FALSE")
		}
		return nil
	}
	b.str("(")
	for i, v := range list {
		if i > 0 {
			b.str(" OR ")
		}
		if err := b.keyEq(c, key, v); err != nil {
			return err
		}
	}
	b.str(")")
	if not {
		b.str(" IS NOT TRUE")
	}
	return nil
}

// keyOrder writes <, <=, >, >=, true only for values of v's type (strings
// compare as text, numbers numerically); booleans never match, as in
// Waterline's JavaScript adapters.
func (b *builder) keyOrder(c *datastore.Column, key string, op criteria.Op, v any) error {
	k, v, err := classify(v)
	if err != nil {
		return err
	}
	switch k {
	case jsonNull:
		return fmt.Errorf("%s on %s.%s with null", op, c.Name, key)
	case jsonBool:
		b.str("FALSE")
		return nil
	}
	b.str("(")
	b.keyIsType(c, key, k)
	b.str(" AND ")
	if k == jsonString {
		b.keyText(c, key)
	} else {
		b.keyValue(c, key)
	}
	b.str(" " + op.String() + " ")
	if k == jsonNumber && b.d.JSON == JSONBOperators {
		enc, err := encodeJSON(v)
		if err != nil {
			return err
		}
		b.param(enc)
		b.str("::jsonb")
	} else {
		b.param(v)
	}
	b.str(")")
	return nil
}

// mergeValue writes the new value of a Merge column: the stored object
// with the keys of obj set, in key order.
func (b *builder) mergeValue(c *datastore.Column, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("column %s merges objects, got %T", c.Name, v)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if !model.ValidKey(k) {
			return fmt.Errorf("column %s: invalid JSON key %q", c.Name, k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch b.d.JSON {
	case JSONFunctions:
		if len(keys) == 0 {
			b.str("COALESCE(")
			b.colRef(c.Name)
			b.str(", '{}')")
			return nil
		}
		// json_set, unlike json_patch, stores null values instead of
		// deleting their keys.
		b.str("json_set(COALESCE(")
		b.colRef(c.Name)
		b.str(", '{}')")
		for _, k := range keys {
			enc, err := encodeJSON(obj[k])
			if err != nil {
				return err
			}
			b.str(", ")
			b.keyParam(k)
			b.str(", json(")
			b.param(enc)
			b.str(")")
		}
		b.str(")")
	case JSONMySQL:
		return b.mysqlMerge(c, obj, keys)
	case JSONBOperators:
		enc, err := encodeJSON(obj)
		if err != nil {
			return err
		}
		b.str("COALESCE(")
		b.colRef(c.Name)
		b.str(", '{}'::jsonb) || ")
		b.param(enc)
		b.str("::jsonb")
	default:
		return errors.New("sqlgen: dialect " + b.d.Name + " cannot merge JSON columns")
	}
	return nil
}
