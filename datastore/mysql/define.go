package mysql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// keyString is the type of a string column in an index: InnoDB indexes no
// whole TEXT column, and 255 utf8mb4 characters (1,020 bytes) leave room
// for three of them in one index (3,072 bytes). Other strings are LONGTEXT.
const keyStringType = "VARCHAR(255)"

// Define implements datastore.Adapter. MigrateAlter creates missing tables,
// adds and drops columns (MySQL drops a dropped column from its indexes)
// and creates missing indexes, keeping rows; it leaves a column whose kind
// or type changed as it is and never changes the primary key. MySQL
// commits after each DDL statement, so a Define that fails halfway leaves
// the tables it did.
func (db *DB) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	if err := db.check(); err != nil {
		return err
	}
	return db.define(ctx, db.pool, tables, mode)
}

func (db *DB) define(ctx context.Context, q querier, tables []*datastore.Table, mode datastore.Migrate) error {
	switch mode {
	case datastore.MigrateSafe:
		return nil
	case datastore.MigrateDrop:
		for _, t := range tables {
			if err := db.exec(ctx, q, t, sqlgen.DropTable(db.d, t.Name)); err != nil {
				return err
			}
			if err := db.exec(ctx, q, t, db.createTable(t)); err != nil {
				return err
			}
			db.defined(t)
		}
		return nil
	case datastore.MigrateAlter:
		for _, t := range tables {
			if err := db.alter(ctx, q, t); err != nil {
				return err
			}
			db.defined(t)
		}
		return nil
	}
	return fmt.Errorf("define: unknown migrate strategy %q", mode)
}

func (db *DB) exec(ctx context.Context, q querier, t *datastore.Table, stmt string) error {
	if _, err := q.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("define %s: %w", t.Name, errors.Join(err, fmt.Errorf("in %s", stmt)))
	}
	return nil
}

// defined records that t has the indexes sqlgen.Indexes lists.
func (db *DB) defined(t *datastore.Table) {
	names := map[string]bool{}
	for _, ix := range sqlgen.Indexes(db.d, t) {
		names[ix.Name] = true
	}
	db.indexes.Store(t.Name, names)
}

// indexOn returns the name of an index Define made on t whose first column
// is col, or "" when it made none (or Define did not run: migrate safe).
func (db *DB) indexOn(t *datastore.Table, col string) string {
	v, ok := db.indexes.Load(t.Name)
	if !ok {
		return ""
	}
	made := v.(map[string]bool)
	for _, ix := range sqlgen.Indexes(db.d, t) {
		if made[ix.Name] && ix.Columns[0] == col {
			return ix.Name
		}
	}
	return ""
}

// indexed returns the columns of t that are in an index Define makes, the
// primary key included.
func indexed(d *sqlgen.Dialect, t *datastore.Table) map[string]bool {
	cols := map[string]bool{t.PrimaryKey: true}
	for _, ix := range sqlgen.Indexes(d, t) {
		for _, c := range ix.Columns {
			cols[c] = true
		}
	}
	for _, c := range t.Columns {
		if c.PrimaryKey {
			cols[c.Name] = true
		}
	}
	return cols
}

// columnType is the type Define gives c: sqlgen.ColumnType, but a bounded
// VARCHAR for a string column that is indexed.
func (db *DB) columnType(c *datastore.Column, keyed bool) string {
	typ := sqlgen.ColumnType(db.d, c)
	if keyed && typ == db.d.Types[datastore.String] && (c.Type == "" || strings.HasPrefix(c.Type, "_")) {
		return keyStringType
	}
	return typ
}

// columnDef is the definition of c in CREATE TABLE or ADD COLUMN.
func (db *DB) columnDef(t *datastore.Table, c *datastore.Column, keyed, create bool) string {
	def := db.d.Ident(c.Name) + " "
	pk := c.PrimaryKey || c.Name == t.PrimaryKey
	switch {
	case pk && c.AutoIncrement && create:
		return def + db.d.AutoIncrementPK
	case pk && create:
		return def + db.columnType(c, true) + " NOT NULL PRIMARY KEY"
	case c.NotNull && create:
		return def + db.columnType(c, keyed) + " NOT NULL"
	}
	// An added column allows NULL: existing rows would violate NOT NULL.
	return def + db.columnType(c, keyed) + " NULL"
}

