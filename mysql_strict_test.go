package skiff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/testenv"
)

// TestMySQLStrictValues runs blueprint writes on MySQL with the server's
// global sql_mode emptied (not strict): a value that does not fit its
// column's type is a 400 all the same, never a value cut or clamped, as
// the adapter makes its own sessions strict.
func TestMySQLStrictValues(t *testing.T) {
	url := testenv.MySQLDatabase(t)
	testenv.MySQLLaxServer(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"config/models.yaml": "models:\n  migrate: drop\n  attributes:\n    id: {type: number, autoIncrement: true}\n",
		"models/thing.yaml": "attributes:\n  code: {type: string, columnType: varchar(5)}\n  small: {type: number, columnType: tinyint}\n" +
			"  label: {type: string, unique: true}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startApp(t, dir, "development", map[string]string{
		"SKIFF_DATASTORES__DEFAULT__ADAPTER": "mysql",
		"SKIFF_DATASTORES__DEFAULT__URL":     url,
	})
	details := func(want string) func(*testing.T, any, string) {
		return func(t *testing.T, v any, _ string) {
			t.Helper()
			if d, _ := field(t, v, "details").(string); !strings.Contains(d, want) {
				t.Errorf("details %q, want %q in them", d, want)
			}
		}
	}
	run(t, srv, ids{}, []step{
		{method: "POST", path: "/thing", body: `{"code":"abcde","small":127,"label":"a"}`, status: 200, save: "a"},
		{method: "POST", path: "/thing", body: `{"code":"abcdef"}`, status: 400,
			check: all(wantCode("E_INVALID_NEW_RECORD"), details("too long for the column code of thing (varchar(5))"))},
		{method: "POST", path: "/thing", body: `{"small":300}`, status: 400,
			check: all(wantCode("E_INVALID_NEW_RECORD"), details("out of range for the column small of thing (tinyint)"))},
		{method: "POST", path: "/thing", body: `{"label":"` + strings.Repeat("é", 256) + `"}`, status: 400,
			check: all(wantCode("E_INVALID_NEW_RECORD"), details("at most 255 characters"))},
		{method: "PATCH", path: "/thing/{a}", body: `{"code":"🐙🐙🐙🐙🐙🐙"}`, status: 400, check: wantCode("E_INVALID_VALUES_TO_SET")},
		{method: "PATCH", path: "/thing/{a}", body: `{"small":-129}`, status: 400, check: wantCode("E_INVALID_VALUES_TO_SET")},
		{method: "GET", path: "/thing/{a}", status: 200, check: all(wantField("code", "abcde"), wantField("small", 127))},
		{method: "GET", path: "/thing", status: 200, check: wantLen(1)},
	})
}
