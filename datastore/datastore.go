// Package datastore defines the contract between Skiff's ORM and a storage
// engine. It plays the role database/sql/driver plays for database/sql:
// adapter authors import it; applications rarely do.
//
// Everything an adapter receives is physical: table and column names, and
// values already coerced to the column's kind. Adapters never see models.
package datastore

import (
	"context"
	"errors"
	"fmt"

	"github.com/skiffhq/skiff/criteria"
)

// Kind is the storage kind of a column, derived from the attribute type.
type Kind uint8

// Column kinds. Values crossing the Adapter boundary have these Go types
// (nil is always allowed): String string, Number float64 (int64 accepted on
// input), Integer int64 on input and float64 on output, Boolean bool,
// JSON any (decoded JSON: map[string]any, []any, string, float64, bool).
const (
	String Kind = iota + 1
	Number
	Integer // auto-increment keys and millisecond timestamps
	Boolean
	JSON
)

// Column describes one physical column.
type Column struct {
	Name string
	Kind Kind
	// Type is an explicit database type (Sails columnType) used verbatim by
	// Define when it does not start with "_"; empty means the adapter's
	// default for Kind.
	Type          string
	PrimaryKey    bool
	AutoIncrement bool
	Unique        bool
	// Indexed asks for a plain (non-unique) index, as foreign-key columns
	// want for population. When the column belongs to a UniqueTogether set
	// the index goes on to the set's other columns (a join table's key
	// columns, read from either side).
	Indexed bool
	// NotNull is set for primary keys and join-table key columns only;
	// Skiff enforces required attributes itself.
	NotNull bool
	// Merge marks a JSON column holding an object whose keys are set one
	// by one: Update merges the object it is given into the stored one
	// (each given key replaces that key, a null value included; keys not
	// given stay; a NULL column counts as an empty object), where other
	// columns are replaced. Create stores the object as given. Schemaless
	// models keep their undeclared keys in such a column.
	Merge bool
}

// Table describes one physical table.
type Table struct {
	Name       string
	PrimaryKey string
	Columns    []Column
	// UniqueTogether lists column sets that must be unique together (join
	// tables use it so adding the same pair twice is idempotent).
	UniqueTogether [][]string
}

// Column returns the column named name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// Record maps column names to values.
type Record map[string]any

// Query selects rows of one table. Where, Sort and Select use column names.
//
// A criteria.Cmp or criteria.Sort whose Key is set addresses that top-level
// key of the object in a JSON column. Such comparisons are type-strict, as
// in Waterline's JavaScript: a string matches only strings, a number only
// numbers, a boolean only booleans; <, <=, >, >= and like match only values
// of the compared type (like: strings); a key that is absent counts as
// null. Sorting by a key orders values of one JSON type as their type
// orders; how different types interleave is the engine's. Keys satisfy
// model.ValidKey; adapters refuse others.
type Query struct {
	Table *Table
	Where criteria.Expr
	Sort  []criteria.Sort
	// Limit is criteria.Unlimited for no limit; Skip 0 for none.
	Limit int64
	Skip  int64
	// Select lists the columns to return; nil means all.
	Select []string
	// PartitionBy, when set, applies Sort, Skip and Limit within each group
	// of rows sharing this column's value instead of over the whole result
	// (per-parent population limits; SQL window functions).
	PartitionBy string
	// Fetch asks Update and Destroy to return the affected rows.
	Fetch bool
}

// Through links the rows of a query's table to parent records through a
// join table (a many-to-many collection), so that population reads the
// links and the children in one query instead of two.
type Through struct {
	// Table is the join table. ParentColumn holds the parents' keys;
	// ChildColumn holds primary keys of the query's table.
	Table        *Table
	ParentColumn string
	ChildColumn  string
	// Parents lists the parent keys whose children to read (values of
	// ParentColumn's kind).
	Parents []any
}

// ParentKey is the key under which rows read through a join table carry the
// parent they were linked to, and the PartitionBy value that applies Sort,
// Skip and Limit per parent. The prefix keeps it apart from column names.
const ParentKey = "__skiff_parent"

// ThroughFinder is an optional capability of an Adapter (and of the Adapter
// an InTx callback receives): reading the children of many parents through
// a join table in one query. Callers without it read the join rows, then
// the children.
type ThroughFinder interface {
	// FindThrough returns one row per link of j whose parent is one of
	// j.Parents and whose child is a row of q.Table matching q.Where: the
	// child's columns (q.Select, or all) and, under ParentKey, the link's
	// parent key. A child linked to two parents comes back twice; links to
	// no existing row come back not at all. Rows are ordered by the parent
	// key, then q.Sort, then the primary key. Skip and Limit apply to the
	// whole result, or per parent when q.PartitionBy is ParentKey.
	FindThrough(ctx context.Context, q *Query, j *Through) ([]Record, error)
}

