package skiff

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// ownModels replaces opts.Models by copies, since resolving a schema writes
// into its models and the caller's must stay as written, and gives each
// model without a strategy the environment's: alter, or safe in
// production.
func ownModels(opts *Options) {
	models := make([]*model.Model, len(opts.Models))
	for i, m := range opts.Models {
		models[i] = m.Clone()
	}
	opts.Models = models
	for _, m := range opts.Models {
		if m.Migrate == "" {
			m.Migrate = model.MigrateAlter
			if opts.Env == "production" {
				m.Migrate = model.MigrateSafe
			}
		}
	}
}

// PlanMigration returns the schema changes New would make to the
// datastores of opts, datastore by datastore, without making any (the
// `skiff migrate --dry-run` command). CheckMigration says whether New
// would refuse them.
func PlanMigration(ctx context.Context, opts Options) ([]orm.MigrationStep, error) {
	o, err := migrationORM(&opts)
	if err != nil {
		return nil, err
	}
	return o.PlanMigration(ctx)
}

// Migrate plans the schema changes of opts' models, refuses them as
// CheckMigration does, then makes them, and returns what it changed. New
// does the same before serving; the `skiff migrate` command calls it
// alone.
func Migrate(ctx context.Context, opts Options) ([]orm.MigrationStep, error) {
	o, err := migrationORM(&opts)
	if err != nil {
		return nil, err
	}
	return migrate(ctx, o, &opts)
}

func migrationORM(opts *Options) (*orm.ORM, error) {
	if opts.Env == "" {
		opts.Env = "development"
	}
	ownModels(opts)
	schema, err := model.NewSchema(opts.Models)
	if err != nil {
		return nil, err
	}
	return orm.New(schema, opts.Datastores)
}

// migrate plans, checks, logs and applies the migration of o.
func migrate(ctx context.Context, o *orm.ORM, opts *Options) ([]orm.MigrationStep, error) {
	steps, err := o.PlanMigration(ctx)
	if err != nil {
		return nil, err
	}
	if err := CheckMigration(steps, opts.DropColumns); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, s := range steps {
		if s.Unplanned {
			log.Warn("migrate: this datastore's adapter cannot list its changes: columns no longer described are dropped with their data",
				"datastore", s.Datastore, "strategy", string(s.Mode))
		}
		for _, c := range s.Changes {
			log.Info("migrate: "+c.String(), "datastore", s.Datastore, "strategy", string(s.Mode))
		}
	}
	if err := o.Migrate(ctx); err != nil {
		return nil, err
	}
	return steps, nil
}

// CheckMigration refuses a plan that drops a column holding data (a value
// in at least one row) unless dropColumns names it as "table.column" (or
// holds "*"): an attribute removed from a model must not take its data
// with it unnoticed. migrate: drop, which recreates tables empty, is
// explicit already and never refused here.
func CheckMigration(steps []orm.MigrationStep, dropColumns []string) error {
	var refused []string
	for _, s := range steps {
		for _, c := range s.Changes {
			name := c.Table + "." + c.Column
			if c.Kind != datastore.DropColumn || c.Rows == 0 || slices.Contains(dropColumns, name) || slices.Contains(dropColumns, "*") {
				continue
			}
			refused = append(refused, fmt.Sprintf("%s (%d rows hold a value, datastore %s)", name, c.Rows, s.Datastore))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("migrate: alter would drop %s, no longer described by the models: "+
		"restore the attribute, or let it go by starting once with --drop-columns %s (Options.DropColumns)",
		strings.Join(refused, ", "), strings.Join(columnNames(refused), ","))
}

func columnNames(refused []string) []string {
	out := make([]string, len(refused))
	for i, r := range refused {
		out[i], _, _ = strings.Cut(r, " ")
	}
	return out
}
