package skiff_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alexedwards/scs/v2/memstore"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
)

func newNoteApp(t testing.TB, opts skiff.Options) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	note, err := model.Parse("note", "note_test.go", map[string]any{"attributes": map[string]any{
		"id":   map[string]any{"type": "number", "autoIncrement": true},
		"text": map[string]any{"type": "string", "required": true},
		"rank": map[string]any{"type": "number"},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Production would default to migrate: safe; these tests start empty.
	note.Migrate = model.MigrateDrop
	db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	opts.Models = []*model.Model{note}
	opts.Datastores = map[string]datastore.Adapter{"default": db}
	if opts.Env == "production" {
		// Production only starts with migrate: safe, so a development app
		// creates the table first; it also wants a session secret and a
		// socket origin policy.
		if _, err := skiff.New(ctx, skiff.Options{Models: opts.Models, Datastores: opts.Datastores, Session: skiff.SessionSettings{Disabled: true}}); err != nil {
			t.Fatal(err)
		}
		note.Migrate = model.MigrateSafe
		if opts.Session.Secret == "" {
			opts.Session.Secret = "test secret"
		}
		if opts.Sockets.OnlyAllowOrigins == nil {
			opts.Sockets.OnlyAllowOrigins = []string{"https://example.com"}
		}
	}
	app, err := skiff.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(func() { srv.Close(); app.Close() })
	return srv
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestParseBlueprintOptionsHooks(t *testing.T) {
	global := func(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
		o, err := blueprint.DefaultParseOptions(ctx, r)
		if err != nil || r.Action != blueprint.Find {
			return o, err
		}
		if _, ok := r.Query["forbidden"]; ok {
			return nil, blueprint.UsageError("no forbidden parameter here")
		}
		delete(o.Criteria["where"].(map[string]any), "forbidden")
		o.Criteria["sort"] = "rank DESC"
		return o, nil
	}
	perRoute := func(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
		o, err := blueprint.DefaultParseOptions(ctx, r)
		if err != nil {
			return nil, err
		}
		o.Criteria["limit"] = 1.0
		o.Criteria["sort"] = "rank ASC"
		return o, nil
	}
	srv := newNoteApp(t, skiff.Options{
		ParseBlueprintOptions: global,
		Actions: map[string]http.Handler{"note/hello": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "hello")
		})},
		Routes: []skiff.Route{
			{Method: "GET", Path: "/lowest", Action: "note/find", ParseBlueprintOptions: perRoute},
			{Method: "GET", Path: "/hello", Action: "note/hello"},
		},
	})
	for i, text := range []string{"b", "c", "a"} {
		resp, err := http.Post(srv.URL+"/note", "application/json", strings.NewReader(fmt.Sprintf(`{"text":%q,"rank":%d}`, text, i)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/note", 200, `[{"id":3,"rank":2,"text":"a"},{"id":2,"rank":1,"text":"c"},{"id":1,"rank":0,"text":"b"}]`},
		{"/note?forbidden=1", 400, `"code":"E_USAGE"`},
		{"/lowest", 200, `[{"id":1,"rank":0,"text":"b"}]`},
		{"/hello", 200, "hello"},
	} {
		status, body := get(t, srv.URL+tc.path)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %s, want %d containing %s", tc.path, status, body, tc.status, tc.want)
		}
	}
}

func TestActionRoutes(t *testing.T) {
	bp := skiff.DefaultBlueprints("development")
	bp.Actions = true
	srv := newNoteApp(t, skiff.Options{
		Blueprints: &bp,
		Actions: map[string]http.Handler{"note/hello": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "hi "+r.Method)
		})},
	})
	if status, body := get(t, srv.URL+"/note/hello"); status != 200 || body != "hi GET" {
		t.Errorf("GET /note/hello = %d %q, want the action", status, body)
	}
	resp, err := http.Post(srv.URL+"/note/hello", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hi POST" {
		t.Errorf("POST /note/hello = %q, want the all-verb action route", b)
	}
	// POST /:model/:id is not generated in Sails 1.x.
	resp, err = http.Post(srv.URL+"/note/1", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("POST /note/1 = %d, want 404", resp.StatusCode)
	}
}

func TestProductionTurnsShortcutsOff(t *testing.T) {
	srv := newNoteApp(t, skiff.Options{Env: "production"})
	// Without shortcuts, /note/create reaches findOne with id "create" (400), as in Sails.
	if status, _ := get(t, srv.URL+"/note/create?text=x"); status == 200 {
		t.Errorf("GET /note/create in production = %d, want a refusal (shortcuts off)", status)
	}
	if _, body := get(t, srv.URL+"/note"); body != "[]\n" {
		t.Errorf("GET /note after the refused shortcut = %q, want no record", body)
	}
}

