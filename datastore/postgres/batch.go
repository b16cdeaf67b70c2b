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
	stmts, err := s.queueReads(b, reads)
	if err != nil {
		return nil, fmt.Errorf("find batch: %w", err)
	}
	out, err = s.readBatch(ctx, b, stmts, func(i int) string { return reads[i].Query.Table.Name })
	if err != nil {
		return nil, fmt.Errorf("find batch: %w", err)
	}
	return out, nil
}

// queueReads queues on b the statement of each of reads and returns them.
func (s *session) queueReads(b *pgx.Batch, reads []datastore.Read) ([]sqlgen.Stmt, error) {
	stmts := make([]sqlgen.Stmt, len(reads))
	for i, r := range reads {
		var err error
		switch {
		case r.Through != nil:
			stmts[i], err = sqlgen.SelectThrough(s.d, r.Query, r.Through)
		case r.Joins != nil:
			stmts[i], err = sqlgen.SelectJoined(s.d, r.Query, r.Joins)
		default:
			stmts[i], err = sqlgen.Select(s.d, r.Query)
		}
		if err != nil {
			return nil, err
		}
		b.Queue(stmts[i].SQL, stmts[i].Args...)
	}
	return stmts, nil
}

// readBatch sends b, whose queued statements are stmts, in one round trip
// and returns each statement's rows. An error names the failing
// statement's table, table(i).
func (s *session) readBatch(ctx context.Context, b *pgx.Batch, stmts []sqlgen.Stmt, table func(i int) string) ([][]datastore.Record, error) {
	br := s.q.SendBatch(ctx, b)
	out, err := readResults(br, stmts, table)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readResults reads from br the rows of each of stmts, in order, leaving br
// open for any statement queued after them.
func readResults(br pgx.BatchResults, stmts []sqlgen.Stmt, table func(i int) string) ([][]datastore.Record, error) {
	out := make([][]datastore.Record, len(stmts))
	for i, st := range stmts {
		rows, err := br.Query()
		if err == nil {
			out[i], err = scan(rows, st.Columns, st.Nests...)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", table(i), err)
		}
	}
	return out, nil
}
