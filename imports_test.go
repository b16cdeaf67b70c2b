package skiff_test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	"datastore/sqlite":   {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan", "internal/sqliteconn"},
	"datastore/postgres": {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan"},
	"datastore/mysql":    {"model", "criteria", "datastore", "internal/sqlgen", "datastore/internal/schemaplan"},
	"internal/sqlgen":    {"model", "criteria", "datastore"},
	// How SQLite connections are opened, shared with bench/floor: the driver only.
	"internal/sqliteconn": {},
	// The plan the SQL adapters share knows their SQL, not the adapters.
	"datastore/internal/schemaplan": {"datastore", "internal/sqlgen"},
	"orm":                           {"model", "criteria", "datastore"},
	// blueprint declares its own notifier so that it never depends on realtime.
	"blueprint": {"model", "criteria", "orm", "internal/jsonenc"},
	// The wire protocol knows nothing of Sails.
	"internal/socketio":   {},
	"internal/socketctx":  {},
	"realtime":            {"model", "internal/socketio", "internal/socketctx"},
	"internal/virtualreq": {"realtime", "internal/socketio", "internal/socketctx"},
	// Request ids and logs know only whether a request came over a socket.
	"internal/reqlog": {"internal/socketctx"},
	// JSON as encoding/json writes it, for records.
	"internal/jsonenc": {"model"},
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

// TestServerKeepsMethodDeadCode checks that the skiff binary's linker still
// drops unused exported methods. One reachable call of reflect's Method or
// MethodByName with a name not known at compile time (so also
// reflect.Value.Methods, new in Go 1.26) makes the linker keep every
// exported method of every type that reaches an interface: protobuf before
// v1.36.12 did so, which made the binary 47.7 MB instead of 35.3 MB and
// spread the code a request runs over more pages (1.7 MiB more resident
// after the floor load, docs/memory.md).
func TestServerKeepsMethodDeadCode(t *testing.T) {
	if testing.Short() {
		t.Skip("links cmd/skiff")
	}
	deps := goBuild(t, nil, "-o", os.DevNull, "-ldflags=-dumpdep", "./cmd/skiff")
	// The linker's dependency dump names a function that makes methods
	// reachable by name with the mark <ReflectMethod>.
	var seen []string
	for line := range strings.Lines(string(deps)) {
		if strings.Contains(line, "<ReflectMethod>") {
			seen = append(seen, strings.TrimSpace(line))
			if len(seen) == 5 {
				break
			}
		}
	}
	if len(seen) > 0 {
		t.Errorf("cmd/skiff reaches a call that keeps every exported method linked (find its caller: "+
			"go build -o /dev/null -ldflags=-dumpdep ./cmd/skiff 2>&1 | grep -E -- '-> reflect\\.[^ ]*Method'); "+
			"first marked edges of the linker's dependency dump:\n%s", strings.Join(seen, "\n"))
	}
}

// TestReleaseBuildIsStatic builds cmd/skiff the way docs/operating.md says
// a release binary is built (CGO_ENABLED=0) and checks that the result is
// a static executable that runs: it asks for no dynamic loader or shared
// library, prints its version, and plans the example app's schema on
// SQLite. A dependency that needs cgo would fail the build, and one that
// drags in a shared library the ELF check.
func TestReleaseBuildIsStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("links cmd/skiff")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the ELF check is Linux's")
	}
	bin := filepath.Join(t.TempDir(), "skiff")
	goBuild(t, []string{"CGO_ENABLED=0"}, "-o", bin, "./cmd/skiff")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the release build asks for a dynamic loader (PT_INTERP)")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the release build needs shared libraries %v (err %v)", libs, err)
	}
	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "skiff ") {
		t.Errorf("skiff version: %v, printed %q", err, out)
	}
	app := filepath.Join(t.TempDir(), "app")
	if err := os.CopyFS(app, os.DirFS("examples/petshop")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(app, ".tmp"))
	out, err := exec.Command(bin, "migrate", "--app", app, "--dry-run").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pet") {
		t.Errorf("skiff migrate --dry-run on examples/petshop: %v, printed:\n%s", err, out)
	}
}

// goBuild runs go build with args, env added to the environment, and
// returns what it printed; a build that fails fails the test, and a go
// command that cannot run skips it.
func goBuild(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("%s go build %s: %v\n%.2000s", strings.Join(env, " "), strings.Join(args, " "), err, out)
		}
		t.Skipf("go build cannot run here: %v", err)
	}
	return out
}
