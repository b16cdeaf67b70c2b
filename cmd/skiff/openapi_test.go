package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAPICommand: `skiff openapi` prints the app's OpenAPI 3.1
// document without opening its datastores.
func TestOpenAPICommand(t *testing.T) {
	dir := writeApp(t, "openapi: {path: /spec.json}\n")
	writeModel(t, dir, "pet", "attributes: {name: {type: string, required: true}}\n")
	var out, errOut syncBuffer
	if err := run(t.Context(), []string{"openapi", "--app", dir}, nil, &out, &errOut); err != nil {
		t.Fatalf("skiff openapi: %v (stderr %q)", err, errOut.String())
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("the output is not JSON: %v\n%s", err, out.String())
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/pet"]["post"] == nil || doc.Paths["/spec.json"]["get"] == nil {
		t.Errorf("openapi %q, paths %v: want 3.1.0 with POST /pet and GET /spec.json", doc.OpenAPI, doc.Paths)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp")); err == nil {
		t.Errorf("skiff openapi opened the datastore (.tmp/ exists)")
	}
	err := run(t.Context(), []string{"openapi", "--app", filepath.Join(dir, "nope")}, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "not an app folder") {
		t.Errorf("skiff openapi on a missing folder: %v", err)
	}
}
