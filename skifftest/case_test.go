package skifftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCaseErrors(t *testing.T) {
	tests := []struct{ file, err string }{
		{"-- GET /x --\n-- 200 --\n", "no app: line"},
		{"app: x\n-- GET /x --\n", "no answer section"},
		{"app: x\n-- 200 --\n", "before any request"},
		{"app: x\n-- GET x --\n-- 200 --\n", "does not start with /"},
		{"app: x\n-- GET /x via w --\n-- 200 --\n", `socket "w" is not in the sockets`},
		{"app: x\nsockets: w\n-- GET /x --\n-- 200 --\n-- v gets e --\n", `socket "v" is not in the sockets`},
		{"app: x\nsockets: w\n-- GET /x --\n-- w gets e --\n-- 200 --\n", "before the answer"},
		{"app: x\n-- GET /x --\n-- 200 --\n-- 200 --\n", "a second answer"},
		{"app: x\n-- GET /x --\n-- 200 keep y --\n", "want STATUS [save NAME]"},
		{"app: x\n-- GET /x --\n-- hello --\n", "neither a request"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "case.txtar")
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readCase(path)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("readCase(%q) = %v, want an error with %q", tt.file, err, tt.err)
		}
	}
}
