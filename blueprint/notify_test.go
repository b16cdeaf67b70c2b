package blueprint_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// notifier records what the actions ask of the realtime layer. Its
// Subscribed answers subscribed.
type notifier struct {
	mu         sync.Mutex
	log        []string
	subscribed bool
}

func (n *notifier) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.log = append(n.log, s)
}

func (n *notifier) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.log
	n.log = nil
	return out
}

func (n *notifier) Watch(socket, identity string) error {
	n.add("watch " + identity)
	return nil
}
func (n *notifier) Subscribe(socket, identity string, ids ...any) error {
	n.add("subscribe " + identity)
	return nil
}
func (n *notifier) Introduce(identity string, id any) error { return nil }
func (n *notifier) Retire(identity string, id any) error    { return nil }
func (n *notifier) Publish(ctx context.Context, identity string, ids []any, data any, omit string) error {
	b, _ := json.Marshal(data)
	n.add("publish " + identity + " " + string(b))
	return nil
}
func (n *notifier) PublishWatchers(ctx context.Context, identity string, data any, omit string) error {
	b, _ := json.Marshal(data)
	n.add("watchers " + identity + " " + string(b))
	return nil
}

// checker is a notifier that tells whether records have subscribers.
type checker struct{ *notifier }

func (c checker) Subscribed(identity string, id any, omit string) bool { return c.subscribed }

func newService(t *testing.T, n blueprint.Notifier, cfg blueprint.Config) (*blueprint.Service, map[string]*model.Model) {
	t.Helper()
	o, models := newORM(t)
	cfg.ORM, cfg.Notifier = o, n
	return blueprint.NewService(cfg), models
}

// newORM returns an ORM of users, their pets and the pets' tags on a fresh
// SQLite database in memory.
func newORM(t *testing.T) (*orm.ORM, map[string]*model.Model) {
	t.Helper()
	db, err := sqlite.Open(t.Context(), datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	defaults := map[string]any{"migrate": "drop", "attributes": map[string]any{"id": map[string]any{"type": "number", "autoIncrement": true}}}
	return ormOf(t, db, defaults, map[string]map[string]any{
		"user": {"attributes": map[string]any{"name": "string", "pets": map[string]any{"collection": "pet", "via": "owner"}}},
		"pet": {"attributes": map[string]any{"name": "string", "owner": map[string]any{"model": "user"},
			"tags": map[string]any{"collection": "tag", "via": "pets"}}},
		"tag": {"attributes": map[string]any{"label": "string", "pets": map[string]any{"collection": "pet", "via": "tags"}}},
	}, nil)
}

// ormOf returns an ORM of the models defs (identity → definition, with
// defaults) on db, migrated; adjust, when set, sees the models first.
func ormOf(t *testing.T, db datastore.Adapter, defaults map[string]any, defs map[string]map[string]any, adjust func(map[string]*model.Model)) (*orm.ORM, map[string]*model.Model) {
	t.Helper()
	models := map[string]*model.Model{}
	var list []*model.Model
	for id, def := range defs {
		m, err := model.Parse(id, id+".yaml", def, defaults)
		if err != nil {
			t.Fatal(err)
		}
		models[id] = m
		list = append(list, m)
	}
	if adjust != nil {
		adjust(models)
	}
	schema, err := model.NewSchema(list)
	if err != nil {
		t.Fatal(err)
	}
	o, err := orm.New(schema, map[string]datastore.Adapter{"default": db})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return o, models
}

func do(t *testing.T, s *blueprint.Service, r *blueprint.Request) any {
	t.Helper()
	res, err := s.Do(t.Context(), r, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Action, r.Model.Identity, err)
	}
	return res.Body
}

// TestPreviousOnlyForListeners: the record as it was is populated for
// updated only when someone is subscribed to it, or when the notifier
// cannot tell.
func TestPreviousOnlyForListeners(t *testing.T) {
	for _, tt := range []struct {
		name      string
		n         func(*notifier) blueprint.Notifier
		listening bool
		populated bool
	}{
		{"nobody subscribed", func(n *notifier) blueprint.Notifier { return checker{n} }, false, false},
		{"a subscriber", func(n *notifier) blueprint.Notifier { return checker{n} }, true, true},
		{"a notifier that cannot tell", func(n *notifier) blueprint.Notifier { return n }, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &notifier{subscribed: tt.listening}
			s, m := newService(t, tt.n(rec), blueprint.Config{AutoWatch: true, DeepWatch: true})
			do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["user"], Body: map[string]any{"name": "ann"}})
			do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["pet"], Body: map[string]any{"name": "rex", "owner": 1}})
			rec.take()
			do(t, s, &blueprint.Request{Action: blueprint.Update, Model: m["pet"], Path: map[string]string{"id": "1"},
				Body: map[string]any{"name": "max"}})
			var previous string
			for _, l := range rec.take() {
				if strings.Contains(l, `"verb":"updated"`) {
					previous = l[strings.Index(l, `"previous"`):]
				}
			}
			want := `"previous":{"id":1,"name":"rex","owner":1}}`
			if tt.populated {
				want = `"previous":{"id":1,"name":"rex","owner":{"id":1,"name":"ann"},"tags":[]}}`
			}
			if previous != want {
				t.Errorf("updated %s, want %s", previous, want)
			}
		})
	}
}

