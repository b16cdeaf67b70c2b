package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// classify turns a unique violation (SQLSTATE 23505) into
// *datastore.UniqueError. The columns come from the violated index's name,
// which Define derives from them (sqlgen.UniqueIndexes), else from the
// primary key's constraint name, else from the error's detail
// "Key (a, b)=(...) already exists.".
func classify(op string, d *sqlgen.Dialect, t *datastore.Table, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return fmt.Errorf("%s %s: %w", op, t.Name, err)
	}
	ue := &datastore.UniqueError{Table: t.Name, Err: err}
	for _, ix := range sqlgen.UniqueIndexes(d, t) {
		if ix.Name == pe.ConstraintName {
			ue.Columns = append([]string(nil), ix.Columns...)
			return ue
		}
	}
	if pe.ConstraintName == t.Name+"_pkey" || pe.ConstraintName == sqlgen.IndexName(d, t.Name, nil, "pkey") {
		ue.Columns = []string{t.PrimaryKey}
		return ue
	}
	ue.Columns = detailColumns(pe.Detail)
	return ue
}

// detailColumns reads the column list of "Key (a, "b c")=(...) ...".
func detailColumns(detail string) []string {
	rest, ok := strings.CutPrefix(detail, "Key (")
	if !ok {
		return nil
	}
	end := strings.Index(rest, ")=(")
	if end < 0 {
		return nil
	}
	var cols []string
	for _, part := range strings.Split(rest[:end], ", ") {
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			part = strings.ReplaceAll(part[1:len(part)-1], `""`, `"`)
		}
		cols = append(cols, part)
	}
	return cols
}
