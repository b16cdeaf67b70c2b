package skiff_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSchemalessConformance drives a schema: false model through the
// blueprint API on every datastore engine: undeclared keys are stored with
// their JSON types, filtered type-strictly, sorted, merged by update and
// answered by destroy; custom select/omit and bad key names are refused.
func TestSchemalessConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv := startApp(t, "testdata/apps/schemaless", "development", b.env(t))
			vars := ids{}
			titles := func(want ...string) func(*testing.T, any, string) {
				return func(t *testing.T, v any, raw string) {
					t.Helper()
					list, _ := v.([]any)
					var got []string
					for _, r := range list {
						s, _ := r.(map[string]any)["title"].(string)
						got = append(got, s)
					}
					if strings.Join(got, ",") != strings.Join(want, ",") {
						t.Errorf("titles = %v, want %v (%s)", got, want, raw)
					}
				}
			}
			absent := func(key string) func(*testing.T, any, string) {
				return func(t *testing.T, v any, raw string) {
					t.Helper()
					if _, ok := v.(map[string]any)[key]; ok {
						t.Errorf("%s is stored: %s", key, raw)
					}
				}
			}
			run(t, srv, vars, []step{
				{method: "POST", path: "/person", body: `{"name":"Pat"}`, status: 200, save: "pat"},
				// create
				{method: "POST", path: "/note", body: `{"title":"a","color":"red","size":3,"tags":["x",1],"meta":{"k":true},"gone":null}`, status: 200, save: "a",
					check: all(wantField("color", "red"), wantField("size", 3), wantField("tags", []any{"x", 1}),
						wantField("meta", map[string]any{"k": true}), wantField("gone", nil), wantField("owner", nil))},
				{method: "POST", path: "/note", body: `{"title":"b","color":"blue","size":10,"done":true,"owner":{pat}}`, status: 200, save: "b",
					check: all(wantField("done", true), func(t *testing.T, v any, raw string) {
						if o, _ := field(t, v, "owner").(map[string]any); o["name"] != "Pat" {
							t.Errorf("owner not populated: %s", raw)
						}
					})},
				{method: "POST", path: "/note", body: `{"title":"c","size":"10","done":false,"_csrf":"token"}`, status: 200, save: "c",
					check: all(wantField("size", "10"), absent("_csrf"))},
				{method: "POST", path: "/note", body: `title=d&qty=5`, contentType: "application/x-www-form-urlencoded", status: 200,
					check: wantField("qty", "5")},
				{method: "POST", path: "/note", body: `{"title":"x","a-b":1}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
				{method: "POST", path: "/note", body: `{"title":"x","default":1}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
				{method: "POST", path: "/note", body: `{"color":"x"}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
				// find: query-string values of undeclared keys are strings (not coerced, as in Sails)
				{method: "GET", path: "/note", status: 200, check: titles("a", "b", "c", "d")},
				{method: "GET", path: "/note?color=red", status: 200, check: titles("a")},
				{method: "GET", path: "/note?size=10", status: 200, check: titles("c")},
				{method: "GET", path: `/note?where={"size":10}`, status: 200, check: titles("b")},
				{method: "GET", path: `/note?where={"size":{">":2}}`, status: 200, check: titles("a", "b")},
				{method: "GET", path: `/note?where={"size":{"in":[3,"10"]}}`, status: 200, check: titles("a", "c")},
				{method: "GET", path: `/note?where={"size":{"nin":[3,"10"]}}`, status: 200, check: titles("b", "d")},
				{method: "GET", path: `/note?where={"color":{"!=":"red"}}`, status: 200, check: titles("b", "c", "d")},
				{method: "GET", path: `/note?where={"color":null}`, status: 200, check: titles("c", "d")},
				{method: "GET", path: `/note?where={"color":{"contains":"e"}}`, status: 200, check: titles("a", "b")},
				{method: "GET", path: `/note?where[color][startsWith]=b`, status: 200, check: titles("b")},
				{method: "GET", path: `/note?where={"color":{"like":"%25d"}}`, status: 200, check: titles("a")},
				{method: "GET", path: `/note?where={"or":[{"color":"red"},{"done":true}]}`, status: 200, check: titles("a", "b")},
				{method: "GET", path: `/note?where={"done":false,"title":"c"}`, status: 200, check: titles("c")},
				{method: "GET", path: `/note?where={"size":{">":0}}&sort=size%20DESC`, status: 200, check: titles("b", "a")},
				{method: "GET", path: `/note?sort=[{"color":"DESC"},{"title":"ASC"}]&limit=2`, status: 200, check: titles("a", "b")},
				{method: "GET", path: "/note?_=123&callback=x", status: 200, check: wantLen(4)},
				{method: "GET", path: "/note?select=title", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/note?omit=color", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/note?a-b=1", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: `/note?where={"meta":{"k":true}}`, status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/note?sort=a.b", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/note/{a}", status: 200, check: all(wantField("tags", []any{"x", 1}), wantField("meta", map[string]any{"k": true}))},
				{method: "GET", path: "/person/{pat}", status: 200, check: func(t *testing.T, v any, raw string) {
					notes, _ := field(t, v, "notes").([]any)
					if len(notes) != 1 || notes[0].(map[string]any)["color"] != "blue" {
						t.Errorf("populated notes lack their undeclared keys: %s", raw)
					}
				}},
				// update merges keys; null is stored
				{method: "PATCH", path: "/note/{a}", body: `{"color":null,"size":4,"shape":"round"}`, status: 200,
					check: all(wantField("color", nil), wantField("size", 4), wantField("shape", "round"), wantField("tags", []any{"x", 1}), wantField("title", "a"))},
				{method: "GET", path: "/note?shape=round", status: 200, check: titles("a")},
				{method: "PATCH", path: "/note/{a}", body: `{"bad.key":1,"size":5}`, status: 400, check: wantCode("E_INVALID_VALUES_TO_SET")},
				{method: "GET", path: "/note/update/{c}?size=11", status: 200, check: wantField("size", "11")},
				{method: "GET", path: "/note/{a}", status: 200, check: all(wantField("size", 4), wantField("shape", "round"))},
				// destroy answers the record with its undeclared keys
				{method: "DELETE", path: "/note/{a}", status: 200, check: all(wantField("shape", "round"), wantField("meta", map[string]any{"k": true}))},
				{method: "GET", path: "/note/{a}", status: 404},
				{method: "GET", path: "/note?shape=round", status: 200, check: wantLen(0)},
			})
		})
	}
}

// TestSchemalessNotifications checks that socket notifications of a
// schemaless model carry its undeclared keys: the whole record in created,
// the keys set in updated.
func TestSchemalessNotifications(t *testing.T) {
	a := startLive(t, "testdata/apps/schemaless", backends[0].env(t))
	w := a.dial(t, 4)
	request(t, w, 200, "GET", "/note", nil)
	s := a.dial(t, 3)
	created := request(t, s, 200, "POST", "/note", map[string]any{"title": "n", "color": "red", "tags": []any{1}})
	id := fmt.Sprint(created["id"])
	wantEvents(t, "W after S creates a note", a.events(t, w),
		`note {"data":{"color":"red","id":`+id+`,"owner":null,"tags":[1],"title":"n"},"id":`+id+`,"verb":"created"}`)
	request(t, s, 200, "PATCH", "/note/"+id, map[string]any{"color": "blue", "size": 2})
	wantEvents(t, "W after S updates the note", a.events(t, w),
		`note {"data":{"color":"blue","id":`+id+`,"size":2},"id":`+id+`,"previous":{"color":"red","id":`+id+`,"owner":null,"tags":[1],"title":"n"},"verb":"updated"}`)
}
