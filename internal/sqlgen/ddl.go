package sqlgen

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/datastore"
)

// Index is an index Define maintains for a table.
type Index struct {
	Name    string
	Columns []string
	// Plain marks a non-unique index (Column.Indexed).
	Plain bool
}

// Indexes lists every index t needs besides its primary key: the unique
// ones (UniqueIndexes), then a plain one per Indexed column that is not
// already the first column of a unique index. An Indexed column of a
// UniqueTogether set is followed in its index by the set's other columns,
// so that a join table read from either side (its pair unique one way, this
// index the other) needs only the index, already in order.
func Indexes(d *Dialect, t *datastore.Table) []Index {
	idx := UniqueIndexes(d, t)
	for _, c := range t.Columns {
		if !c.Indexed || c.PrimaryKey || c.Unique {
			continue
		}
		covered := false
		for _, ix := range idx {
			covered = covered || ix.Columns[0] == c.Name
		}
		if covered {
			continue
		}
		cols := []string{c.Name}
		for _, set := range t.UniqueTogether {
			if slices.Contains(set, c.Name) {
				for _, other := range set {
					if other != c.Name {
						cols = append(cols, other)
					}
				}
				break
			}
		}
		idx = append(idx, Index{Name: IndexName(d, t.Name, cols, "idx"), Columns: cols, Plain: true})
	}
	return idx
}

// UniqueIndexes lists the unique indexes t needs besides its primary key:
// one per Unique column, one per UniqueTogether set. Unique constraints are
// always separate named indexes, never inline column constraints, so that
// ALTER can add them to existing tables and drop their columns later (SQLite
// refuses DROP COLUMN on a column with an inline UNIQUE), and so that a
// violation's index name maps back to its columns.
func UniqueIndexes(d *Dialect, t *datastore.Table) []Index {
	var idx []Index
	for _, c := range t.Columns {
		if c.Unique && !c.PrimaryKey {
			idx = append(idx, Index{Name: IndexName(d, t.Name, []string{c.Name}, "key"), Columns: []string{c.Name}})
		}
	}
	for _, set := range t.UniqueTogether {
		if len(set) == 0 {
			continue
		}
		idx = append(idx, Index{Name: IndexName(d, t.Name, set, "key"), Columns: set})
	}
	return idx
}

// IndexName is the name of the index or constraint on table's columns:
// table_col1_col2_suffix, as PostgreSQL names its own, shortened with a
// hash when it exceeds the dialect's identifier limit.
func IndexName(d *Dialect, table string, cols []string, suffix string) string {
	name := table + "_" + strings.Join(cols, "_") + "_" + suffix
	if d.MaxIdent == 0 || len(name) <= d.MaxIdent {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	tail := fmt.Sprintf("_%08x_%s", h.Sum32(), suffix)
	head := name[:d.MaxIdent-len(tail)]
	// Do not cut a UTF-8 sequence in half.
	for len(head) > 0 && head[len(head)-1]&0xC0 == 0x80 {
		head = head[:len(head)-1]
	}
	if len(head) > 0 && head[len(head)-1]&0x80 != 0 {
		head = head[:len(head)-1]
	}
	return head + tail
}

// ColumnType is the SQL type Define gives c: its explicit Type when that
// does not start with "_" (Sails' internal column types), else the
// dialect's type for its kind.
func ColumnType(d *Dialect, c *datastore.Column) string {
	if c.Type != "" && !strings.HasPrefix(c.Type, "_") {
		return c.Type
	}
	if t, ok := d.Types[c.Kind]; ok {
		return t
	}
	return d.Types[datastore.String]
}

// CreateTable returns the statements creating t if it does not exist,
// unique indexes included.
func CreateTable(d *Dialect, t *datastore.Table) []string {
	var sb strings.Builder
	sb.WriteString("CREATE TABLE IF NOT EXISTS ")
	d.writeIdent(&sb, t.Name)
	sb.WriteString(" (")
	for i := range t.Columns {
		c := &t.Columns[i]
		if i > 0 {
			sb.WriteString(", ")
		}
		d.writeIdent(&sb, c.Name)
		sb.WriteByte(' ')
		pk := c.PrimaryKey || c.Name == t.PrimaryKey
		switch {
		case pk && c.AutoIncrement:
			sb.WriteString(d.AutoIncrementPK)
			if !strings.Contains(d.AutoIncrementPK, "PRIMARY KEY") {
				sb.WriteString(" PRIMARY KEY")
			}
		case pk:
			sb.WriteString(ColumnType(d, c))
			sb.WriteString(" NOT NULL PRIMARY KEY")
		default:
			sb.WriteString(ColumnType(d, c))
			if c.NotNull {
				sb.WriteString(" NOT NULL")
			}
		}
	}
	sb.WriteString(")")
	stmts := []string{sb.String()}
	for _, ix := range Indexes(d, t) {
		stmts = append(stmts, CreateIndex(d, t.Name, ix))
	}
	return stmts
}

// CreateIndex returns the statement creating the index ix on table if it
// does not exist.
func CreateIndex(d *Dialect, table string, ix Index) string {
	var sb strings.Builder
	if ix.Plain {
		sb.WriteString("CREATE INDEX IF NOT EXISTS ")
	} else {
		sb.WriteString("CREATE UNIQUE INDEX IF NOT EXISTS ")
	}
	d.writeIdent(&sb, ix.Name)
	sb.WriteString(" ON ")
	d.writeIdent(&sb, table)
	sb.WriteString(" (")
	for i, c := range ix.Columns {
		if i > 0 {
			sb.WriteString(", ")
		}
		d.writeIdent(&sb, c)
	}
	sb.WriteString(")")
	return sb.String()
}

// AddColumn returns the statement adding c to table. NOT NULL is left out:
// existing rows would violate it.
func AddColumn(d *Dialect, table string, c *datastore.Column) string {
	return "ALTER TABLE " + d.Ident(table) + " ADD COLUMN " + d.Ident(c.Name) + " " + ColumnType(d, c)
}

// DropColumn returns the statement dropping column from table.
func DropColumn(d *Dialect, table, column string) string {
	return "ALTER TABLE " + d.Ident(table) + " DROP COLUMN " + d.Ident(column)
}

// DropIndex returns the statement dropping the index named name.
func DropIndex(d *Dialect, name string) string {
	return "DROP INDEX IF EXISTS " + d.Ident(name)
}

// DropTable returns the statement dropping table if it exists.
func DropTable(d *Dialect, table string) string {
	return "DROP TABLE IF EXISTS " + d.Ident(table)
}
