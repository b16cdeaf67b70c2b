package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/blueprint"
)

// ExampleLoad serves an app folder from Go, as the skiff command does,
// with a Go hook added: every find is capped at 10 records.
func ExampleLoad() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "skiff-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A copy of the example app, so that its SQLite file lands in dir.
	for _, sub := range []string{"models", "config"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("../examples/petshop", sub))); err != nil {
			log.Fatal(err)
		}
	}

	opts, err := app.Load(ctx, dir, "development", os.Environ())
	if err != nil {
		log.Fatal(err)
	}
	opts.ParseBlueprintOptions = func(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
		o, err := blueprint.DefaultParseOptions(ctx, r)
		if err == nil && r.Action == blueprint.Find {
			o.Criteria["limit"] = 10
		}
		return o, err
	}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		log.Fatal(err)
	}
	defer app.Close()
	srv := httptest.NewServer(app.Handler()) // or app.Serve(ctx, listener)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/pet", "application/json", strings.NewReader(`{"name":"Rex","species":"dog"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var pet struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&pet); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, pet.ID, pet.Name)
	// Output: 200 1 Rex
}
