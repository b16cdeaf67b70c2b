package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeModel(t *testing.T, dir, name, yaml string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", name+".yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSafeAlter: migrate: alter prints its plan, never drops a column that
// holds data without --drop-columns, and --dry-run changes nothing.
func TestSafeAlter(t *testing.T) {
	dir := writeApp(t, "")
	writeModel(t, dir, "pet", "attributes: {name: {type: string}, nickname: {type: string}, age: {type: number, allowNull: true}}\n")

	var out syncBuffer
	if err := run(t.Context(), []string{"migrate", "--app", dir, "--dry-run"}, nil, &out, &syncBuffer{}); err != nil {
		t.Fatalf("migrate --dry-run on an empty database: %v", err)
	}
	if !strings.Contains(out.String(), "would create table pet") {
		t.Errorf("dry run printed %q, want the table it would create", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp", "default.db")); err == nil {
		if out := migrateOut(t, dir, "--dry-run"); !strings.Contains(out, "would create table pet") {
			t.Errorf("the dry run created the table: a second dry run printed %q", out)
		}
	}

	s := startServer(t, []string{"--app", dir}, nil)
	if !strings.Contains(s.stderr.String(), "migrate: create table pet") {
		t.Errorf("the start did not log its plan:\n%s", s.stderr.String())
	}
	resp, err := http.Post(s.base+"/pet", "application/json", strings.NewReader(`{"name":"Rex","nickname":"Rexy"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	// nickname holds a value, age does not.
	writeModel(t, dir, "pet", "attributes: {name: {type: string}, color: {type: string}}\n")
	var dry syncBuffer
	err = run(t.Context(), []string{"migrate", "--app", dir, "--dry-run"}, nil, &dry, &syncBuffer{})
	for _, want := range []string{"would drop column pet.nickname (1 rows hold a value)", "would drop column pet.age", "would add column pet.color"} {
		if !strings.Contains(dry.String(), want) {
			t.Errorf("dry run printed:\n%s\nwant %q", dry.String(), want)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "pet.nickname") || !strings.Contains(err.Error(), "--drop-columns pet.nickname") {
		t.Errorf("dry run error = %v, want the refusal naming pet.nickname and --drop-columns", err)
	}
	err = run(t.Context(), []string{"serve", "--app", dir, "--port", "0", "--host", "127.0.0.1"}, nil, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "--drop-columns pet.nickname") {
		t.Fatalf("serve with a column holding data to drop = %v, want a refusal", err)
	}
	if out := migrateOut(t, dir, "--dry-run", "--drop-columns", "pet.nickname"); !strings.Contains(out, "would add column pet.color") {
		t.Errorf("the refused start changed the schema: dry run now prints\n%s", out)
	}

	// With the opt-in the column goes.
	if out := migrateOut(t, dir, "--drop-columns", "pet.nickname"); !strings.Contains(out, "drop column pet.nickname") {
		t.Errorf("migrate --drop-columns printed\n%s", out)
	}
	if out := migrateOut(t, dir, "--dry-run"); !strings.Contains(out, "nothing to change") {
		t.Errorf("dry run after the migration printed\n%s", out)
	}
}

func migrateOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errOut syncBuffer
	if err := run(t.Context(), append([]string{"migrate", "--app", dir}, args...), nil, &out, &errOut); err != nil {
		t.Fatalf("migrate %v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}