// createTable returns the CREATE TABLE statement of t, its indexes
// included (MySQL has no CREATE INDEX IF NOT EXISTS).
func (db *DB) createTable(t *datastore.Table) string {
	keyed := indexed(db.d, t)
	var sb strings.Builder
	sb.WriteString("CREATE TABLE IF NOT EXISTS ")
	sb.WriteString(db.d.Ident(t.Name))
	sb.WriteString(" (")
	for i := range t.Columns {
		c := &t.Columns[i]
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(db.columnDef(t, c, keyed[c.Name], true))
	}
	for _, ix := range sqlgen.Indexes(db.d, t) {
		sb.WriteString(", ")
		sb.WriteString(db.indexDef(ix))
	}
	sb.WriteString(") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + db.collation)
	return sb.String()
}

// indexDef is the definition of ix in CREATE TABLE or ALTER TABLE ADD.
func (db *DB) indexDef(ix sqlgen.Index) string {
	var sb strings.Builder
	if ix.Plain {
		sb.WriteString("INDEX ")
	} else {
		sb.WriteString("UNIQUE INDEX ")
	}
	sb.WriteString(db.d.Ident(ix.Name))
	sb.WriteString(" (")
	for i, c := range ix.Columns {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(db.d.Ident(c))
	}
	sb.WriteString(")")
	return sb.String()
}

// The queries that read the schema as it is, for alter and Plan: a
// table's columns (none when it does not exist) and its indexes' names.
const (
	columnsQuery = `SELECT COLUMN_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
	indexesQuery = `SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
)

func (db *DB) alter(ctx context.Context, q querier, t *datastore.Table) error {
	have, err := db.names(ctx, q, columnsQuery, t.Name)
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	// Text columns, which need a bounded type before they can be indexed.
	texts, err := db.names(ctx, q, `SELECT COLUMN_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND DATA_TYPE IN ('tinytext', 'text', 'mediumtext', 'longtext')`, t.Name)
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	if len(have) == 0 {
		return db.exec(ctx, q, t, db.createTable(t))
	}
	indexes, err := db.names(ctx, q, indexesQuery, t.Name)
	if err != nil {
		return fmt.Errorf("define %s: %w", t.Name, err)
	}
	keyed := indexed(db.d, t)
	var changes []string
	for _, name := range have {
		if t.Column(name) == nil && name != t.PrimaryKey {
			changes = append(changes, "DROP COLUMN "+db.d.Ident(name))
		}
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if !slices.Contains(have, c.Name) {
			changes = append(changes, "ADD COLUMN "+db.columnDef(t, c, keyed[c.Name], false))
		}
	}
	for _, ix := range sqlgen.Indexes(db.d, t) {
		if slices.Contains(indexes, ix.Name) {
			continue
		}
		// A string column that became unique or indexed: InnoDB indexes
		// no whole text column, so it becomes a VARCHAR first (a longer
		// value already stored makes the ALTER fail, and says so).
		for _, name := range ix.Columns {
			if c := t.Column(name); c != nil && slices.Contains(texts, name) && db.columnType(c, true) == keyStringType {
				changes = append(changes, "MODIFY COLUMN "+db.columnDef(t, c, true, false))
				texts = slices.DeleteFunc(texts, func(s string) bool { return s == name })
			}
		}
		changes = append(changes, "ADD "+db.indexDef(ix))
	}
	if len(changes) == 0 {
		return nil
	}
	// One ALTER TABLE: MySQL rebuilds the table at most once.
	return db.exec(ctx, q, t, "ALTER TABLE "+db.d.Ident(t.Name)+" "+strings.Join(changes, ", "))
}

// names runs a query returning one string column.
func (db *DB) names(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
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
