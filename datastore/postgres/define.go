package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// Define brings the schema in line inside the session's transaction; see
// DB.Define.
func (s *session) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	if s.tx == nil {
		return s.db.Define(ctx, tables, mode)
	}
	switch mode {
	case datastore.MigrateSafe:
		return nil
	case datastore.MigrateDrop:
		for _, t := range tables {
			if _, err := s.q.Exec(ctx, sqlgen.DropTable(s.d, t.Name)); err != nil {
				return fmt.Errorf("define %s: %w", t.Name, err)
			}
			if err := s.createTable(ctx, t); err != nil {
				return err
			}
		}
		return nil
	case datastore.MigrateAlter:
		for _, t := range tables {
			if err := s.alter(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("define: unknown migrate strategy %q", mode)
}

func (s *session) createTable(ctx context.Context, t *datastore.Table) error {
	for _, st := range sqlgen.CreateTable(s.d, t) {
		if _, err := s.q.Exec(ctx, st); err != nil {
			return fmt.Errorf("define %s: %w", t.Name, err)
		}
	}
	return nil
}

func (s *session) alter(ctx context.Context, t *datastore.Table) error {
	rows, err := s.q.Query(ctx, `SELECT column_name::text FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, t.Name)
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	if len(have) == 0 {
		return s.createTable(ctx, t)
	}
	var stmts []string
	for _, name := range have {
		if t.Column(name) == nil && name != t.PrimaryKey {
			stmts = append(stmts, sqlgen.DropColumn(s.d, t.Name, name))
		}
	}
	for i := range t.Columns {
		if !slices.Contains(have, t.Columns[i].Name) {
			stmts = append(stmts, sqlgen.AddColumn(s.d, t.Name, &t.Columns[i]))
		}
	}
	for _, ix := range sqlgen.Indexes(s.d, t) {
		stmts = append(stmts, sqlgen.CreateIndex(s.d, t.Name, ix))
	}
	for _, st := range stmts {
		if _, err := s.q.Exec(ctx, st); err != nil {
			return fmt.Errorf("define %s: %w", t.Name, errors.Join(err, fmt.Errorf("in %s", st)))
		}
	}
	return nil
}
