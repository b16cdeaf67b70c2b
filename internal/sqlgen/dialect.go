// Package sqlgen compiles datastore queries into parameterised SQL for the
// SQL adapters (SQLite, PostgreSQL, and later MySQL). Every value becomes a
// parameter (but a LIMIT count, an integer, where Dialect.LiteralLimit
// asks) and every identifier is quoted, so no client input is ever spliced
// into SQL text. It knows nothing of connections or drivers.
package sqlgen

import (
	"strings"

	"github.com/skiffhq/skiff/datastore"
)

// Dialect describes how one SQL engine spells what sqlgen emits. Values are
// built by SQLite and Postgres; a MySQL dialect is one more constructor. A
// Dialect is read-only after construction and safe for concurrent use.
type Dialect struct {
	// Name identifies the engine in errors and golden files.
	Name string
	// Numbered selects $1, $2, ... placeholders instead of ?.
	Numbered bool
	// Quote is the identifier quote character (" or `); a Quote inside an
	// identifier is doubled.
	Quote byte
	// Returning reports INSERT/UPDATE/DELETE ... RETURNING support. Without
	// it adapters re-select the affected rows themselves.
	Returning bool
	// Glob makes Like compile to a GLOB match (SQLite: LIKE ignores ASCII
	// case there, GLOB does not). Otherwise Like compiles to LIKE with
	// LikeEscape.
	Glob bool
	// LikeEscape is the ESCAPE clause's string literal naming backslash.
	LikeEscape string
	// NullsClause asks for explicit NULLS FIRST/LAST so that NULL sorts as
	// the lowest value on every engine (SQLite's and MySQL's default).
	NullsClause bool
	// OffsetOnlyLimit is the LIMIT to write when only OFFSET is wanted, for
	// engines that reject a bare OFFSET; empty means OFFSET may stand alone.
	OffsetOnlyLimit string
	// LikeCast is the type non-text columns are cast to before LIKE; empty
	// means the engine converts implicitly.
	LikeCast string
	// BinaryLike compares both sides of LIKE as bytes (MySQL: CAST(... AS
	// BINARY)), so that the match is case-sensitive whatever the column's
	// collation, and no non-text column is converted with a warning.
	BinaryLike bool
	// UnionJoin makes SelectUnion join its keys as a derived table
	// instead of testing them with IN (subquery): MariaDB runs such an IN
	// as a subquery per row of a full scan, and a locking read then locks,
	// or waits for, every row it scans.
	UnionJoin bool
	// RealIntegers reads Integer columns of the default type as REAL
	// (CAST(c AS REAL)) in the rows a statement returns, so that the driver
	// hands over the float64 the contract wants: database/sql boxes each
	// driver value, and converting the boxed int64 afterwards allocated a
	// second box per number. The engine's conversion is C's (double), the
	// same rounding as Go's float64(int64). Only the default type: a
	// column of an explicit type may hold text that is not a number, which
	// CAST would turn into 0.
	RealIntegers bool
	// Types maps a column kind to its default column type.
	Types map[datastore.Kind]string
	// AutoIncrementPK is the full column definition suffix (after the name)
	// of an auto-increment primary key.
	AutoIncrementPK string
	// MaxIdent is the longest identifier the engine keeps (0: no limit);
	// generated index names are shortened to fit.
	MaxIdent int
	// ArrayIn binds the parent keys of a join through a join table
	// (SelectThrough) as one array parameter (= ANY($n)) instead of a list
	// of parameters. PostgreSQL evaluates IN ($1, ..., $n) of a cached
	// (generic) plan by building the array anew for every join row it
	// filters; on a populated page of 300 children (LIMIT written as a
	// number) the join took 10-20 % less of the server's time with the
	// array, whether or not the tables had statistics. Other
	// IN lists stay lists: on a small table without statistics PostgreSQL
	// keeps planning a list for its values, hashes it, and beats the
	// generic plan of an array parameter, which compares each row with
	// every element.
	ArrayIn bool
	// LiteralLimit writes a LIMIT count as a number instead of a parameter
	// (it is an int64, never text from a client). PostgreSQL plans a cached
	// statement once for every parameter value (a generic plan) and takes a
	// parameterised LIMIT to keep a tenth of the rows, so it favours plans
	// that start fast over plans that finish first: a key lookup per child
	// instead of one hash join, twice the time for the 300 children of a
	// populated page. Each distinct limit is one more cached statement;
	// limits take few values.
	LiteralLimit bool
	// JSON selects how a key inside a JSON column is read (criteria.Cmp
	// and criteria.Sort with a Key) and how a Merge column is updated.
	JSON JSONStyle
	// texts keeps the SQL texts compiled so far (nil: none are kept).
	texts *textCache
	// lists keeps the result lists of tables' every column (nil: none
	// are kept).
	lists *listCache
	// guarded keeps the guarded insertions compiled so far, per shape
	// (nil: none are kept).
	guarded *guardedCache
	// reads keeps the commonest reads compiled so far, per shape (nil:
	// none are kept).
	reads *readCache
}

