package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// FindBatch implements datastore.BatchFinder on the pool.
func (db *DB) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindBatch(ctx, reads)
}

// FindBatch implements datastore.BatchFinder with one pgx batch: the
// SELECTs travel together and their results come back together, one round
// trip in all. Outside a transaction PostgreSQL runs a batch as one
// implicit transaction, which for reads changes nothing but the snapshot
// timing the contract leaves open.
func (s *session) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	out := make([][]datastore.Record, len(reads))
	if len(reads) == 0 {
		return out, nil
	}
	b := &pgx.Batch{}
	stmts := make([]sqlgen.Stmt, len(reads))
	for i, r := range reads {
		var err error
		if r.Through == nil {
			stmts[i], err = sqlgen.Select(s.d, r.Query)
		} else {
			stmts[i], err = sqlgen.SelectThrough(s.d, r.Query, r.Through)
		}
		if err != nil {
			return nil, fmt.Errorf("find batch: %w", err)
		}
		b.Queue(stmts[i].SQL, stmts[i].Args...)
	}
	br := s.q.SendBatch(ctx, b)
	for i := range reads {
		rows, err := br.Query()
		if err == nil {
			out[i], err = scan(rows, stmts[i].Columns)
		}
		if err != nil {
			br.Close()
			return nil, fmt.Errorf("find batch: %s: %w", reads[i].Query.Table.Name, err)
		}
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("find batch: %w", err)
	}
	return out, nil
}
