package sqlgen

import (
	"database/sql/driver"
	"fmt"
	"io"

	"github.com/skiffhq/skiff/datastore"
)

// Aliases of the tables SelectJoined reads: the query's own, and the
// joined ones, numbered. Aliases are needed since a table can be joined
// to itself (user.bestFriend); the prefix keeps them apart from table
// names.
const (
	rowAlias  = "__skiff_t"
	joinAlias = "__skiff_j"
)

// joinAliases are the aliases of the first joins, spelled out so that
// building a statement allocates none for them.
var joinAliases = [...]string{joinAlias + "0", joinAlias + "1", joinAlias + "2", joinAlias + "3"}

func aliasOf(i int) string {
	if i < len(joinAliases) {
		return joinAliases[i]
	}
	return fmt.Sprintf("%s%d", joinAlias, i)
}

// Nest is where the columns of one joined row sit in the result rows of a
// statement of SelectJoined (and of the guarded inserts' RETURNING).
type Nest = datastore.Nest

// NestedRecord returns the record of one result row of a statement with
// nests, given the decoded values of all its columns (vals, in the order
// of cols): the query's own columns, and under each nest's Key its joined
// row, or nil when none was joined (see datastore.JoinFinder).
func NestedRecord(cols []*datastore.Column, nests []Nest, vals []any) datastore.Record {
	own := nests[0].From
	rec := make(datastore.Record, own+len(nests))
	for i, c := range cols[:own] {
		rec[c.Name] = vals[i]
	}
	for _, n := range nests {
		if vals[n.PK] == nil {
			rec[n.Key] = nil
			continue
		}
		sub := make(datastore.Record, n.To-n.From)
		for i := n.From; i < n.To; i++ {
			sub[cols[i].Name] = vals[i]
		}
		rec[n.Key] = sub
	}
	return rec
}

// RowRecord returns the record of one result row whose columns are cols,
// joined rows nested as nests say (see NestedRecord). value returns column
// i's value decoded; vals, of len(cols), holds the decoded values meanwhile
// when there are nests (nil when not), so that a scan reuses it row after
// row. Every adapter's scans build their records with it.
func RowRecord(cols []*datastore.Column, nests []Nest, vals []any, value func(i int) (any, error)) (datastore.Record, error) {
	if len(nests) == 0 {
		rec := make(datastore.Record, len(cols))
		for i, c := range cols {
			v, err := value(i)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
			rec[c.Name] = v
		}
		return rec, nil
	}
	for i, c := range cols {
		v, err := value(i)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		vals[i] = v
	}
	return NestedRecord(cols, nests, vals), nil
}

