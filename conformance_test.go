package skiff_test

import (
	"path/filepath"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// backend opens the test apps on one datastore engine.
type backend struct {
	name string
	env  func(t *testing.T) map[string]string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) map[string]string {
		return map[string]string{"SKIFF_DATASTORES__DEFAULT__URL": filepath.Join(t.TempDir(), "test.db")}
	}},
	{"postgres", func(t *testing.T) map[string]string {
		return map[string]string{
			"SKIFF_DATASTORES__DEFAULT__ADAPTER": "postgres",
			"SKIFF_DATASTORES__DEFAULT__URL":     testenv.Postgres(t),
		}
	}},
	{"mysql", func(t *testing.T) map[string]string {
		return map[string]string{
			"SKIFF_DATASTORES__DEFAULT__ADAPTER": "mysql",
			"SKIFF_DATASTORES__DEFAULT__URL":     testenv.MySQLDatabase(t),
		}
	}},
}

// environ returns env as "KEY=value" entries.
func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// TestConformance runs the corpus of testdata/conformance over HTTP and
// over sockets, on every engine.
func TestConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			skifftest.RunCorpus(t, "testdata/conformance/*.txtar", func(t *testing.T, dir string) skiff.Options {
				return *skifftest.Load(t, dir, "development", environ(b.env(t))...)
			})
		})
	}
}
