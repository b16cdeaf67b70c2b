package skiff_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
)

// ExampleNew builds an app from Go alone: package skiff links no driver,
// so the program opens the datastore it wants (here SQLite in memory) and
// passes it in Options. Package app's ExampleLoad serves an app folder.
func ExampleNew() {
	ctx := context.Background()
	pet, err := model.Parse("pet", "example", map[string]any{"attributes": map[string]any{
		"id":   map[string]any{"type": "number", "autoIncrement": true},
		"name": map[string]any{"type": "string", "required": true},
	}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		log.Fatal(err)
	}
	app, err := skiff.New(ctx, skiff.Options{
		Models:     []*model.Model{pet},
		Datastores: map[string]datastore.Adapter{"default": db},
	})
	if err != nil {
		db.Close() // the caller owns the adapters until New succeeds
		log.Fatal(err)
	}
	defer app.Close() // closes db too
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/pet", "application/json", strings.NewReader(`{"name":"Rex"}`))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output: 200
}
