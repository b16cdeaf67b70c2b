package skiff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/skifftest"
)

// TestMigratePlanned runs migrate: alter on every engine: each adapter
// lists its changes (none migrates unplanned), a column that holds data
// is not dropped unless Options.DropColumns names it, and one that holds
// none goes without asking.
func TestMigratePlanned(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			env := b.env(t)
			var environ []string
			for k, v := range env {
				environ = append(environ, k+"="+v)
			}
			writeModel := func(attrs string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "models", "pet.yaml"), []byte("attributes: {"+attrs+"}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			load := func() skiff.Options { return *skifftest.Load(t, dir, "development", environ...) }
			changes := func(opts skiff.Options) []string {
				t.Helper()
				steps, err := skiff.PlanMigration(t.Context(), opts)
				if err != nil {
					t.Fatalf("PlanMigration = %v", err)
				}
				var out []string
				for _, s := range steps {
					if s.Unplanned {
						t.Errorf("datastore %s migrates unplanned", s.Datastore)
					}
					for _, c := range s.Changes {
						out = append(out, c.String())
					}
				}
				return out
			}

			writeModel("name: {type: string}, nickname: {type: string}, age: {type: number, allowNull: true}")
			if got := strings.Join(changes(load()), "; "); !strings.Contains(got, "create table pet") {
				t.Errorf("plan of an empty database = %q, want the table it creates", got)
			}
			_, srv := skifftest.Serve(t, load())
			run(t, srv, ids{}, []step{{method: "POST", path: "/pet", body: `{"name":"Rex","nickname":"Rexy"}`, status: 200}})

			writeModel("name: {type: string}, color: {type: string}")
			got := strings.Join(changes(load()), "; ")
			for _, want := range []string{"drop column pet.nickname (1 rows hold a value)", "drop column pet.age", "add column pet.color"} {
				if !strings.Contains(got, want) {
					t.Errorf("plan = %q, want %q in it", got, want)
				}
			}
			if strings.Contains(got, "pet.age (") {
				t.Errorf("plan = %q: age holds no value", got)
			}
			if _, err := skiff.Migrate(t.Context(), load()); err == nil || !strings.Contains(err.Error(), "--drop-columns pet.nickname") {
				t.Fatalf("Migrate dropping a column that holds data = %v, want a refusal", err)
			}
			if got := strings.Join(changes(load()), "; "); !strings.Contains(got, "add column pet.color") {
				t.Errorf("the refused migration changed the schema: plan now %q", got)
			}
			opts := load()
			opts.DropColumns = []string{"pet.nickname"}
			if _, err := skiff.Migrate(t.Context(), opts); err != nil {
				t.Fatalf("Migrate with DropColumns = %v", err)
			}
			if got := changes(load()); len(got) != 0 {
				t.Errorf("plan after the migration = %q, want nothing", got)
			}
		})
	}
}
