package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/goccy/go-yaml"
)

// hasExt reports whether name is a file Load reads: a YAML or JSON file whose
// name does not start with a dot.
func hasExt(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// base returns name without its extension.
func base(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }

// listFiles returns the readable files of dir in name order; a missing
// directory has none.
func listFiles(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && hasExt(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// readMapping parses the YAML or JSON file name and returns its top-level
// mapping; an empty file (or one holding only comments) is an empty mapping.
func readMapping(fsys fs.FS, name string) (*omap, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var v any
	if err := yaml.UnmarshalWithOptions(data, &v, yaml.UseOrderedMap()); err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			p := ye.GetToken().Position
			return nil, fmt.Errorf("%s:%d:%d: %s: %w", name, p.Line, p.Column, ye.GetMessage(), ErrSyntax)
		}
		return nil, fmt.Errorf("%s: %w: %w", name, ErrSyntax, err)
	}
	switch t := fromYAML(v).(type) {
	case nil:
		return newOmap(), nil
	case *omap:
		return t, nil
	default:
		return nil, fmt.Errorf("%s:%d: top level is %s, want a mapping of keys to values: %w",
			name, firstContentLine(data), describe(t), ErrSyntax)
	}
}

// firstContentLine returns the 1-based line of the first line that is not
// blank, a comment or a document marker: where a non-mapping top level starts.
func firstContentLine(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		l := bytes.TrimSpace(line)
		if len(l) == 0 || l[0] == '#' || l[0] == '%' || bytes.HasPrefix(l, []byte("---")) {
			continue
		}
		return i + 1
	}
	return 1
}

// describe names the type of a decoded value for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *omap, map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	}
	return fmt.Sprintf("%T", v)
}