// Join asks a query to read, with each of its rows, the row of another
// table that one of its columns points at (a singular association).
type Join struct {
	// Column is the query table's column holding keys of Table's rows.
	Column string
	Table  *Table
}

// JoinFinder is an optional capability of an Adapter (and of the Adapter
// an InTx callback receives): reading the rows a query's keys point at in
// other tables with the query's rows, in one query (a LEFT JOIN), as
// population of singular associations does. Callers without it read the
// pointed-at rows in a second query.
type JoinFinder interface {
	// FindJoined returns the rows Find(ctx, q) returns, in the same order,
	// except that under the Column of each of joins a row holds, instead
	// of the key, the row of the join's Table (a Record of all its
	// columns) whose primary key equals the key, or nil when the key is
	// null or no row has it. The Column is set so whether or not q.Select
	// names it. Joins name distinct columns; a table may be joined several
	// times, q.Table included. q.PartitionBy must be unset.
	FindJoined(ctx context.Context, q *Query, joins []Join) ([]Record, error)
}

// RowFinder is an optional capability of an Adapter (and of the Adapter an
// InTx callback receives): handing the rows of a Find, or of a FindJoined,
// to a callback one at a time instead of making each a Record, for callers
// that turn every row into something else at once (an answer's JSON).
// Callers without it use Find and FindJoined.
type RowFinder interface {
	// FindRows calls each with every row that Find(ctx, q) would return
	// or, with joins, FindJoined(ctx, q, joins), in the same order and
	// with the same values (see Row). An error from each ends the read
	// and is returned as it is.
	FindRows(ctx context.Context, q *Query, joins []Join, each func(*Row) error) error
}

// Row is one row of a RowFinder's read. It and its slices belong to the
// adapter, which reuses them for the next row: they are valid only during
// the call of each that is given them.
type Row struct {
	// Columns are the columns of Values. Without joins they are the
	// columns Find's Record holds. With joins, Columns[:Nests[0].From]
	// are the row's own (FindJoined's Record holds them, and each join's
	// Column, whether or not it is among them), and then come the columns
	// of each join's Table, as its Nest places them.
	Columns []*Column
	// Nests places the row each of the read's joins joined, in the order
	// of the joins; nil without joins.
	Nests []Nest
	// Values holds each column's value, decoded as Find decodes it.
	Values []any
}

// Nest is where the columns of a joined row sit in a Row.
type Nest struct {
	// Key is the join's Column: the query table's column whose value the
	// joined row replaces in the Record FindJoined returns.
	Key string
	// Columns[From:To] are the joined table's columns and Columns[PK] its
	// primary key, whose value is nil when no row was joined (FindJoined's
	// Record then holds nil under Key).
	From, To, PK int
}

// Read is one read of a BatchFinder batch: a Find of Query or, when
// Through is set, a FindThrough of Query through that join table, or, when
// Joins is set, a FindJoined of Query with those joins (never both).
type Read struct {
	Query   *Query
	Through *Through
	Joins   []Join
}

// BatchFinder is an optional capability of an Adapter (and of the Adapter
// an InTx callback receives): running several independent reads in one
// round trip to the engine, as population does when it reads a record and
// its collections, which only need the record's key. Callers without it
// run the reads one by one. In-process engines (SQLite) gain nothing from
// it and need not implement it.
type BatchFinder interface {
	// FindBatch runs reads, each exactly as Find (or, for a read with
	// Through, FindThrough) would, and returns their rows in the order of
	// reads: an empty slice, not nil, for a read matching nothing. The
	// reads run one after the other and need not see one snapshot: each
	// sees what a Find started at its turn would. Reads with Through are
	// allowed only from an adapter that also implements ThroughFinder,
	// reads with Joins from one that implements JoinFinder. An
	// error in any read fails the whole batch. FindBatch is safe for
	// concurrent use, as the Adapter is.
	FindBatch(ctx context.Context, reads []Read) ([][]Record, error)
}

// Migrate is a schema synchronisation strategy (see model.Migrate).
type Migrate string

