package model

// ToFloat reads any Go number as float64; decoders (YAML, drivers) hand out
// int, int64 or uint64 for integers where Skiff holds float64.
func ToFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// normalizeNumbers returns v with every number, at any depth of lists and
// dictionaries, as float64. Lists and dictionaries are copied, so the result
// shares nothing mutable with v.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return v
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	}
	if f, ok := ToFloat(v); ok {
		return f
	}
	return v
}

// cloneValue deep-copies lists and dictionaries so a default value is never
// shared between records.
func cloneValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	}
	return v
}
