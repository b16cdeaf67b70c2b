package config

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/skiffhq/skiff/model"
)

// omap is a decoded YAML/JSON mapping that remembers the order of its keys;
// route order is meaningful, so the whole configuration is kept ordered
// until it is handed out.
type omap struct {
	keys []string
	vals map[string]any
}

func newOmap() *omap { return &omap{vals: map[string]any{}} }

func (m *omap) get(k string) (any, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.vals[k]
	return v, ok
}

// set replaces the value of an existing key in place or appends a new key.
func (m *omap) set(k string, v any) {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

func (m *omap) del(k string) {
	if _, ok := m.vals[k]; !ok {
		return
	}
	delete(m.vals, k)
	for i, key := range m.keys {
		if key == k {
			m.keys = append(m.keys[:i:i], m.keys[i+1:]...)
			break
		}
	}
}

// fold returns the existing key that equals k ignoring case, or "".
func (m *omap) fold(k string) string {
	if m == nil {
		return ""
	}
	for _, key := range m.keys {
		if strings.EqualFold(key, k) {
			return key
		}
	}
	return ""
}

// fromYAML converts what goccy/go-yaml decodes with UseOrderedMap into the
// tree used here: *omap for mappings, []any for sequences, float64 for every
// number, and strings, booleans and nil as they are.
func fromYAML(v any) any {
	switch x := v.(type) {
	case yaml.MapSlice:
		m := newOmap()
		for _, it := range x {
			m.set(keyString(it.Key), fromYAML(it.Value))
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromYAML(e)
		}
		return out
	}
	if f, ok := model.ToFloat(v); ok {
		return f
	}
	return v
}

func keyString(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	if f, ok := model.ToFloat(k); ok {
		return fmt.Sprint(f)
	}
	return fmt.Sprint(k)
}

// merge deep-merges src over dst and returns the result: mappings merge key
// by key (later wins, new keys are appended), a null removes the key, and
// everything else, lists included, replaces. dst may be modified.
func merge(dst, src any) any {
	d, dok := dst.(*omap)
	s, sok := src.(*omap)
	if !dok || !sok {
		return clone(src)
	}
	for _, k := range s.keys {
		v := s.vals[k]
		if v == nil {
			d.del(k)
			continue
		}
		old, _ := d.get(k)
		d.set(k, merge(old, v))
	}
	return d
}

func clone(v any) any {
	switch x := v.(type) {
	case *omap:
		m := newOmap()
		for _, k := range x.keys {
			m.set(k, clone(x.vals[k]))
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// plain converts a tree into map[string]any and []any values. With dropNil,
// keys whose value is null are left out (config sections, where null means
// "unset"); model definitions keep them for the model parser to judge.
func plain(v any, dropNil bool) any {
	switch x := v.(type) {
	case *omap:
		out := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			e := x.vals[k]
			if e == nil && dropNil {
				continue
			}
			out[k] = plain(e, dropNil)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e, dropNil)
		}
		return out
	}
	return v
}

// section returns the plain map of a config section, never nil.
func section(tree *omap, name string) map[string]any {
	v, _ := tree.get(name)
	if m, ok := plain(v, true).(map[string]any); ok {
		return m
	}
	return map[string]any{}
}
