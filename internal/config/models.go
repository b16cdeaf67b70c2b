package config

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// readModels reads models/: one model per YAML or JSON file, its identity
// the lower-cased base name.
func readModels(fsys fs.FS) ([]ModelFile, error) {
	names, err := listFiles(fsys, "models")
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	var out []ModelFile
	for _, n := range names {
		src := "models/" + n
		identity := strings.ToLower(base(n))
		if prev, dup := seen[identity]; dup {
			return nil, fmt.Errorf("%s and %s both define the model %q: %w", prev, src, identity, ErrDuplicateModel)
		}
		seen[identity] = src
		tree, err := readMapping(fsys, src)
		if err != nil {
			return nil, err
		}
		def, _ := plain(tree, false).(map[string]any)
		out = append(out, ModelFile{Identity: identity, Source: src, Def: def})
	}
	slices.SortFunc(out, func(a, b ModelFile) int { return strings.Compare(a.Identity, b.Identity) })
	return out, nil
}
