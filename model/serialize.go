package model

import "slices"

// Serialize returns what clients see of r, a record of m: the attributes in
// m.Omit removed, or m.ToJSON applied instead when set. Populated
// associations (Record, []Record or their map forms) are serialised by
// their own model, resolved through Attribute.Assoc. r is never mutated;
// lists and dictionaries are copied before ToJSON sees them.
func (m *Model) Serialize(r Record) Record {
	if r == nil {
		return nil
	}
	out := make(Record, len(r))
	for k, v := range r {
		a := m.Attributes[k]
		if a != nil && a.Assoc != nil && a.Assoc.Target != nil {
			v = serializeNested(a.Assoc.Target, v)
		} else if m.ToJSON != nil {
			v = cloneValue(v)
		}
		out[k] = v
	}
	if m.ToJSON != nil {
		return m.ToJSON(out)
	}
	for _, name := range m.Omit {
		delete(out, name)
	}
	return out
}

// SerializeOwned is Serialize for a record its caller owns and will not use
// again, such as the records a find just read: without ToJSON on the way it
// removes omitted attributes from r and its populated children in place
// instead of copying them, which is most of the cost of answering a long
// populated list. A child shared by several parents is fine: removing the
// same attributes twice changes nothing. Models with ToJSON get copies, as
// Serialize gives them, because ToJSON need not be repeatable.
func (m *Model) SerializeOwned(r Record) Record {
	if r == nil {
		return nil
	}
	if m.ToJSON != nil {
		return m.Serialize(r)
	}
	if m.assocs != nil {
		// A resolved model: only its associations can hold records.
		for _, k := range m.assocs {
			if v, ok := r[k]; ok && nested(v) {
				if a := m.Attributes[k]; a != nil && a.Assoc != nil && a.Assoc.Target != nil {
					setNestedOwned(r, k, a.Assoc.Target, v)
				}
			}
		}
	} else {
		for k, v := range r {
			if !nested(v) {
				continue
			}
			if a := m.Attributes[k]; a != nil && a.Assoc != nil && a.Assoc.Target != nil {
				setNestedOwned(r, k, a.Assoc.Target, v)
			}
		}
	}
	for _, name := range m.Omit {
		delete(r, name)
	}
	return r
}

// nested reports whether v can be a populated association's value.
func nested(v any) bool {
	switch v.(type) {
	case Record, []Record, map[string]any, []any:
		return true
	}
	return false
}

// setNestedOwned serialises r[k], the value v of an association to t, and
// stores the result in r only when it is a new value: a record or list
// serialised in place stays where it is. Writing a key of a map that holds
// eight keys (a small map, full) makes the runtime grow it into a table,
// three allocations, even when the key is there already; and a list put
// back into an any is boxed again.
func setNestedOwned(r Record, k string, t *Model, v any) {
	switch x := v.(type) {
	case Record:
		if out := t.SerializeOwned(x); t.ToJSON != nil {
			r[k] = out // a copy
		}
	case []Record, []any:
		serializeNestedOwned(t, x) // in place
	default:
		r[k] = serializeNestedOwned(t, v)
	}
}

// serializeNestedOwned is serializeNested reusing what it is given.
func serializeNestedOwned(t *Model, v any) any {
	switch x := v.(type) {
	case Record:
		return t.SerializeOwned(x)
	case map[string]any:
		return t.SerializeOwned(Record(x))
	case []Record:
		for i, e := range x {
			x[i] = t.SerializeOwned(e)
		}
		return v // x itself, without boxing it again
	case []any:
		for i, e := range x {
			if isRecordLike(e) {
				x[i] = serializeNestedOwned(t, e)
			}
		}
		return v
	}
	return v
}

// serializeNested serialises a populated association value; keys and other
// values pass through.
func serializeNested(t *Model, v any) any {
	switch x := v.(type) {
	case Record:
		return t.Serialize(x)
	case map[string]any:
		return t.Serialize(Record(x))
	case []Record:
		out := make([]Record, len(x))
		for i, e := range x {
			out[i] = t.Serialize(e)
		}
		return out
	case []any:
		if !slices.ContainsFunc(x, isRecordLike) {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = serializeNested(t, e)
		}
		return out
	}
	return v
}

func isRecordLike(v any) bool {
	switch v.(type) {
	case Record, map[string]any:
		return true
	}
	return false
}
