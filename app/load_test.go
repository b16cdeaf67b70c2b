package app_test

import (
	"strings"
	"testing"

	"github.com/skiffhq/skiff/app"
)

// TestLoadDatastoresConnectsNothing: a migration loads the datastores
// only, so a session store or bus that is down does not stop it, while
// Load, which serves, reports it and leaves nothing open.
func TestLoadDatastoresConnectsNothing(t *testing.T) {
	env := []string{
		"SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/db",
		"SKIFF_SESSION__ADAPTER=redis", "SKIFF_SESSION__URL=redis://127.0.0.1:1/0",
		"SKIFF_SOCKETS__ADAPTER=nats", "SKIFF_SOCKETS__URL=nats://127.0.0.1:1",
	}
	opts, err := app.LoadDatastores(t.Context(), "../testdata/apps/basic", "", env)
	if err != nil {
		t.Fatalf("LoadDatastores: %v", err)
	}
	if opts.Session.Store != nil || opts.Sockets.Bus != nil {
		t.Errorf("LoadDatastores opened a session store (%v) or a bus (%v)", opts.Session.Store, opts.Sockets.Bus)
	}
	if len(opts.Datastores) == 0 {
		t.Errorf("LoadDatastores opened no datastore")
	}
	if err := app.Close(opts); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := app.Load(t.Context(), "../testdata/apps/basic", "", env); err == nil || !strings.Contains(err.Error(), "session store") {
		t.Errorf("Load with an unreachable Redis session store: error %v, want one naming the session store", err)
	}
}