// TestDeepWatch: find watches its model even with no result, and every
// associated model once a record comes back; findOne and populate watch
// the associated models only; deepWatch off (or autoWatch off) keeps to
// the records.
func TestDeepWatch(t *testing.T) {
	watches := func(log []string) []string {
		var out []string
		for _, l := range log {
			if w, ok := strings.CutPrefix(l, "watch "); ok {
				out = append(out, w)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, tt := range []struct {
		name       string
		cfg        blueprint.Config
		route      map[string]any
		find, none []string // watched by a find with results, with none
		findOne    []string // and by findOne and populate
	}{
		{"default", blueprint.Config{AutoWatch: true, DeepWatch: true}, nil,
			[]string{"pet", "tag", "user"}, []string{"pet"}, []string{"tag", "user"}},
		{"deepWatch off", blueprint.Config{AutoWatch: true}, nil, []string{"pet"}, []string{"pet"}, nil},
		{"autoWatch off", blueprint.Config{DeepWatch: true}, nil, nil, nil, nil},
		{"route turns deepWatch off", blueprint.Config{AutoWatch: true, DeepWatch: true}, map[string]any{"deepWatch": false},
			[]string{"pet"}, []string{"pet"}, nil},
		{"route turns deepWatch on", blueprint.Config{AutoWatch: true}, map[string]any{"deepWatch": true},
			[]string{"pet", "tag", "user"}, []string{"pet"}, []string{"tag", "user"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := &notifier{}
			s, m := newService(t, n, tt.cfg)
			do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["user"], Body: map[string]any{"name": "ann"}})
			do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["pet"], Body: map[string]any{"name": "rex"}})
			pet := m["pet"]
			read := func(a blueprint.Action, path map[string]string, query map[string]any, alias string) []string {
				n.take()
				do(t, s, &blueprint.Request{Action: a, Model: pet, Path: path, Query: query, Alias: alias, Socket: "s1", RouteOptions: tt.route})
				return watches(n.take())
			}
			// Unpopulated associations count: rex has no owner, and the
			// find populates nothing, yet user and tag are watched.
			if got := read(blueprint.Find, nil, map[string]any{"populate": "false"}, ""); !slices.Equal(got, tt.find) {
				t.Errorf("find with a result watched %v, want %v", got, tt.find)
			}
			if got := read(blueprint.Find, nil, map[string]any{"where": `{"name":"none"}`}, ""); !slices.Equal(got, tt.none) {
				t.Errorf("find with no result watched %v, want %v", got, tt.none)
			}
			if got := read(blueprint.FindOne, map[string]string{"id": "1"}, nil, ""); !slices.Equal(got, tt.findOne) {
				t.Errorf("findOne watched %v, want %v", got, tt.findOne)
			}
			if got := read(blueprint.Populate, map[string]string{"parentid": "1"}, nil, "tags"); !slices.Equal(got, tt.findOne) {
				t.Errorf("populate watched %v, want %v", got, tt.findOne)
			}
		})
	}
}

// TestSailsFormat: one addedTo / removedFrom per member with a scalar id,
// and created carrying the answer.
func TestSailsFormat(t *testing.T) {
	n := &notifier{}
	s, m := newService(t, n, blueprint.Config{Format: blueprint.FormatSails})
	do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["pet"], Body: map[string]any{"name": "rex"}})
	do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["pet"], Body: map[string]any{"name": "max"}})
	n.take()
	body := do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["user"], Body: map[string]any{"name": "ann", "pets": []any{1.0, 2.0}}})
	b, _ := json.Marshal(body)
	got := n.take()
	wantCreated := `watchers user {"verb":"created","id":1,"data":` + string(b) + `}`
	if !slices.Contains(got, wantCreated) || !strings.Contains(wantCreated, `"pets":[{`) {
		t.Errorf("create sent %q, want %s (the populated answer)", got, wantCreated)
	}
	do(t, s, &blueprint.Request{Action: blueprint.Create, Model: m["tag"], Body: map[string]any{"label": "red", "pets": []any{1.0, 2.0}}})
	n.take()
	do(t, s, &blueprint.Request{Action: blueprint.Replace, Model: m["tag"], Alias: "pets", Path: map[string]string{"parentid": "1"}, Body: []any{}})
	got = n.take()
	for _, want := range []string{
		`publish tag {"id":1,"verb":"removedFrom","attribute":"pets","removedId":1}`,
		`publish tag {"id":1,"verb":"removedFrom","attribute":"pets","removedId":2}`,
		`publish pet {"id":1,"verb":"removedFrom","attribute":"tags","removedId":1}`,
		`publish pet {"id":2,"verb":"removedFrom","attribute":"tags","removedId":1}`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("replace sent %q, want %s among them", got, want)
		}
	}
}
