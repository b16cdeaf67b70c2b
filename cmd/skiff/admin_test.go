package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/sockettest"
)

// TestAdminListener: --admin serves Prometheus metrics (requests by
// transport, route, method and status; sockets; datastore pools) and
// pprof on its own address, and the app's port serves neither.
func TestAdminListener(t *testing.T) {
	dir := writeApp(t, "datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\n")
	writeModel(t, dir, "pet", "attributes: {name: {type: string}}\n")
	s := startServer(t, []string{"--app", dir, "--admin", "127.0.0.1:0"}, nil)
	// The admin line follows the one startServer waited for.
	rx := regexp.MustCompile(`admin: (http://\S+)/metrics`)
	m := rx.FindStringSubmatch(s.stdout.String())
	for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); m = rx.FindStringSubmatch(s.stdout.String()) {
		time.Sleep(10 * time.Millisecond)
	}
	if m == nil {
		t.Fatalf("no admin address in:\n%s", s.stdout.String())
	}
	adminBase := m[1]

	sock, err := sockettest.Dial(t.Context(), s.base, sockettest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	if jwr, err := sock.Request(t.Context(), "GET", "/pet", nil); err != nil || jwr.StatusCode != 200 {
		t.Fatalf("socket GET /pet = %+v, %v", jwr, err)
	}
	resp, err := http.Post(s.base+"/pet", "application/json", strings.NewReader(`{"name":"Rex"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := sock.Next(t.Context()); err != nil { // the created notification
		t.Fatal(err)
	}
	get(t, s.base+"/pet/1", nil)
	get(t, s.base+"/nowhere", nil)
	get(t, s.base+"/healthz", nil)

	resp, body := get(t, adminBase+"/metrics", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics = %d", resp.StatusCode)
	}
	for _, want := range []string{
		`skiff_requests_total{method="GET",route="GET /pet",status="200",transport="socket"} 1`,
		`skiff_requests_total{method="POST",route="POST /pet",status="200",transport="http"} 1`,
		`skiff_requests_total{method="GET",route="GET /pet/:id",status="200",transport="http"} 1`,
		`skiff_requests_total{method="GET",route="",status="404",transport="http"} 1`,
		`skiff_request_duration_seconds_bucket{method="POST",route="POST /pet",transport="http",le="+Inf"} 1`,
		"skiff_sockets_connected 1",
		`skiff_notifications_total{model="pet",verb="created"} 1`,
		"skiff_socket_messages_sent_total 1",
		"skiff_socket_slow_disconnects_total 0",
		`skiff_datastore_connections_open{datastore="default"}`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, "/healthz") {
		t.Error("health checks are counted as requests")
	}
	if resp, _ := get(t, adminBase+"/debug/pprof/", nil); resp.StatusCode != 200 {
		t.Errorf("GET /debug/pprof/ = %d, want 200", resp.StatusCode)
	}
	for _, p := range []string{"/metrics", "/debug/pprof/"} {
		if resp, _ := get(t, s.base+p, nil); resp.StatusCode != 404 {
			t.Errorf("the app's port answers GET %s with %d, want 404", p, resp.StatusCode)
		}
	}
}