// DriverRecords reads every row left of rows, a driver's own rows (read
// past database/sql, which copies and boxes each value again), whose
// columns are cols, joined rows nested as nests say. Each row is read into
// dest, of len(cols), and column i's value decoded with decode. maxRows is
// the statement's Stmt.MaxRows: the list starts with room for that many
// records (up to maxPresized), so that a page is not copied as it grows.
func DriverRecords(rows driver.Rows, dest []driver.Value, cols []*datastore.Column, nests []Nest, maxRows int64, decode func(k datastore.Kind, v any) (any, error)) ([]datastore.Record, error) {
	var vals []any
	if len(nests) > 0 {
		vals = make([]any, len(cols))
	}
	value := func(i int) (any, error) { return decode(cols[i].Kind, dest[i]) }
	out := make([]datastore.Record, 0, min(max(maxRows, 0), maxPresized))
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		rec, err := RowRecord(cols, nests, vals, value)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// maxPresized is the most records DriverRecords makes room for ahead:
// pages of up to it (Sails' default limit is 30) are read into one
// allocation, and a large LIMIT that few rows meet costs no large one.
const maxPresized = 100

// SelectRows compiles the read of a datastore.RowFinder: q with joins
// (SelectJoined), or without any, as Find reads it (Select).
func SelectRows(d *Dialect, q *datastore.Query, joins []datastore.Join) (Stmt, error) {
	if len(joins) == 0 {
		return Select(d, q)
	}
	return SelectJoined(d, q, joins)
}

// SelectJoined compiles q reading, with each of its rows, the row of each
// join's table whose primary key equals the join's column (a LEFT JOIN):
// the result rows hold q's columns (q.Select, or all), then every column
// of each joined table in turn, and the statement's Nests say where (see
// datastore.JoinFinder). Order, Skip and Limit are q's: a primary key
// matches one row at most, so joining adds no rows.
func SelectJoined(d *Dialect, q *datastore.Query, joins []datastore.Join) (Stmt, error) {
	if len(joins) > 0 {
		if st, ok := d.reads.stmt(d, q, joins, nil); ok {
			return st, nil
		}
	}
	b, err := newBuilder(d, q.Table)
	if err != nil {
		return Stmt{}, err
	}
	if q.Limit < 0 || q.Skip < 0 {
		return Stmt{}, fmt.Errorf("select %s: negative limit or skip", q.Table.Name)
	}
	if q.PartitionBy != "" {
		return Stmt{}, fmt.Errorf("select %s: partition by %q is not supported with joins", q.Table.Name, q.PartitionBy)
	}
	if len(joins) == 0 {
		return Select(d, q)
	}
	cols, err := b.columns(q.Select)
	if err != nil {
		return Stmt{}, err
	}
	out := cols[:len(cols):len(cols)]
	nests := make([]Nest, len(joins))
	var keysBuf [4]*datastore.Column
	keys := keysBuf[:]
	if len(joins) > len(keysBuf) {
		keys = make([]*datastore.Column, len(joins))
	}
	keys = keys[:len(joins)]
	for i, j := range joins {
		if j.Table == nil {
			return Stmt{}, fmt.Errorf("select %s: join on %q without a table", q.Table.Name, j.Column)
		}
		if keys[i], err = b.column(j.Column); err != nil {
			return Stmt{}, err
		}
		for _, k := range joins[:i] {
			if k.Column == j.Column {
				return Stmt{}, fmt.Errorf("select %s: column %q joined twice", q.Table.Name, j.Column)
			}
		}
		n := Nest{Key: j.Column, From: len(out), PK: -1}
		for k := range j.Table.Columns {
			c := &j.Table.Columns[k]
			if c.Name == j.Table.PrimaryKey {
				n.PK = len(out)
			}
			out = append(out, c)
		}
		if n.PK < 0 {
			return Stmt{}, fmt.Errorf("select %s: joined table %s has no primary key column", q.Table.Name, j.Table.Name)
		}
		n.To = len(out)
		nests[i] = n
	}
	b.str("SELECT ")
	b.qual = rowAlias
	b.tableResultList(q.Table, cols)
	for i, j := range joins {
		b.str(", ")
		b.qual = aliasOf(i)
		b.tableResultList(j.Table, out[nests[i].From:nests[i].To])
	}
	b.str(" FROM ")
	b.ident(q.Table.Name)
	b.str(" AS ")
	b.ident(rowAlias)
	for i, j := range joins {
		b.str(" LEFT JOIN ")
		b.ident(j.Table.Name)
		b.str(" AS ")
		b.ident(aliasOf(i))
		b.str(" ON ")
		b.ident(aliasOf(i))
		b.str(".")
		b.ident(j.Table.PrimaryKey)
		b.str(" = ")
		b.ident(rowAlias)
		b.str(".")
		b.ident(keys[i].Name)
	}
	b.qual = rowAlias
	if err := b.whereClause(q.Where); err != nil {
		return Stmt{}, err
	}
	b.str(" ")
	if err := b.orderBy(q.Sort); err != nil {
		return Stmt{}, err
	}
	b.qual = ""
	b.page(q.Skip, q.Limit)
	st := b.stmt(out)
	st.Nests = nests
	st.MaxRows = pageRows(q.Limit)
	d.reads.put(d, q, joins, nil, st)
	return st, nil
}

// DriverRows is DriverRecords handing each row to each (see
// datastore.RowFinder) instead of making it a record. The Row and its
// values are reused from row to row.
func DriverRows(rows driver.Rows, dest []driver.Value, cols []*datastore.Column, nests []Nest, decode func(k datastore.Kind, v any) (any, error), each func(*datastore.Row) error) error {
	row := &datastore.Row{Columns: cols, Nests: nests, Values: make([]any, len(cols))}
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for i, c := range cols {
			v, err := decode(c.Kind, dest[i])
			if err != nil {
				return fmt.Errorf("column %s: %w", c.Name, err)
			}
			row.Values[i] = v
		}
		if err := each(row); err != nil {
			return err
		}
	}
}

// DecodeRow decodes, in place, the values of row as scanned from
// database/sql (as Decode does for a record's).
func DecodeRow(row *datastore.Row) error {
	for i, c := range row.Columns {
		v, err := Decode(c.Kind, row.Values[i])
		if err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
		row.Values[i] = v
	}
	return nil
}

// RecordOf returns the record Find (or FindJoined, with nests) makes of
// row: its own columns, and under each nest's Key its joined row or nil.
func RecordOf(row *datastore.Row) datastore.Record {
	if len(row.Nests) > 0 {
		return NestedRecord(row.Columns, row.Nests, row.Values)
	}
	rec := make(datastore.Record, len(row.Columns))
	for i, c := range row.Columns {
		rec[c.Name] = row.Values[i]
	}
	return rec
}
