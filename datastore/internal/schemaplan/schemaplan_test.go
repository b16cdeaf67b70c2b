package schemaplan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/internal/schemaplan"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// brokenCatalog fails every read. The plan itself is tested on each
// engine's real catalog by datastoretest.
type brokenCatalog struct{}

var errBroken = errors.New("catalog unreadable")

func (brokenCatalog) Columns(context.Context, string) ([]string, error) { return nil, errBroken }
func (brokenCatalog) Indexes(context.Context, string) ([]string, error) { return nil, errBroken }
func (brokenCatalog) Count(context.Context, string, string) (int64, error) {
	return 0, errBroken
}

func TestPlanReadsOnlyWhatItNeeds(t *testing.T) {
	d := sqlgen.SQLite()
	tables := []*datastore.Table{{Name: "pet", PrimaryKey: "id"}}
	if got, err := schemaplan.Plan(t.Context(), d, brokenCatalog{}, tables, datastore.MigrateSafe); err != nil || len(got) != 0 {
		t.Errorf("Plan(safe) = %v, %v; want nothing, without reading the catalog", got, err)
	}
	if _, err := schemaplan.Plan(t.Context(), d, brokenCatalog{}, tables, "sometimes"); err == nil || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("Plan(unknown strategy) = %v, want an error naming it", err)
	}
	_, err := schemaplan.Plan(t.Context(), d, brokenCatalog{}, tables, datastore.MigrateAlter)
	if !errors.Is(err, errBroken) || !strings.Contains(err.Error(), "plan pet") {
		t.Errorf("Plan(alter) on a catalog that fails = %v, want its error, naming the table", err)
	}
}

func TestCountQuery(t *testing.T) {
	d := sqlgen.MySQL()
	if got, want := schemaplan.CountQuery(d, "pet", ""), "SELECT count(*) FROM `pet`"; got != want {
		t.Errorf("CountQuery(pet) = %q, want %q", got, want)
	}
	if got, want := schemaplan.CountQuery(d, "pet", "nick`name"), "SELECT count(*) FROM `pet` WHERE `nick``name` IS NOT NULL"; got != want {
		t.Errorf("CountQuery(pet, nick`name) = %q, want %q", got, want)
	}
}
