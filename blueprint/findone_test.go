package blueprint_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/model"
)

// TestFindOneDefault checks findOne without a parseBlueprintOptions hook,
// which skips building DefaultParseOptions' maps, against the same request
// through DefaultParseOptions given as the hook: the same answers, errors
// and subscriptions, over HTTP and over a socket.
func TestFindOneDefault(t *testing.T) {
	o, models := newORM(t)
	fastLog, slowLog := &notifier{}, &notifier{}
	fast := blueprint.NewService(blueprint.Config{ORM: o, Notifier: fastLog, AutoWatch: true})
	slow := blueprint.NewService(blueprint.Config{ORM: o, Notifier: slowLog, AutoWatch: true, Parse: blueprint.DefaultParseOptions})
	create := func(m string, rec map[string]any) {
		t.Helper()
		if _, err := fast.Do(t.Context(), &blueprint.Request{Action: blueprint.Create, Model: models[m], Body: rec}, nil); err != nil {
			t.Fatal(err)
		}
	}
	create("user", map[string]any{"name": "Ann"})
	create("pet", map[string]any{"name": "Rex", "owner": 1.0})
	create("pet", map[string]any{"name": "Tom"})
	create("tag", map[string]any{"label": "good", "pets": []any{1.0}})
	fastLog.take()
	for _, m := range []string{"pet", "user", "tag"} {
		for _, r := range []blueprint.Request{
			{Path: map[string]string{"id": "1"}},
			{Path: map[string]string{"id": "2"}},
			{Path: map[string]string{"id": "99"}},
			{Path: map[string]string{"id": "x"}},
			{Path: map[string]string{"id": ""}},
			{Query: map[string]any{"id": 1.0}},
			{Query: map[string]any{"id": map[string]any{">": 0.0}}},
			{},
			{Path: map[string]string{"id": "1"}, Socket: "s1"},
			{Path: map[string]string{"id": "1"}, Query: map[string]any{"populate": "false"}},
			{Path: map[string]string{"id": "1"}, Query: map[string]any{"select": "name"}},
			{Path: map[string]string{"id": "1"}, Body: map[string]any{"omit": "name"}},
		} {
			r.Action, r.Model = blueprint.FindOne, models[m]
			slowReq := r
			got, gotErr := fast.Do(t.Context(), &r, nil)
			want, wantErr := slow.Do(t.Context(), &slowReq, nil)
			name := m + " " + describe(r)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && (gotErr.Error() != wantErr.Error() || model.KindOf(gotErr) != model.KindOf(wantErr)) {
				t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %+v, want %+v", name, got, want)
			}
			if g, w := fastLog.take(), slowLog.take(); !reflect.DeepEqual(g, w) {
				t.Errorf("%s: notifier got %q, want %q", name, g, w)
			}
		}
	}
}

func describe(r blueprint.Request) string {
	return fmt.Sprintf("path %v query %v body %v socket %q", r.Path, r.Query, r.Body, r.Socket)
}
