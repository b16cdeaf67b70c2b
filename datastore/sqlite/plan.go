package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var _ datastore.Planner = (*DB)(nil)

// Plan implements datastore.Planner: the changes Define would make, read
// from the schema as it is (pragma_table_info, sqlite_master).
func (db *DB) Plan(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	r := runner{cache: db.reads}
	var out []datastore.Change
	for _, t := range tables {
		have, err := strings1(ctx, r, "SELECT name FROM pragma_table_info(?)", t.Name)
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
				if c.Rows, err = db.countWhere(ctx, r, t.Name, ""); err != nil {
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
			n, err := db.countWhere(ctx, r, t.Name, name)
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
		indexes, err := strings1(ctx, r, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", t.Name)
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

// countWhere counts the rows of table, or those holding a value in column
// when it is not "".
func (db *DB) countWhere(ctx context.Context, r runner, table, column string) (int64, error) {
	q := "SELECT count(*) FROM " + db.d.Ident(table)
	if column != "" {
		q += " WHERE " + db.d.Ident(column) + " IS NOT NULL"
	}
	rows, err := r.queryDDL(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("plan %s: %w", table, err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("plan %s: %w", table, err)
		}
	}
	return n, rows.Err()
}
