package sqlgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/skiffhq/skiff/datastore"
)

// Encode converts v, a value of the contract's Go types for kind k, into
// the value bound as a parameter: JSON is marshalled to text, integral
// float64 values of Integer columns become int64, and numbers or booleans
// given for String columns become their text. nil stays nil.
func Encode(k datastore.Kind, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch k {
	case datastore.JSON:
		return encodeJSON(v)
	case datastore.Integer:
		switch n := v.(type) {
		case float64:
			if n == math.Trunc(n) && n >= -(1<<63) && n < 1<<63 {
				return int64(n), nil
			}
		case int:
			return int64(n), nil
		case int32:
			return int64(n), nil
		}
	case datastore.Number:
		switch n := v.(type) {
		case int64:
			return float64(n), nil
		case int:
			return float64(n), nil
		}
	case datastore.String:
		switch s := v.(type) {
		case float64:
			return strconv.FormatFloat(s, 'f', -1, 64), nil
		case int64:
			return strconv.FormatInt(s, 10), nil
		case bool:
			return strconv.FormatBool(s), nil
		}
	}
	return v, nil
}

func encodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode json value: %w", err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})), nil
}

// Decode converts a value read from a driver into the contract's Go type
// for kind k: Number and Integer become float64, Boolean bool, String
// string, and JSON text (string or []byte) is unmarshalled. Values the
// driver already decoded (a map for JSON, say) pass through.
func Decode(k datastore.Kind, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch k {
	case datastore.Number, datastore.Integer:
		switch n := v.(type) {
		case int64:
			return float64(n), nil
		case int32:
			return float64(n), nil
		case float32:
			return float64(n), nil
		case bool:
			if n {
				return 1.0, nil
			}
			return 0.0, nil
		case string:
			if f, err := strconv.ParseFloat(n, 64); err == nil {
				return f, nil
			}
		case []byte:
			if f, err := strconv.ParseFloat(string(n), 64); err == nil {
				return f, nil
			}
		case time.Time:
			return float64(n.UnixMilli()), nil
		}
	case datastore.Boolean:
		switch b := v.(type) {
		case int64:
			return b != 0, nil
		case float64:
			return b != 0, nil
		case string:
			if p, err := strconv.ParseBool(b); err == nil {
				return p, nil
			}
		}
	case datastore.String:
		switch s := v.(type) {
		case []byte:
			return string(s), nil
		case int64:
			return strconv.FormatInt(s, 10), nil
		case float64:
			return strconv.FormatFloat(s, 'f', -1, 64), nil
		case time.Time:
			return s.Format(time.RFC3339Nano), nil
		}
	case datastore.JSON:
		var text []byte
		switch s := v.(type) {
		case string:
			text = []byte(s)
		case []byte:
			text = s
		default:
			return v, nil
		}
		var out any
		if err := json.Unmarshal(text, &out); err != nil {
			return nil, fmt.Errorf("decode json column: %w", err)
		}
		return out, nil
	}
	return v, nil
}
