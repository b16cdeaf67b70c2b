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
