package sqlgen

import (
	"fmt"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// This file compiles comparisons, sorts and merges on keys of JSON columns
// for MySQL and MariaDB (JSONMySQL). The two engines store JSON
// differently (MySQL in a binary JSON type, MariaDB as text), so only
// functions that answer alike on both are used: JSON_TYPE tells the type
// (MariaDB answers NULL for a JSON null, MySQL 'NULL'; both count as null
// here), JSON_UNQUOTE(JSON_EXTRACT()) gives a string's text, and a number
// is CAST to DOUBLE only under a CASE that checked its type first, since a
// failed conversion is an error, not a warning, in a strict-mode UPDATE.
// Strings compare as bytes (CAST ... AS BINARY), as on SQLite and
// PostgreSQL's C collation: case-sensitive, code point order.

// mysqlNumberTypes are the JSON_TYPE answers of numbers.
const mysqlNumberTypes = "('INTEGER', 'DOUBLE', 'UNSIGNED INTEGER', 'DECIMAL')"

// mysqlExtract writes JSON_EXTRACT(col, path).
func (b *builder) mysqlExtract(c *datastore.Column, key string) {
	b.str("JSON_EXTRACT(")
	b.colRef(c.Name)
	b.str(", ")
	b.keyParam(key)
	b.str(")")
}

// mysqlType writes JSON_TYPE of the key's value (NULL when absent).
func (b *builder) mysqlType(c *datastore.Column, key string) {
	b.str("JSON_TYPE(")
	b.mysqlExtract(c, key)
	b.str(")")
}

// mysqlTypeIs writes a test that the key holds a value of class k.
func (b *builder) mysqlTypeIs(c *datastore.Column, key string, k jsonClass) {
	b.mysqlType(c, key)
	switch k {
	case jsonString:
		b.str(" = 'STRING'")
	case jsonBool:
		b.str(" = 'BOOLEAN'")
	default:
		b.str(" IN " + mysqlNumberTypes)
	}
}

// mysqlText writes the key's string value as bytes, NULL unless it is a
// string.
func (b *builder) mysqlText(c *datastore.Column, key string) {
	b.str("CASE WHEN ")
	b.mysqlTypeIs(c, key, jsonString)
	b.str(" THEN CAST(JSON_UNQUOTE(")
	b.mysqlExtract(c, key)
	b.str(") AS BINARY) END")
}

// mysqlNumber writes the key's number as a DOUBLE, NULL unless it is a
// number.
func (b *builder) mysqlNumber(c *datastore.Column, key string) {
	b.str("CASE WHEN ")
	b.mysqlTypeIs(c, key, jsonNumber)
	b.str(" THEN CAST(")
	b.mysqlExtract(c, key)
	b.str(" AS DOUBLE) END")
}

// mysqlBool writes the key's boolean as 'true' or 'false', NULL unless it
// is a boolean.
func (b *builder) mysqlBool(c *datastore.Column, key string) {
	b.str("CASE WHEN ")
	b.mysqlTypeIs(c, key, jsonBool)
	b.str(" THEN JSON_UNQUOTE(")
	b.mysqlExtract(c, key)
	b.str(") END")
}

// mysqlKeyCmp compiles a comparison on one key of a JSON column.
func (b *builder) mysqlKeyCmp(c *datastore.Column, e *criteria.Cmp) error {
	switch e.Op {
	case criteria.Eq:
		return b.mysqlKeyEq(c, e.Key, e.Value)
	case criteria.Ne:
		if e.Value == nil {
			b.mysqlType(c, e.Key)
			b.str(" <> 'NULL'")
			return nil
		}
		b.str("(")
		if err := b.mysqlKeyEq(c, e.Key, e.Value); err != nil {
			return err
		}
		b.str(") IS NOT TRUE")
		return nil
	case criteria.In, criteria.Nin:
		list, ok := e.Value.([]any)
		if !ok {
			return fmt.Errorf("%s on %s.%s wants a list, got %T", e.Op, c.Name, e.Key, e.Value)
		}
		if len(list) == 0 {
			if e.Op == criteria.Nin {
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
			if err := b.mysqlKeyEq(c, e.Key, v); err != nil {
				return err
			}
		}
		b.str(")")
		if e.Op == criteria.Nin {
			b.str(" IS NOT TRUE")
		}
		return nil
	case criteria.Lt, criteria.Lte, criteria.Gt, criteria.Gte:
		k, v, err := classify(e.Value)
		if err != nil {
			return err
		}
		switch k {
		case jsonNull:
			return fmt.Errorf("%s on %s.%s with null", e.Op, c.Name, e.Key)
		case jsonBool:
			b.str("FALSE")
			return nil
		case jsonString:
			b.str("(")
			b.mysqlText(c, e.Key)
			b.str(" " + e.Op.String() + " CAST(")
			b.param(v)
			b.str(" AS BINARY))")
		default:
			b.str("(")
			b.mysqlNumber(c, e.Key)
			b.str(" " + e.Op.String() + " ")
			b.param(v)
			b.str(")")
		}
		return nil
	case criteria.Like:
		p, ok := e.Value.(string)
		if !ok {
			return fmt.Errorf("like on %s.%s wants a string pattern, got %T", c.Name, e.Key, e.Value)
		}
		b.str("(")
		b.mysqlText(c, e.Key)
		b.str(" LIKE CAST(")
		b.param(likePattern(parseLike(p)))
		b.str(" AS BINARY) ESCAPE " + b.d.LikeEscape + ")")
		return nil
	}
	return fmt.Errorf("unknown operator %v on %s.%s", e.Op, c.Name, e.Key)
}

// mysqlKeyEq writes a type-strict equality; it is NULL, not false, when
// the key holds another type, unless v is nil.
func (b *builder) mysqlKeyEq(c *datastore.Column, key string, v any) error {
	k, v, err := classify(v)
	if err != nil {
		return err
	}
	switch k {
	case jsonNull:
		b.str("COALESCE(")
		b.mysqlType(c, key)
		b.str(", 'NULL') = 'NULL'")
	case jsonString:
		b.str("(")
		b.mysqlText(c, key)
		b.str(" = CAST(")
		b.param(v)
		b.str(" AS BINARY))")
	case jsonBool:
		b.str("(")
		b.mysqlBool(c, key)
		if v == true {
			b.str(" = 'true')")
		} else {
			b.str(" = 'false')")
		}
	default:
		b.str("(")
		b.mysqlNumber(c, key)
		b.str(" = ")
		b.param(v)
		b.str(")")
	}
	return nil
}

// mysqlKeySort writes the terms that sort by a key: numbers by value, then
// strings as bytes, then booleans, each term NULL for the other types (so
// that, ascending, absent keys and other types come first), separated by
// the direction the caller writes once more after the last.
func (b *builder) mysqlKeySort(c *datastore.Column, key string, desc bool) {
	dir := " ASC, "
	if desc {
		dir = " DESC, "
	}
	b.mysqlNumber(c, key)
	b.str(dir)
	b.mysqlText(c, key)
	b.str(dir)
	b.mysqlBool(c, key)
}

// mysqlMerge writes the new value of a Merge column: the stored object
// (an empty one when NULL) with each key of obj set with JSON_SET, its
// value parsed from JSON text by JSON_EXTRACT(?, '$'), which both engines
// then store as JSON, not as a string; a null value is stored too.
func (b *builder) mysqlMerge(c *datastore.Column, obj map[string]any, keys []string) error {
	if len(keys) == 0 {
		b.str("COALESCE(")
		b.colRef(c.Name)
		b.str(", '{}')")
		return nil
	}
	b.str("JSON_SET(COALESCE(")
	b.colRef(c.Name)
	b.str(", '{}')")
	for _, k := range keys {
		enc, err := encodeJSON(obj[k])
		if err != nil {
			return err
		}
		b.str(", ")
		b.keyParam(k)
		b.str(", JSON_EXTRACT(")
		b.param(enc)
		b.str(", '$')")
	}
	b.str(")")
	return nil
}
