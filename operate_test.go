package skiff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
)

// lockedBuffer is a log destination the server's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestIDInTheFailureLine: a 500's "request failed" line carries the
// id the client sent, as the request line does.
func TestRequestIDInTheFailureLine(t *testing.T) {
	var logs lockedBuffer
	srv := newNoteApp(t, skiff.Options{
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		ParseBlueprintOptions: func(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
			return nil, errors.New("the database is on fire")
		},
	})
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/note", nil)
	req.Header.Set("X-Request-Id", "incident-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || resp.Header.Get("X-Request-Id") != "incident-7" {
		t.Fatalf("GET /note = %d with X-Request-Id %q, want 500 and incident-7", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	var failed, logged bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch m["msg"] {
		case "request failed":
			failed = m["request_id"] == "incident-7" && strings.Contains(m["err"].(string), "on fire")
		case "request":
			logged = m["request_id"] == "incident-7" && m["status"] == float64(500)
		}
	}
	if !failed || !logged {
		t.Errorf("logs lack the failure line or the request line with request_id incident-7:\n%s", logs.String())
	}
}

// TestReadinessFollowsTheDatastores: /readyz answers 503 naming the
// datastore once it no longer answers, /healthz still 200.
func TestReadinessFollowsTheDatastores(t *testing.T) {
	var logs lockedBuffer
	db, err := sqlite.Open(t.Context(), datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := skiff.New(t.Context(), skiff.Options{
		Logger:     slog.New(slog.NewJSONHandler(&logs, nil)),
		Datastores: map[string]datastore.Adapter{"default": db},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(func() { srv.Close(); app.Close() })
	status := func(path string) (int, string) {
		t.Helper()
		return get(t, srv.URL+path)
	}
	if code, body := status("/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
		t.Fatalf("GET /readyz = %d %s, want 200 ready", code, body)
	}
	if strings.Contains(logs.String(), `"path":"/readyz"`) {
		t.Errorf("a health check was logged at info:\n%s", logs.String())
	}
	db.Close()
	if code, body := status("/readyz"); code != 503 || !strings.Contains(body, "datastore default does not answer") {
		t.Errorf("GET /readyz with a closed datastore = %d %s, want 503 naming it", code, body)
	}
	if code, _ := status("/healthz"); code != 200 {
		t.Errorf("GET /healthz with a closed datastore = %d, want 200 (the process is alive)", code)
	}
}
