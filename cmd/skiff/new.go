package main

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// template is the app folder `skiff new` writes. Files named _gitignore
// become .gitignore (go:embed skips dot files, and a real .gitignore would
// apply to this repository); "{{name}}" in text files becomes the folder's
// name. assets/dependencies/sails.io.js is examples/petshop's bundle (a
// test keeps the two equal).
//
//go:embed all:template
var template embed.FS

// newApp writes a new app folder at the only argument, which must be
// missing or empty, and prints the command that serves it.
func newApp(args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return errors.New("new: give the folder to create: skiff new DIR")
	}
	dir := args[0]
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("new: %s is not empty: choose a new folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("new: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	name := filepath.Base(abs)
	root, err := fs.Sub(template, "template")
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if path.Base(p) == "_gitignore" {
			target = filepath.Join(filepath.Dir(target), ".gitignore")
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		if ext := path.Ext(p); ext == ".md" || ext == ".html" {
			b = []byte(strings.ReplaceAll(string(b), "{{name}}", name))
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	fmt.Fprintf(stdout, "created %s: models project and task, config/, assets/index.html\n", dir)
	fmt.Fprintf(stdout, "next:\n  cd %s && skiff serve\n", dir)
	return nil
}
