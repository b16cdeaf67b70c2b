// Package schemaplan lists the schema changes a SQL adapter's Define would
// make, for datastore.Planner: the one plan the SQL adapters share, each
// reading its own catalog. It mirrors what their Define does: migrate:
// drop recreates every table; alter creates missing tables, drops the
// columns no longer described (counting the values they hold), adds the
// new ones and creates missing indexes; safe changes nothing.
package schemaplan

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// Catalog reads the schema of a database as it is now.
type Catalog interface {
	// Columns lists the columns of table, none when it does not exist.
	Columns(ctx context.Context, table string) ([]string, error)
	// Indexes lists the names of table's indexes.
	Indexes(ctx context.Context, table string) ([]string, error)
	// Count counts the rows of table, or, when column is not "", those
	// holding a value (not NULL) in it: CountQuery's answer.
	Count(ctx context.Context, table, column string) (int64, error)
}

// Plan returns the changes Define(ctx, tables, mode) would make now, in
// order, read from c, without making any. d names the indexes Define
// creates (sqlgen.Indexes).
func Plan(ctx context.Context, d *sqlgen.Dialect, c Catalog, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	switch mode {
	case datastore.MigrateSafe:
		return nil, nil
	case datastore.MigrateDrop, datastore.MigrateAlter:
	default:
		return nil, fmt.Errorf("plan: unknown migrate strategy %q", mode)
	}
	var out []datastore.Change
	for _, t := range tables {
		changes, err := planTable(ctx, d, c, t, mode)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", t.Name, err)
		}
		out = append(out, changes...)
	}
	return out, nil
}

func planTable(ctx context.Context, d *sqlgen.Dialect, c Catalog, t *datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	have, err := c.Columns(ctx, t.Name)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		return []datastore.Change{{Kind: datastore.CreateTable, Table: t.Name}}, nil
	}
	if mode == datastore.MigrateDrop {
		n, err := c.Count(ctx, t.Name, "")
		if err != nil {
			return nil, err
		}
		return []datastore.Change{{Kind: datastore.RecreateTable, Table: t.Name, Rows: n}}, nil
	}
	var out []datastore.Change
	for _, name := range have {
		if t.Column(name) != nil || name == t.PrimaryKey {
			continue
		}
		n, err := c.Count(ctx, t.Name, name)
		if err != nil {
			return nil, err
		}
		out = append(out, datastore.Change{Kind: datastore.DropColumn, Table: t.Name, Column: name, Rows: n})
	}
	for _, col := range t.Columns {
		if !slices.Contains(have, col.Name) {
			out = append(out, datastore.Change{Kind: datastore.AddColumn, Table: t.Name, Column: col.Name})
		}
	}
	indexes, err := c.Indexes(ctx, t.Name)
	if err != nil {
		return nil, err
	}
	for _, ix := range sqlgen.Indexes(d, t) {
		if !slices.Contains(indexes, ix.Name) {
			out = append(out, datastore.Change{Kind: datastore.CreateIndex, Table: t.Name, Index: ix.Name})
		}
	}
	return out, nil
}

// CountQuery is the statement that counts the rows of table, or those
// holding a value in column when it is not "".
func CountQuery(d *sqlgen.Dialect, table, column string) string {
	q := "SELECT count(*) FROM " + d.Ident(table)
	if column != "" {
		q += " WHERE " + d.Ident(column) + " IS NOT NULL"
	}
	return q
}
