package skiff_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedImports is the project's import graph (STYLE.md §3.1): for each
// package, the packages of this module it may import directly. Keeping the
// lower layers free of the upper ones is what lets adapters, the ORM and the
// socket transport be reused and tested alone; a package not listed here may
// import anything of ours.
var allowedImports = map[string][]string{
	"model":              {},
	"criteria":           {"model"},
	"datastore":          {"model", "criteria"},
	"datastore/sqlite":   {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan"},
	"datastore/postgres": {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan"},
	"datastore/mysql":    {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan"},
	"internal/sqlgen":    {"model", "criteria", "datastore"},
	// The plan the SQL adapters share knows their SQL, not the adapters.
	"datastore/internal/schemaplan": {"datastore", "internal/sqlgen"},
	"orm":                           {"model", "criteria", "datastore"},
	// blueprint declares its own notifier so that it never depends on realtime.
	"blueprint": {"model", "criteria", "orm"},
	// The wire protocol knows nothing of Sails.
	"internal/socketio":   {},
	"internal/socketctx":  {},
	"realtime":            {"model", "internal/socketio", "internal/socketctx"},
	"internal/virtualreq": {"realtime", "internal/socketio", "internal/socketctx"},
	// Request ids and logs know only whether a request came over a socket.
	"internal/reqlog": {"internal/socketctx"},
	// Static files know nothing of routes, sessions or sockets.
	"internal/assets": {},
	// The settings' declarations are a leaf: config loading, the root and
	// the internal layers all import them.
	"settings": {"blueprint", "realtime"},
}

// TestImportGraph fails when a package imports a package of this module that
// its layer must not depend on.
func TestImportGraph(t *testing.T) {
	const module = "github.com/skiffhq/skiff"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Skipf("go list cannot run here: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := map[string]bool{}
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(pkg.ImportPath, module), "/")
		allowed, ruled := allowedImports[name]
		if !ruled {
			continue
		}
		seen[name] = true
		for _, imp := range pkg.Imports {
			dep, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s; it may import only %v of this module", name, dep, allowed)
			}
		}
	}
	for name := range allowedImports {
		if !seen[name] {
			t.Errorf("package %s has an import rule but does not exist; update allowedImports", name)
		}
	}
}

// TestRootLinksNoDriver checks that the embedding API links no storage
// driver, no bus or session client and no app folder reader: a program
// that embeds Skiff links only the adapters it passes in Options (package
// app links them all).
func TestRootLinksNoDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Skipf("go list cannot run here: %v", err)
	}
	forbidden := []string{
		"github.com/jackc/pgx", "modernc.org/sqlite", "github.com/go-sql-driver/mysql",
		"github.com/redis/go-redis", "github.com/nats-io/nats.go",
		"github.com/skiffhq/skiff/datastore/", "github.com/skiffhq/skiff/realtime/redisbus",
		"github.com/skiffhq/skiff/realtime/natsbus", "github.com/skiffhq/skiff/app",
		// Nor does it read app folders: that is package app's job.
		"github.com/skiffhq/skiff/internal/config",
	}
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") {
				t.Errorf("package skiff depends on %s; it must leave drivers, clients and app folders to package app and the embedder", dep)
			}
		}
	}
}
