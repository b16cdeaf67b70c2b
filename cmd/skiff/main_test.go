package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer lets the test read what run prints while run is still going.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeExampleAppAndShutDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := []string{"SKIFF_DATASTORES__DEFAULT__URL=" + filepath.Join(t.TempDir(), "e2e.db")}
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--app", "../../examples/petshop", "--port", "0", "--host", "127.0.0.1"},
			env, &stdout, &stderr)
	}()
	addrRx := regexp.MustCompile(`listening on (http://\S+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addrRx.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, stderr.String())
		default:
		}
	}
	if base == "" {
		t.Fatalf("server did not print its address; stdout: %s stderr: %s", stdout.String(), stderr.String())
	}
	for _, want := range []string{"environment: development", "datastores: default", "models: 4"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("startup output lacks %q:\n%s", want, stdout.String())
		}
	}
	resp, err := http.Post(base+"/user", "application/json", strings.NewReader(`{"name":"Ann","email":"ann@example.com"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /user = %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr bool
		out     string
	}{
		{args: []string{"version"}, out: "skiff "},
		{args: []string{}, wantErr: true},
		{args: []string{"bogus"}, wantErr: true},
		{args: []string{"serve", "--app", "does/not/exist", "--port", "0"}, wantErr: true},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, nil, &out, &errOut)
		if (err != nil) != tc.wantErr {
			t.Errorf("run(%q) error = %v, wantErr %v", tc.args, err, tc.wantErr)
		}
		if !strings.Contains(out.String(), tc.out) {
			t.Errorf("run(%q) printed %q, want %q", tc.args, out.String(), tc.out)
		}
	}
}
