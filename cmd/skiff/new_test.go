package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/sockettest"
)

// TestNewServeCreateNotify is `skiff new` end to end: the folder it writes
// serves, a record created over HTTP reaches a socket that watches the
// model, and the socket's request is in the request log.
func TestNewServeCreateNotify(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myapp")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"new", dir}, nil, &out, io.Discard); err != nil {
		t.Fatalf("skiff new: %v", err)
	}
	if !strings.Contains(out.String(), "skiff serve") {
		t.Errorf("skiff new printed %q, want the next command", out.String())
	}
	for _, f := range []string{".gitignore", "models/Project.yaml", "models/Task.yaml", "config/env/production.yaml",
		"assets/index.html", "assets/js/tasks.js", "assets/dependencies/sails.io.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("new app lacks %s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "assets", "index.html")); !strings.Contains(string(b), "myapp") {
		t.Error("index.html does not name the app")
	}
	// A second new into the same folder is refused.
	if err := run(t.Context(), []string{"new", dir}, nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("skiff new into a non-empty folder = %v, want a refusal", err)
	}

	s := startServer(t, []string{"--app", dir}, nil)
	if !strings.Contains(s.stdout.String(), "models: 2 (project, task)") {
		t.Errorf("startup summary:\n%s", s.stdout.String())
	}
	if resp, body := get(t, s.base+"/", nil); resp.StatusCode != 200 || !strings.Contains(body, "sails.io.js") {
		t.Errorf("GET / = %d, want the live page", resp.StatusCode)
	}
	sock, err := sockettest.Dial(t.Context(), s.base, sockettest.Options{EIO: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	jwr, err := sock.Request(t.Context(), "GET", "/task", nil)
	if err != nil || jwr.StatusCode != 200 {
		t.Fatalf("socket GET /task = %+v, %v", jwr, err)
	}
	resp, err := http.Post(s.base+"/task", "application/json", strings.NewReader(`{"title":"Water the plants"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /task = %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a bound, not an assertion
	defer cancel()
	ev, err := sock.Next(ctx)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	var msg struct {
		Verb string `json:"verb"`
		Data struct {
			Title string `json:"title"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ev.Data, &msg); err != nil || ev.Name != "task" || msg.Verb != "created" || msg.Data.Title != "Water the plants" {
		t.Errorf("notification = %s %s, want task created with the title", ev.Name, ev.Data)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.stderr.String(), "socket="+sock.ID) {
		t.Errorf("the socket's request has no log line naming socket %s:\n%s", sock.ID, s.stderr.String())
	}
}

// TestTemplateBundleIsPetshops keeps the template's sails.io.js the one the
// example app ships.
func TestTemplateBundleIsPetshops(t *testing.T) {
	ours, err := template.ReadFile("template/assets/dependencies/sails.io.js")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile("../../examples/petshop/assets/dependencies/sails.io.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Error("cmd/skiff/template/assets/dependencies/sails.io.js differs from examples/petshop's: copy it over")
	}
}
