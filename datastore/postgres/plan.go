package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var _ datastore.Planner = (*DB)(nil)

// Plan implements datastore.Planner: the changes Define would make, read
// from the current schema (information_schema.columns, pg_indexes).
func (db *DB) Plan(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	var out []datastore.Change
	for _, t := range tables {
		have, err := db.names(ctx, `SELECT column_name::text FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1`, t.Name)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", t.Name, err)
		}
		switch mode {
		case datastore.MigrateSafe:
			continue
		case datastore.MigrateDrop:
			c := datastore.Change{Kind: datastore.CreateTable, Table: t.Name}
			if len(have) > 0 {
				c.Kind = datastore.RecreateTable
				if c.Rows, err = db.countWhere(ctx, t.Name, ""); err != nil {
					return nil, err
				}
			}
			out = append(out, c)
			continue
		case datastore.MigrateAlter:
		default:
			return nil, fmt.Errorf("plan: unknown migrate strategy %q", mode)
		}
		if len(have) == 0 {
			out = append(out, datastore.Change{Kind: datastore.CreateTable, Table: t.Name})
			continue
		}
		for _, name := range have {
			if t.Column(name) != nil || name == t.PrimaryKey {
				continue
			}
			n, err := db.countWhere(ctx, t.Name, name)
			if err != nil {
				return nil, err
			}
			out = append(out, datastore.Change{Kind: datastore.DropColumn, Table: t.Name, Column: name, Rows: n})
		}
		for _, c := range t.Columns {
			if !slices.Contains(have, c.Name) {
				out = append(out, datastore.Change{Kind: datastore.AddColumn, Table: t.Name, Column: c.Name})
			}
		}
		indexes, err := db.names(ctx, `SELECT indexname::text FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = $1`, t.Name)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", t.Name, err)
		}
		for _, ix := range sqlgen.Indexes(db.d, t) {
			if !slices.Contains(indexes, ix.Name) {
				out = append(out, datastore.Change{Kind: datastore.CreateIndex, Table: t.Name, Index: ix.Name})
			}
		}
	}
	return out, nil
}

func (db *DB) names(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// countWhere counts the rows of table, or those holding a value in column
// when it is not "".
func (db *DB) countWhere(ctx context.Context, table, column string) (int64, error) {
	q := "SELECT count(*) FROM " + db.d.Ident(table)
	if column != "" {
		q += " WHERE " + db.d.Ident(column) + " IS NOT NULL"
	}
	var n int64
	if err := db.pool.QueryRow(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("plan %s: %w", table, err)
	}
	return n, nil
}
