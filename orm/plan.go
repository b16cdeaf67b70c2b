package orm

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// migrationGroup is the tables of one datastore that share a strategy.
type migrationGroup struct {
	store  string
	mode   model.Migrate
	tables []*datastore.Table
}

// migrationGroups groups the tables by datastore and strategy, in model
// order, each with its model's strategy (empty means safe).
func (o *ORM) migrationGroups() []*migrationGroup {
	type key struct {
		store string
		mode  model.Migrate
	}
	groups := map[key]*migrationGroup{}
	var order []*migrationGroup
	for _, m := range append(append([]*model.Model{}, o.schema.Models()...), o.schema.Junctions()...) {
		mode := m.Migrate
		if mode == "" {
			mode = model.MigrateSafe
		}
		k := key{m.Datastore, mode}
		g := groups[k]
		if g == nil {
			g = &migrationGroup{store: m.Datastore, mode: mode}
			groups[k] = g
			order = append(order, g)
		}
		g.tables = append(g.tables, o.entries[m.Identity].table)
	}
	return order
}

// MigrationStep is one datastore's share of a migration.
type MigrationStep struct {
	Datastore string
	Mode      model.Migrate
	// Changes are what Migrate would change, in order.
	Changes []datastore.Change
	// Unplanned is set when the datastore's adapter cannot list its changes
	// (it is no datastore.Planner) and the strategy changes something.
	Unplanned bool
}

// PlanMigration returns the changes Migrate would make now, datastore by
// datastore, without making any.
func (o *ORM) PlanMigration(ctx context.Context) ([]MigrationStep, error) {
	var steps []MigrationStep
	for _, g := range o.migrationGroups() {
		if g.mode == model.MigrateSafe {
			continue
		}
		step := MigrationStep{Datastore: g.store, Mode: g.mode}
		p, ok := o.stores[g.store].(datastore.Planner)
		if !ok {
			step.Unplanned = true
			steps = append(steps, step)
			continue
		}
		changes, err := p.Plan(ctx, g.tables, datastore.Migrate(g.mode))
		if err != nil {
			return nil, fmt.Errorf("plan the migration of datastore %s (%s): %w", g.store, g.mode, err)
		}
		step.Changes = changes
		steps = append(steps, step)
	}
	return steps, nil
}