// JSONStyle is an engine's way of reaching into JSON columns.
type JSONStyle uint8

// The JSON styles sqlgen can emit.
const (
	// JSONFunctions uses SQLite's json_extract, json_type and json_set
	// with a $."key" path, on JSON stored as text.
	JSONFunctions JSONStyle = iota + 1
	// JSONBOperators uses PostgreSQL's jsonb operators ->, ->> and || and
	// jsonb_typeof.
	JSONBOperators
	// JSONMySQL uses the JSON functions MySQL 8 and MariaDB 10.5+ share
	// (JSON_EXTRACT, JSON_UNQUOTE, JSON_TYPE, JSON_SET) with a $."key"
	// path, on a JSON column (MySQL) or JSON text (MariaDB).
	JSONMySQL
)

// MySQL returns the dialect of MySQL 8.0 and MariaDB 10.5 or later: no
// RETURNING (adapters read the rows back), backquoted identifiers, ?
// placeholders. Types is what Define uses; the adapter gives indexed
// string columns a bounded VARCHAR instead (see datastore/mysql).
func MySQL() *Dialect {
	return &Dialect{
		texts:           newTextCache(),
		lists:           newListCache(),
		guarded:         newGuardedCache(),
		reads:           newReadCache(),
		Name:            "mysql",
		Quote:           '`',
		LikeEscape:      `'\\'`,
		BinaryLike:      true,
		UnionJoin:       true,
		OffsetOnlyLimit: "18446744073709551615",
		Types: map[datastore.Kind]string{
			datastore.String:  "LONGTEXT",
			datastore.Number:  "DOUBLE",
			datastore.Integer: "BIGINT",
			datastore.Boolean: "BOOLEAN",
			datastore.JSON:    "JSON",
		},
		AutoIncrementPK: "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
		MaxIdent:        64,
		JSON:            JSONMySQL,
	}
}

// SQLite returns the dialect of SQLite 3.35 or later (RETURNING, DROP
// COLUMN, window functions).
func SQLite() *Dialect {
	return &Dialect{
		texts:           newTextCache(),
		lists:           newListCache(),
		guarded:         newGuardedCache(),
		reads:           newReadCache(),
		Name:            "sqlite",
		Quote:           '"',
		Returning:       true,
		Glob:            true,
		LikeEscape:      `'\'`,
		OffsetOnlyLimit: "-1",
		RealIntegers:    true,
		Types: map[datastore.Kind]string{
			datastore.String:  "TEXT",
			datastore.Number:  "REAL",
			datastore.Integer: "INTEGER",
			datastore.Boolean: "INTEGER",
			datastore.JSON:    "TEXT",
		},
		AutoIncrementPK: "INTEGER PRIMARY KEY AUTOINCREMENT",
		JSON:            JSONFunctions,
	}
}

// Postgres returns the dialect of PostgreSQL 12 or later.
func Postgres() *Dialect {
	return &Dialect{
		texts:       newTextCache(),
		lists:       newListCache(),
		guarded:     newGuardedCache(),
		reads:       newReadCache(),
		Name:        "postgres",
		Numbered:    true,
		Quote:       '"',
		Returning:   true,
		LikeEscape:  `'\'`,
		NullsClause: true,
		LikeCast:    "TEXT",
		Types: map[datastore.Kind]string{
			datastore.String:  "TEXT",
			datastore.Number:  "DOUBLE PRECISION",
			datastore.Integer: "BIGINT",
			datastore.Boolean: "BOOLEAN",
			datastore.JSON:    "JSONB",
		},
		AutoIncrementPK: "BIGINT GENERATED BY DEFAULT AS IDENTITY",
		MaxIdent:        63,
		ArrayIn:         true,
		LiteralLimit:    true,
		JSON:            JSONBOperators,
	}
}

// Ident returns name quoted as an identifier.
func (d *Dialect) Ident(name string) string {
	var sb strings.Builder
	d.writeIdent(&sb, name)
	return sb.String()
}

// appendIdent is writeIdent appending to dst.
func (d *Dialect) appendIdent(dst []byte, name string) []byte {
	q := d.Quote
	dst = append(dst, q)
	for {
		i := strings.IndexByte(name, q)
		if i < 0 {
			break
		}
		dst = append(append(dst, name[:i+1]...), q)
		name = name[i+1:]
	}
	return append(append(dst, name...), q)
}

func (d *Dialect) writeIdent(sb *strings.Builder, name string) {
	q := d.Quote
	sb.WriteByte(q)
	for {
		// Names rarely hold the quote: written whole, not byte by byte.
		i := strings.IndexByte(name, q)
		if i < 0 {
			break
		}
		sb.WriteString(name[:i+1])
		sb.WriteByte(q)
		name = name[i+1:]
	}
	sb.WriteString(name)
	sb.WriteByte(q)
}
