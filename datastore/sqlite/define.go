package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// Define implements datastore.Adapter in one transaction. MigrateAlter
// creates missing tables, adds missing columns, drops columns no longer
// described (after dropping the indexes that use them) and creates missing
// unique indexes; rows are kept. It leaves a column whose kind or type
// changed as it is, and never changes the primary key.
func (db *DB) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	if err := db.check(); err != nil {
		return err
	}
	if mode == datastore.MigrateSafe {
		return nil
	}
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return tx.Define(ctx, tables, mode)
	})
	// Cached statements may name dropped columns.
	db.reads.forget()
	db.writes.forget()
	return err
}

func define(ctx context.Context, d *sqlgen.Dialect, r runner, tables []*datastore.Table, mode datastore.Migrate) error {
	switch mode {
	case datastore.MigrateSafe:
		return nil
	case datastore.MigrateDrop:
		for _, t := range tables {
			if err := r.execDDL(ctx, sqlgen.DropTable(d, t.Name)); err != nil {
				return fmt.Errorf("define %s: %w", t.Name, err)
			}
			if err := createTable(ctx, d, r, t); err != nil {
				return err
			}
		}
		return nil
	case datastore.MigrateAlter:
		for _, t := range tables {
			if err := alter(ctx, d, r, t); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("define: unknown migrate strategy %q", mode)
}

func createTable(ctx context.Context, d *sqlgen.Dialect, r runner, t *datastore.Table) error {
	for _, s := range sqlgen.CreateTable(d, t) {
		if err := r.execDDL(ctx, s); err != nil {
			return fmt.Errorf("define %s: %w", t.Name, err)
		}
	}
	return nil
}

func alter(ctx context.Context, d *sqlgen.Dialect, r runner, t *datastore.Table) error {
	have, err := strings1(ctx, r, "SELECT name FROM pragma_table_info(?)", t.Name)
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	if len(have) == 0 {
		return createTable(ctx, d, r, t)
	}
	for _, name := range have {
		if t.Column(name) != nil || name == t.PrimaryKey {
			continue
		}
		if err := dropIndexesOn(ctx, d, r, t.Name, name); err != nil {
			return err
		}
		if err := r.execDDL(ctx, sqlgen.DropColumn(d, t.Name, name)); err != nil {
			return fmt.Errorf("define %s: drop column %s: %w", t.Name, name, err)
		}
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if slices.Contains(have, c.Name) {
			continue
		}
		if err := r.execDDL(ctx, sqlgen.AddColumn(d, t.Name, c)); err != nil {
			return fmt.Errorf("define %s: add column %s: %w", t.Name, c.Name, err)
		}
	}
	for _, ix := range sqlgen.Indexes(d, t) {
		if err := r.execDDL(ctx, sqlgen.CreateIndex(d, t.Name, ix)); err != nil {
			return fmt.Errorf("define %s: index on %v: %w", t.Name, ix.Columns, err)
		}
	}
	return nil
}

// dropIndexesOn drops the explicitly created indexes that use column, which
// SQLite requires before DROP COLUMN.
func dropIndexesOn(ctx context.Context, d *sqlgen.Dialect, r runner, table, column string) error {
	names, err := strings1(ctx, r,
		`SELECT il.name FROM pragma_index_list(?) AS il, pragma_index_info(il.name) AS ii
		 WHERE il.origin = 'c' AND ii.name = ?`, table, column)
	if err != nil {
		return fmt.Errorf("define %s: %w", table, err)
	}
	for _, n := range names {
		if err := r.execDDL(ctx, sqlgen.DropIndex(d, n)); err != nil {
			return fmt.Errorf("define %s: drop index %s: %w", table, n, err)
		}
	}
	return nil
}

// strings1 returns the first column of every row of a query.
func strings1(ctx context.Context, r runner, query string, args ...any) ([]string, error) {
	rows, err := r.queryDDL(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