func TestUnknownRouteTargetStopsStart(t *testing.T) {
	note, err := model.Parse("note", "x", map[string]any{"attributes": map[string]any{
		"id": map[string]any{"type": "number", "autoIncrement": true},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = skiff.New(context.Background(), skiff.Options{
		Models:     []*model.Model{note},
		Datastores: map[string]datastore.Adapter{"default": db},
		Routes:     []skiff.Route{{Method: "GET", Path: "/x", Action: "note/nope"}},
	})
	if err == nil || !strings.Contains(err.Error(), "note/nope") {
		t.Errorf("New with a route to an unknown action = %v, want an error naming it", err)
	}
}

// TestNewNamesWhatIsNotLinked: a bus or session adapter that needs a client
// the embedding API does not link is refused with where to get it, not
// ignored.
func TestNewNamesWhatIsNotLinked(t *testing.T) {
	for _, opts := range []skiff.Options{
		{Sockets: skiff.Sockets{Adapter: "redis"}},
		{Sockets: skiff.Sockets{Adapter: "nats"}},
		{Session: skiff.SessionSettings{Adapter: "redis", URL: "redis://127.0.0.1:6379"}},
	} {
		a, err := skiff.New(t.Context(), opts)
		if err == nil {
			a.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "app.Connect") {
			t.Errorf("New(sockets %q, session %q): error %v, want one saying app.Connect opens it", opts.Sockets.Adapter, opts.Session.Adapter, err)
		}
	}
}

// TestNewLeavesModelsAsWritten: New resolves copies of the caller's
// models, so the same definitions can build a second app (another
// environment, another datastore) unchanged.
func TestNewLeavesModelsAsWritten(t *testing.T) {
	ctx := t.Context()
	parse := func(id string, attrs map[string]any) *model.Model {
		m, err := model.Parse(id, "embed_test.go", map[string]any{"attributes": attrs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	id := map[string]any{"type": "number", "autoIncrement": true}
	owner := parse("owner", map[string]any{"id": id, "pets": map[string]any{"collection": "pet", "via": "owner"}})
	pet := parse("pet", map[string]any{"id": id, "owner": map[string]any{"model": "owner"}})
	db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := skiff.New(ctx, skiff.Options{Models: []*model.Model{owner, pet}, Datastores: map[string]datastore.Adapter{"default": db}})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	defer app.Close()
	for _, m := range []*model.Model{owner, pet} {
		if m.Migrate != "" {
			t.Errorf("%s: migrate %q after New, want it unset as written", m.Identity, m.Migrate)
		}
		for name, a := range m.Attributes {
			if a.Assoc != nil {
				t.Errorf("%s.%s: resolved after New (Assoc set), want it as written", m.Identity, name)
			}
		}
	}
	if got := app.Models()[1].Attributes["owner"].Assoc; got == nil {
		t.Errorf("the app's own pet.owner is unresolved")
	}
}

// closeCounter is a bus and a session store that count their Close calls.
type closeCounter struct {
	*memstore.MemStore
	closed int
}

func (c *closeCounter) Publish(context.Context, []byte) error { return nil }
func (c *closeCounter) Receive(ctx context.Context, ready func(), _ func([]byte)) error {
	ready()
	<-ctx.Done()
	return nil
}
func (c *closeCounter) Close() error { c.closed++; return nil }

// TestNewTakesOverBusAndStore: New closes the bus and a closable session
// store it was given when it fails, and App.Close closes them otherwise.
func TestNewTakesOverBusAndStore(t *testing.T) {
	bus, store := &closeCounter{}, &closeCounter{MemStore: memstore.NewWithCleanupInterval(0)}
	// A model without its datastore: New fails after taking both over.
	failing := skiff.Options{Models: []*model.Model{{Identity: "x"}}, Sockets: skiff.Sockets{Bus: bus}, Session: skiff.SessionSettings{Store: store}}
	if a, err := skiff.New(t.Context(), failing); err == nil {
		a.Close()
		t.Fatal("New without the model's datastore succeeded")
	}
	if bus.closed != 1 || store.closed != 1 {
		t.Errorf("after a failed New: bus closed %d times, store %d; want 1 and 1", bus.closed, store.closed)
	}
	bus, store = &closeCounter{}, &closeCounter{MemStore: memstore.NewWithCleanupInterval(0)}
	a, err := skiff.New(t.Context(), skiff.Options{Sockets: skiff.Sockets{Bus: bus}, Session: skiff.SessionSettings{Store: store}})
	if err != nil {
		t.Fatal(err)
	}
	if bus.closed != 0 || store.closed != 0 {
		t.Errorf("after New: bus closed %d times, store %d; want 0 and 0", bus.closed, store.closed)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if bus.closed != 1 || store.closed != 1 {
		t.Errorf("after App.Close: bus closed %d times, store %d; want 1 and 1", bus.closed, store.closed)
	}
}
