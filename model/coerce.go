package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrType reports a value that cannot be taken as the expected type.
var ErrType = errors.New("wrong type")

// isNumericString reports whether s is a number as rttc accepts one: no
// whitespace, no "Infinity", no hex; what the regular expression
// ^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$ matches. Written out because a
// by-key read coerces its key from the URL with it, on every request.
func isNumericString(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := digits(s, i)
	i += intDigits
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = digits(s, i)
		i += fracDigits
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := digits(s, i)
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(s)
}

// digits counts the ASCII digits of s from i.
func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}

// CoerceLoose converts v to type t with Waterline's loose rules (rttc), the
// ones used for criteria values and for writes: "12" → 12 for numbers,
// 12 → "12" for strings, "true"/"1" → true for booleans. It returns an error
// wrapping ErrType when v cannot be taken as t. nil is returned unchanged;
// callers decide whether nil is allowed.
func CoerceLoose(t Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t {
	case String:
		switch x := v.(type) {
		case string:
			return x, nil
		case float64:
			return FormatNumber(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case int:
			return strconv.Itoa(x), nil
		case bool:
			return strconv.FormatBool(x), nil
		}
	case Number:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				break
			}
			return x, nil
		case int64:
			return float64(x), nil
		case int:
			return float64(x), nil
		case string:
			if isNumericString(x) {
				if f, err := strconv.ParseFloat(x, 64); err == nil && !math.IsInf(f, 0) {
					return f, nil
				}
			}
		case bool:
			if x {
				return 1.0, nil
			}
			return 0.0, nil
		}
	case Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch x {
			case "true", "1":
				return true, nil
			case "false", "0":
				return false, nil
			}
		case float64:
			if x == 1 {
				return true, nil
			}
			if x == 0 {
				return false, nil
			}
		case int64:
			if x == 1 || x == 0 {
				return x == 1, nil
			}
		case int:
			if x == 1 || x == 0 {
				return x == 1, nil
			}
		}
	case JSON, Ref, "":
		if t == JSON && !jsonCompatible(v, 0) {
			break
		}
		return v, nil
	}
	return nil, fmt.Errorf("%w: expected %s, got %s", ErrType, describeType(t), Describe(v))
}

// FormatNumber formats a number as JavaScript's String(n) does for the
// values JSON can carry: integers without a fraction, others in the shortest
// form.
func FormatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Describe renders v briefly for error messages.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return strconv.Quote(x)
	case float64:
		return FormatNumber(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	case map[string]any:
		return "a dictionary"
	}
	return fmt.Sprintf("%v", v)
}

func describeType(t Type) string {
	switch t {
	case String:
		return "a string"
	case Number:
		return "a number"
	case Boolean:
		return "a boolean"
	case JSON:
		return "JSON-compatible data"
	}
	return "any value"
}

func jsonCompatible(v any, depth int) bool {
	if depth > 100 {
		return false
	}
	switch x := v.(type) {
	case nil, bool, string, int, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !jsonCompatible(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !jsonCompatible(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
