package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startAndStop serves the app folder dir until it listens, stops it and
// returns what it wrote to stderr.
func startAndStop(t *testing.T, dir string, environ []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--app", dir, "--port", "0", "--host", "127.0.0.1"}, environ, &stdout, &stderr)
	}()
	for !strings.Contains(stdout.String(), "listening on") {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run after cancel = %v", err)
	}
	return stderr.String()
}

func writeApp(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "app.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLogLevelAndWarnings(t *testing.T) {
	dir := writeApp(t, "views: {extension: ejs}\ndatastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\n")
	stderr := startAndStop(t, dir, nil)
	if n := strings.Count(stderr, "views: ignored"); n != 1 {
		t.Errorf("stderr holds the views warning %d times, want once:\n%s", n, stderr)
	}
	for _, level := range []string{"error", "silent"} {
		if stderr := startAndStop(t, dir, []string{"SKIFF_LOG__LEVEL=" + level}); stderr != "" {
			t.Errorf("SKIFF_LOG__LEVEL=%s: stderr = %q, want nothing", level, stderr)
		}
	}
	quiet := writeApp(t, "log: {level: silent}\nviews: {extension: ejs}\n")
	if stderr := startAndStop(t, quiet, nil); stderr != "" {
		t.Errorf("log.level silent: stderr = %q, want nothing", stderr)
	}
	bad := writeApp(t, "log: {level: loud}\n")
	err := run(t.Context(), []string{"serve", "--app", bad, "--port", "0"}, nil, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "log.level") {
		t.Errorf("log.level loud: run error = %v, want one naming log.level", err)
	}
}

func TestUnknownMiddlewareStopsTheStart(t *testing.T) {
	dir := writeApp(t, "http: {middleware: {order: [cookieParser, session, bodyParser, paginate, router, www]}}\n")
	err := run(t.Context(), []string{"serve", "--app", dir, "--port", "0"}, nil, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), `"paginate"`) {
		t.Errorf("run error = %v, want one naming paginate", err)
	}
}

func TestExplicitHost(t *testing.T) {
	dir := writeApp(t, "explicitHost: 127.0.0.1\n")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--app", dir, "--port", "0"}, nil, &stdout, &stderr) }()
	for !strings.Contains(stdout.String(), "listening on") {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	if !strings.Contains(stdout.String(), "listening on http://127.0.0.1:") {
		t.Errorf("explicitHost 127.0.0.1: %s", stdout.String())
	}
}