// Strategies Define accepts.
const (
	MigrateSafe  Migrate = "safe"
	MigrateAlter Migrate = "alter"
	MigrateDrop  Migrate = "drop"
)

// Adapter is a storage engine holding the tables of one datastore.
// Implementations must be safe for concurrent use.
type Adapter interface {
	// Find returns the rows matching q, ordered by q.Sort then by primary
	// key ascending. It returns an empty slice, not an error, when nothing
	// matches.
	Find(ctx context.Context, q *Query) ([]Record, error)
	// Count returns how many rows match q.Where (Sort, Limit, Skip ignored).
	Count(ctx context.Context, q *Query) (int64, error)
	// Create inserts recs into t and returns them as stored, with generated
	// keys filled, in the same order. A unique constraint violation is
	// reported as *UniqueError.
	Create(ctx context.Context, t *Table, recs []Record) ([]Record, error)
	// Update sets values on the rows matching q.Where and, when q.Fetch is
	// set, returns them as updated. A unique violation is *UniqueError.
	Update(ctx context.Context, q *Query, values Record) ([]Record, error)
	// Destroy deletes the rows matching q.Where and, when q.Fetch is set,
	// returns them as they were.
	Destroy(ctx context.Context, q *Query) ([]Record, error)
	// Define brings the physical schema in line with tables: MigrateSafe
	// does nothing; MigrateAlter creates missing tables and adds or drops
	// columns in place, keeping rows; MigrateDrop recreates every table empty.
	Define(ctx context.Context, tables []*Table, mode Migrate) error
	// InTx runs fn in one transaction: fn's Adapter sees and makes changes
	// inside it; the transaction commits when fn returns nil and rolls back
	// otherwise. Nested InTx calls on a transaction's Adapter join it.
	InTx(ctx context.Context, fn func(ctx context.Context, tx Adapter) error) error
	// Close releases the adapter's connections.
	Close() error
}

// Locker is an optional capability of the Adapter an InTx callback
// receives: Lock locks the rows of each of locks, lock after lock, until
// the transaction ends, so concurrent transactions that lock the same rows
// run one after the other. It returns each lock's rows as they are once
// locked, with the columns its query selects (its table's primary key when
// Select is empty): the caller learns which rows exist, and their values,
// without reading them again. Then it runs reads, as Find would, after the
// locks are held, and returns their rows after those of locks: an engine
// that can sends it all in one round trip. Adapters whose transactions are
// already serialised (SQLite's single writer) need not implement it.
type Locker interface {
	Lock(ctx context.Context, locks []Lock, reads ...*Query) ([][]Record, error)
}

// A Lock names the rows of one table that Locker locks, in primary key
// order: those Query matches. Query's Skip, Limit and PartitionBy must be
// unset.
type Lock struct {
	Query *Query
}

// CollectionReplacer is the optional capability behind the fast path of
// replacing a collection's members (PUT /:model/:id/:association); without
// it the ORM replaces over the Adapter's reads and writes in a transaction,
// locking rows with Locker where the engine has it. It is the whole
// contract of that fast path, tested by datastoretest's ReplaceCollection
// cases.
//
// ReplaceCollections makes each change of rs, in order, in the transaction
// of the Adapter it is called on, then commits, all in one round trip to
// the engine: a replace that locked, read, decided in the caller and then
// wrote would hold the parent's lock, for which every change of its
// collection waits, across two round trips and the caller's work between
// them. Here the engine decides: for each change it
//
//  1. locks the parent's row (Parent's row with key Key), waiting for it,
//     as Locker would: every change of the collection locks it first, so
//     changes of one collection run one after the other;
//  2. locks, without waiting, the rows of the wanted children and of the
//     current members, reading them (ChildColumns) in key order; a row
//     another transaction holds fails the whole call with ErrLockBusy, and
//     the caller then takes its other path, which locks in a global order
//     and waits;
//  3. makes the change only if it is valid: the parent exists, every wanted
//     child exists and, for a one-to-many collection whose key is
//     Required, no member leaves. Otherwise it changes nothing and reports
//     Applied false, so the caller tells why from the rows of 1 and 2.
//
// Each change sees those before it; several changes of one busy parent so
// share one commit. ReplaceCollections must be the last thing the
// transaction does, in a transaction the caller began (not one it joined):
// it commits, and the transaction's Adapter refuses anything after it.
// When it fails nothing changed (the transaction is rolled back when InTx
// returns, as after any error). An adapter that cannot express a change
// (say, keys of a type it cannot bind as an array) answers
// errors.ErrUnsupported before sending anything, and the caller takes its
// other path. An Adapter whose transactions implement it implements it
// too, so that callers know before they begin one; outside a transaction,
// where the locks would not hold, it answers errors.ErrUnsupported.
type CollectionReplacer interface {
	ReplaceCollections(ctx context.Context, rs []*Replacement) ([]*Replaced, error)
}

