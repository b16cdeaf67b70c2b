package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/sockettest"
)

// server is a running `skiff serve`.
type server struct {
	base           string
	stdout, stderr *syncBuffer
	stop           func() error
}

// startServer runs `skiff serve --port 0 --host 127.0.0.1` with args added
// until it prints its address; stop cancels it and returns run's error.
func startServer(t *testing.T, args, environ []string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &server{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--port", "0", "--host", "127.0.0.1"}, args...), environ, s.stdout, s.stderr)
	}()
	addrRx := regexp.MustCompile(`listening on (http://\S+)`)
	for s.base == "" {
		if m := addrRx.FindStringSubmatch(s.stdout.String()); m != nil {
			s.base = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("run returned early: %v\nstderr: %s", err, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	stopped := false
	var err error
	s.stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			err = <-done
		}
		return err
	}
	t.Cleanup(func() { _ = s.stop() })
	return s
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestRequestLogJSON(t *testing.T) {
	dir := writeApp(t, "datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\n")
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "pet.yaml"), []byte("attributes: {name: {type: string}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, []string{"--app", dir, "--log-format", "json"}, nil)
	for _, want := range []string{"models: 1 (pet)", "routes: ", "datastores: default (sqlite in memory)", "sockets: /socket.io/"} {
		if !strings.Contains(s.stdout.String(), want) {
			t.Errorf("startup summary lacks %q:\n%s", want, s.stdout.String())
		}
	}
	resp, _ := get(t, s.base+"/pet", map[string]string{"X-Request-Id": "trace-42"})
	if got := resp.Header.Get("X-Request-Id"); got != "trace-42" {
		t.Errorf("X-Request-Id echoed = %q, want trace-42", got)
	}
	resp, _ = get(t, s.base+"/pet/1", map[string]string{"X-Request-Id": strings.Repeat("x", 200)})
	generated := resp.Header.Get("X-Request-Id")
	if generated == "" || len(generated) > 128 {
		t.Errorf("X-Request-Id for an oversized client id = %q, want a generated one", generated)
	}
	get(t, s.base+"/healthz", nil)
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	var reqs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line is not JSON: %q", line)
		}
		if m["msg"] == "request" {
			reqs = append(reqs, m)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d request lines, want 2 (the health check is not logged at info):\n%s", len(reqs), s.stderr.String())
	}
	if reqs[0]["path"] != "/pet" || reqs[0]["status"] != float64(200) || reqs[0]["request_id"] != "trace-42" {
		t.Errorf("first request line = %v", reqs[0])
	}
	if reqs[1]["status"] != float64(404) || reqs[1]["request_id"] != generated {
		t.Errorf("second request line = %v, want status 404 and request_id %s", reqs[1], generated)
	}
}

func TestHealthEndpoints(t *testing.T) {
	dir := writeApp(t, "datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\n")
	s := startServer(t, []string{"--app", dir}, nil)
	for path, want := range map[string]string{"/healthz": `{"status":"ok"}`, "/readyz": `{"status":"ready"}`} {
		resp, body := get(t, s.base+path, nil)
		if resp.StatusCode != 200 || strings.TrimSpace(body) != want {
			t.Errorf("GET %s = %d %s, want 200 %s", path, resp.StatusCode, body, want)
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s set a cookie: health checks get no session", path)
		}
	}

	// Paths are settable; false turns one off; an app route wins.
	dir = writeApp(t, "health: {liveness: /live, readiness: false}\nroutes: {'GET /readyz': {response: notFound}, 'GET /live2': {response: ok}}\n")
	s = startServer(t, []string{"--app", dir}, []string{"SKIFF_HEALTH__LIVENESS=/live2"})
	for path, want := range map[string]int{"/live2": 200, "/readyz": 404, "/healthz": 404, "/live": 404} {
		if resp, body := get(t, s.base+path, nil); resp.StatusCode != want {
			t.Errorf("GET %s = %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
	if resp, body := get(t, s.base+"/live2", nil); strings.Contains(body, "status") {
		t.Errorf("GET /live2 = %d %s: the app route should win over the liveness endpoint", resp.StatusCode, body)
	}
}

func TestPortInUseChangesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := writeApp(t, "")
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "pet.yaml"), []byte("attributes: {name: {type: string}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(t.Context(), []string{"serve", "--app", dir, "--host", "127.0.0.1", "--port", strconv.Itoa(port)}, nil, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("run on a port in use = %v, want a listen error", err)
	}
	// The datastore file may exist (opening it creates it) but holds no table.
	db := filepath.Join(dir, ".tmp", "default.db")
	if fi, err := os.Stat(db); err == nil && fi.Size() > 0 {
		b, _ := os.ReadFile(db)
		if strings.Contains(string(b), "CREATE TABLE") {
			t.Errorf("a start that could not listen created tables in %s", db)
		}
	}
}

// TestUnreadableSocketRequestIsLogged: a socket message that is no request
// (no url) still gets a request line, with its status and reason.
func TestUnreadableSocketRequestIsLogged(t *testing.T) {
	dir := writeApp(t, "datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\n")
	s := startServer(t, []string{"--app", dir, "--log-format", "json"}, nil)
	sock, err := sockettest.Dial(t.Context(), s.base, sockettest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	raw, err := sock.Ack(t.Context(), "get", map[string]any{"method": "get"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"statusCode":400`) {
		t.Errorf("ack = %s, want a 400", raw)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "request" && m["status"] == float64(400) && m["socket"] == sock.ID {
			found = strings.Contains(m["err"].(string), "No url")
		}
	}
	if !found {
		t.Errorf("no request line for the unreadable socket request:\n%s", s.stderr.String())
	}
}
