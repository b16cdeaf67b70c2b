package main

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/skiffhq/skiff/internal/sqliteconn"
)

// sqliteStore uses Skiff's SQLite settings (datastore/sqlite.Open): one
// write connection in WAL mode, a read pool of max(4, 2×GOMAXPROCS)
// query-only connections, all in SQLite's multi-thread mode
// (internal/sqliteconn), and prepared statements.
type sqliteStore struct {
	one, list, insert, owner *sql.Stmt
}

func openSQLite(ctx context.Context, path string) (*sqliteStore, error) {
	name := "file:" + path + "?"
	common := "_busy_timeout=10000&_foreign_keys=0&_synchronous=NORMAL&_dqs=0"
	write := sqliteconn.OpenDB(name + "_journal_mode=WAL&_txlock=immediate&_pragma=cache_size(-512)&" + common)
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	read := sqliteconn.OpenDB(name + "_query_only=1&" + common)
	n := max(4, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	s := &sqliteStore{}
	for _, p := range []struct {
		db  *sql.DB
		dst **sql.Stmt
		sql string
	}{
		{read, &s.one, `SELECT ` + columns + ` FROM "pet" p LEFT JOIN "user" u ON u."id" = p."owner" WHERE p."id" = ?`},
		{read, &s.list, `SELECT ` + columns + ` FROM "pet" p LEFT JOIN "user" u ON u."id" = p."owner" ORDER BY p."id" LIMIT ?`},
		{write, &s.insert, `INSERT INTO "pet" ("name", "owner", "species", "vaccinated", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?) RETURNING "id"`},
		{read, &s.owner, `SELECT "id", "age", "email", "name", "createdAt", "updatedAt" FROM "user" WHERE "id" = ?`},
	} {
		stmt, err := p.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return nil, fmt.Errorf("prepare %s: %w", p.sql, err)
		}
		*p.dst = stmt
	}
	return s, nil
}

// scanner is what sql.Rows, sql.Row and pgx.Rows have in common.
type scanner interface{ Scan(dest ...any) error }

// scanPet reads a row of columns into p.
func scanPet(sc scanner, p *pet) error {
	var (
		owner, uid, uc, uu *int64
		age                *float64
		email, uname       *string
		species            *string
		vaccinated         *bool
	)
	if err := sc.Scan(&p.id, &p.name, &owner, &species, &vaccinated, &p.createdAt, &p.updatedAt,
		&uid, &age, &email, &uname, &uc, &uu); err != nil {
		return err
	}
	p.species, p.vaccinated = deref(species), deref(vaccinated)
	p.hasOwner = uid != nil
	if p.hasOwner {
		p.owner = user{id: *uid, createdAt: deref(uc), updatedAt: deref(uu), email: deref(email), name: deref(uname)}
		p.owner.hasAge = age != nil
		p.owner.age = deref(age)
	}
	return nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (s *sqliteStore) pet(ctx context.Context, id int64, p *pet) (bool, error) {
	err := scanPet(s.one.QueryRowContext(ctx, id), p)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

func (s *sqliteStore) pets(ctx context.Context, limit int, each func(p *pet)) error {
	rows, err := s.list.QueryContext(ctx, limit)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachPet(rows, each)
}

func (s *sqliteStore) create(ctx context.Context, p *pet) error {
	var owner any
	if p.hasOwner {
		owner = p.owner.id
	}
	// The rows are read to their end before they are closed: closed after
	// its one row, the statement was left unfinished, and no checkpoint
	// could complete while the load ran (the WAL grew to 440 MB in 4 s of
	// creates, which the next writer to the file, Skiff in bench/floor.sh,
	// then had to checkpoint).
	rows, err := s.insert.QueryContext(ctx, p.name, owner, p.species, p.vaccinated, p.createdAt, p.updatedAt)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := rows.Scan(&p.id); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if p.hasOwner {
		return scanOwner(s.owner.QueryRowContext(ctx, p.owner.id), p)
	}
	return nil
}

// scanOwner reads the owner of a created pet; one that does not exist
// leaves it null, as Skiff populates it.
func scanOwner(sc scanner, p *pet) error {
	u := &p.owner
	var age *float64
	err := sc.Scan(&u.id, &age, &u.email, &u.name, &u.createdAt, &u.updatedAt)
	if err == sql.ErrNoRows || err == pgx.ErrNoRows {
		p.hasOwner = false
		return nil
	}
	u.hasAge, u.age = age != nil, deref(age)
	return err
}

// pgStore uses a pgxpool with its defaults, as Skiff's adapter does;
// pgx prepares and caches each statement per connection.
type pgStore struct{ pool *pgxpool.Pool }

func openPostgres(ctx context.Context, url string) (*pgStore, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	return &pgStore{pool: pool}, pool.Ping(ctx)
}

func (s *pgStore) pet(ctx context.Context, id int64, p *pet) (bool, error) {
	err := scanPet(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM "pet" p LEFT JOIN "user" u ON u."id" = p."owner" WHERE p."id" = $1`, id), p)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

func (s *pgStore) pets(ctx context.Context, limit int, each func(p *pet)) error {
	rows, err := s.pool.Query(ctx, `SELECT `+columns+` FROM "pet" p LEFT JOIN "user" u ON u."id" = p."owner" ORDER BY p."id" LIMIT $1`, limit)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachPet(rows, each)
}

func (s *pgStore) create(ctx context.Context, p *pet) error {
	var owner any
	if p.hasOwner {
		owner = p.owner.id
	}
	if err := s.pool.QueryRow(ctx, `INSERT INTO "pet" ("name", "owner", "species", "vaccinated", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6) RETURNING "id"`,
		p.name, owner, p.species, p.vaccinated, p.createdAt, p.updatedAt).Scan(&p.id); err != nil {
		return err
	}
	if p.hasOwner {
		return scanOwner(s.pool.QueryRow(ctx, `SELECT "id", "age", "email", "name", "createdAt", "updatedAt" FROM "user" WHERE "id" = $1`, p.owner.id), p)
	}
	return nil
}

// petRows is what database/sql's and pgx's rows both offer.
type petRows interface {
	scanner
	Next() bool
	Err() error
}

// eachPet scans every row into one reused pet and hands it to each.
func eachPet(rows petRows, each func(p *pet)) error {
	var p pet
	for rows.Next() {
		if err := scanPet(rows, &p); err != nil {
			return err
		}
		each(&p)
	}
	return rows.Err()
}