// Replacement is the change a CollectionReplacer makes: the members of the
// collection of Parent's row with key Key become exactly the rows of Child
// with keys Want (values of Child's key column, without duplicates).
type Replacement struct {
	Parent *Table
	Key    any
	// ParentColumns are the columns of the parent's row to return (nil:
	// its key); ChildColumns those of the locked children (nil: the key,
	// and Via for a one-to-many collection).
	ParentColumns []string
	Child         *Table
	ChildColumns  []string
	Want          []any
	// Through is the join table of a many-to-many collection (its Parents
	// are ignored). Without it the collection is one-to-many: Via is the
	// children's column holding their parent's key, and Required forbids
	// setting it to null, so that a change removing a member is invalid.
	Through  *Through
	Via      string
	Required bool
	// After are reads run once the changes are committed, in the same
	// round trip: the answer to the change, say. They see what was
	// committed, the changes after this one's included.
	After []Read
}

// ParentLock is the lock of the parent's row an implementation takes first
// (step 1), selecting ParentColumns.
func (r *Replacement) ParentLock() Lock {
	cols := r.ParentColumns
	if len(cols) == 0 {
		cols = []string{r.Parent.PrimaryKey}
	}
	return Lock{Query: &Query{
		Table: r.Parent, Where: &criteria.Cmp{Attr: r.Parent.PrimaryKey, Op: criteria.Eq, Value: r.Key},
		Limit: criteria.Unlimited, Select: cols,
	}}
}

// Replaced is what ReplaceCollections did with one Replacement.
type Replaced struct {
	// Parent is the parent's row as locked, nil when there is none;
	// Children the children the change locked (the wanted ones that exist
	// and the members before the change), in key order, as they were
	// before it.
	Parent   Record
	Children []Record
	// Applied reports that the change was valid and made: the parent
	// exists, every wanted child exists and, when Required, no member had
	// to leave. Otherwise nothing changed.
	Applied bool
	// Removed are the keys of the children that left the collection, in
	// the order of their join rows' keys (one-to-many: of their own keys);
	// join rows linking to no existing child are deleted but not reported.
	// Added are the keys of the wanted children that were not members, in
	// no particular order.
	Removed []any
	Added   []any
	// After holds the rows of each of the Replacement's After reads, or is
	// nil when they could not be read; the change stands either way.
	After [][]Record
}

// ErrLockBusy is the error (wrapped) of ReplaceCollections when a child's
// row is locked by another transaction.
var ErrLockBusy = errors.New("datastore: row locked by another transaction")

// Deferrer is an optional capability of the Adapter an InTx callback
// receives: writes whose rows the caller does not need are queued instead
// of sent, and travel with the transaction's next statement or with its
// commit. A change ending in several writes then costs one round trip to
// the server, and the locks it holds are released that much sooner.
//
// The writes run in the order they were made, before anything the
// transaction runs after them, so later reads see them. An error one of
// them causes is returned by the call that sends it (a later read, or InTx
// at commit), as the write itself would have returned it; since an error
// rolls the transaction back, nothing it did survives either way. Outside
// a transaction, or for an Update or Destroy with Fetch set, the write runs
// at once.
type Deferrer interface {
	DeferCreate(ctx context.Context, t *Table, recs []Record) error
	DeferUpdate(ctx context.Context, q *Query, values Record) error
	DeferDestroy(ctx context.Context, q *Query) error
}

// Guard names a row that must exist for a GuardedCreator's insert: the
// row of Table whose primary key is Key (a value of that column's kind).
type Guard struct {
	Table *Table
	Key   any
	// Column, when set, is the column of the inserted row that holds Key:
	// the row returned holds there, instead of the key, the guard's row
	// as it is once locked (a Record of all its columns), as FindJoined
	// nests a joined row. An adapter that reads it after the insert, in
	// a statement of its own, leaves the key there when the row was
	// deleted in between. Guards name distinct columns.
	Column string
}

