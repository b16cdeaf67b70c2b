package config

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// envPrefix starts every variable that overrides the configuration.
const envPrefix = "SKIFF_"

// envVar is one SKIFF_<SECTION>[__<KEY>...] variable.
type envVar struct {
	name  string
	segs  []string // SECTION, KEY, ... as written
	value string
}

// envVars picks the override variables out of environ ("NAME=value"
// pairs): prefix SKIFF_ (any case), a first segment naming a section, a
// non-empty value. Parents come before their children.
func envVars(environ []string, s *schema) []envVar {
	var vars []envVar
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" || len(name) <= len(envPrefix) || !strings.EqualFold(name[:len(envPrefix)], envPrefix) {
			continue
		}
		segs := strings.Split(name[len(envPrefix):], "__")
		if foldKey(s.keys, segs[0]) == "" {
			continue // SKIFF_ENV, SKIFF_TEST_POSTGRES_URL, ...: not configuration
		}
		vars = append(vars, envVar{name: name, segs: segs, value: value})
	}
	slices.SortFunc(vars, func(a, b envVar) int {
		return cmp.Or(cmp.Compare(len(a.segs), len(b.segs)), strings.Compare(a.name, b.name))
	})
	return vars
}

// foldKey returns the key of m equal to k ignoring case, or "".
func foldKey[V any](m map[string]V, k string) string {
	for _, key := range slices.Sorted(maps.Keys(m)) {
		if strings.EqualFold(key, k) {
			return key
		}
	}
	return ""
}

// applyEnv applies the SKIFF_* variables of environ to tree. check
// validates each variable's contribution, as a tree of its own, before it
// is applied.
func applyEnv(tree *omap, s *schema, environ []string, check func(src string, overlay *omap) error) error {
	for _, v := range envVars(environ, s) {
		src := "environment variable " + v.name
		keyPath, err := resolve(tree, s, v.segs)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		val, err := envValue(v.value)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		overlay := newOmap()
		setPath(overlay, keyPath, clone(val))
		if err := check(src, overlay); err != nil {
			return err
		}
		setPath(tree, keyPath, val)
	}
	return nil
}

// resolve turns a variable's segments into a key path: each segment is the
// key already in the tree that matches it ignoring case, else the known key
// that does, else, where the mapping is free-form, the segment lower-cased.
func resolve(tree *omap, s *schema, segs []string) ([]string, error) {
	var keyPath []string
	var node any = tree
	for _, seg := range segs {
		if seg == "" {
			return nil, fmt.Errorf("empty key in the name: %w", ErrInvalid)
		}
		if s != nil && s.kind != mapKind {
			return nil, fmt.Errorf("%s is not a mapping: %w", dotted(keyPath), ErrInvalid)
		}
		m, _ := node.(*omap)
		k := m.fold(seg)
		if k == "" && s != nil {
			k = cmp.Or(foldKey(s.keys, seg), foldKey(s.refused, seg))
		}
		if k == "" {
			if s != nil && !s.open {
				return nil, fmt.Errorf("%w %s%s", ErrUnknownKey, dotted(append(keyPath, strings.ToLower(seg))), s.hint(seg, len(keyPath) == 0))
			}
			k = strings.ToLower(seg)
		}
		if why, ok := s.refusedKey(k); ok {
			return nil, fmt.Errorf("%s: %s: %w", dotted(append(keyPath, k)), why, ErrUnsupported)
		}
		keyPath = append(keyPath, k)
		s, _ = s.child(k)
		node, _ = m.get(k)
	}
	return keyPath, nil
}

// setPath merges v into root at keyPath, creating mappings on the way (and
// replacing non-mappings in the way); a null v removes the key.
func setPath(root *omap, keyPath []string, v any) {
	m := root
	for _, k := range keyPath[:len(keyPath)-1] {
		next, ok := m.vals[k].(*omap)
		if !ok {
			next = newOmap()
			m.set(k, next)
		}
		m = next
	}
	last := keyPath[len(keyPath)-1]
	if v == nil {
		m.del(last)
		return
	}
	old, _ := m.get(last)
	m.set(last, merge(old, v))
}

// envValue parses a variable's value: a flow list or mapping ("[a, b]",
// "{a: 1}"), a YAML scalar (true, false, null, numbers, a quoted string),
// or else the raw string, unchanged.
func envValue(raw string) (any, error) {
	t := strings.TrimSpace(raw)
	var v any
	err := yaml.UnmarshalWithOptions([]byte(t), &v, yaml.UseOrderedMap())
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		if err != nil {
			return nil, fmt.Errorf("malformed flow value %q: %w", raw, ErrInvalid)
		}
		return fromYAML(v), nil
	}
	if err != nil {
		return raw, nil
	}
	switch x := fromYAML(v).(type) {
	case string:
		if strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "'") {
			return x, nil
		}
		return raw, nil
	case bool, float64, nil:
		return x, nil
	}
	return raw, nil
}