// GuardedCreator is an optional capability of an Adapter: inserting a row
// only if the rows it points at exist, with the check and the insert one
// atomic step, as a create with singular associations wants. Without it
// the caller checks, locking the rows with Locker, and inserts in a
// transaction, which costs an engine with round trips several of them.
type GuardedCreator interface {
	// CreateGuarded inserts rec into t only if every guard names an
	// existing row, and returns the row as stored (as Create would), or
	// nil, having inserted nothing, when one does not. The guards' rows
	// are locked from the check until the insert is committed against
	// deletion and against Locker's locks, so a concurrent change that
	// removes one either waits for the insert (and then sees the new row)
	// or makes the insert refused; changes to their other columns need not
	// wait. Outside a transaction the insert is committed when
	// CreateGuarded returns. A unique violation is *UniqueError. An
	// adapter that cannot express a call (say, rec sets an auto-increment
	// key) answers errors.ErrUnsupported before sending anything, and the
	// caller takes its other path.
	CreateGuarded(ctx context.Context, t *Table, rec Record, guards []Guard) (Record, error)
}

// UniqueError reports a unique-constraint violation (Waterline E_UNIQUE).
// Columns lists the offending columns when the engine tells them.
type UniqueError struct {
	Table   string
	Columns []string
	Err     error
}

// Error describes the violated constraint.
func (e *UniqueError) Error() string {
	return fmt.Sprintf("unique constraint violated on %s %v: %v", e.Table, e.Columns, e.Err)
}

// Unwrap returns the engine's own error.
func (e *UniqueError) Unwrap() error { return e.Err }

// ErrClosed is returned by adapters used after Close.
var ErrClosed = errors.New("datastore: adapter closed")

// Config is one datastore's settings from config (datastores.<name>).
// Adapter names the engine ("sqlite", "postgres", "mysql"); the rest is
// engine-specific.
type Config struct {
	Name    string
	Adapter string
	URL     string
	// Dir is the app folder, for engines that keep files (SQLite's .tmp/).
	Dir     string
	Options map[string]any
}

// OpenFunc opens an adapter from its configuration.
type OpenFunc func(ctx context.Context, cfg Config) (Adapter, error)

// Pinger is an optional capability of an Adapter: Ping reports whether the
// engine answers now (readiness checks call it), without changing data.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Describer is an optional capability of an Adapter: Describe says where
// its data lives, for the startup summary: the engine and its host,
// database or file, never a password.
type Describer interface {
	Describe() string
}

// ChangeKind names one kind of schema change.
type ChangeKind string

// The changes a migration makes.
const (
	CreateTable   ChangeKind = "create table"
	RecreateTable ChangeKind = "drop and recreate table" // migrate: drop
	AddColumn     ChangeKind = "add column"
	DropColumn    ChangeKind = "drop column"
	CreateIndex   ChangeKind = "create index"
)

// Change is one step of a schema migration.
type Change struct {
	Kind  ChangeKind
	Table string
	// Column is the column added or dropped; Index the index created.
	Column, Index string
	// Rows is, for DropColumn, how many rows hold a value (not NULL) in
	// the column, and for RecreateTable how many rows the table holds:
	// the data the change loses.
	Rows int64
}

// String reads like "drop column pet.nickname (3 rows hold a value)".
func (c Change) String() string {
	s := string(c.Kind) + " " + c.Table
	switch c.Kind {
	case AddColumn:
		s = string(c.Kind) + " " + c.Table + "." + c.Column
	case DropColumn:
		s = string(c.Kind) + " " + c.Table + "." + c.Column
		if c.Rows > 0 {
			s += fmt.Sprintf(" (%d rows hold a value)", c.Rows)
		}
	case CreateIndex:
		s = string(c.Kind) + " " + c.Index + " on " + c.Table
	case RecreateTable:
		if c.Rows > 0 {
			s += fmt.Sprintf(" (%d rows are lost)", c.Rows)
		}
	}
	return s
}

// Planner is an optional capability of an Adapter: Plan returns the
// changes Define(ctx, tables, mode) would make now, in order, without
// making any. MigrateSafe plans nothing.
type Planner interface {
	Plan(ctx context.Context, tables []*Table, mode Migrate) ([]Change, error)
}

// PoolStats describe an adapter's connection pool at one moment.
type PoolStats struct {
	// Open and InUse count the pool's connections, all and busy.
	Open, InUse int64
	// Waits counts, since the pool opened, the times a query waited for a
	// free connection.
	Waits int64
}

// PoolStater is an optional capability of an Adapter: PoolStats reports
// its connection pool, for metrics. It is cheap and safe for concurrent
// use.
type PoolStater interface {
	PoolStats() PoolStats
}
