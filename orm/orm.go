// Package orm gives Waterline semantics to Skiff's models over datastore
// adapters: it normalises values, checks associated ids, maps attributes to
// columns, runs multi-row changes in one transaction and classifies adapter
// errors. It is what the blueprint actions and Go embedders call.
package orm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// ORM binds a resolved schema to the adapters of its datastores. It is safe
// for concurrent use.
type ORM struct {
	schema  *model.Schema
	stores  map[string]datastore.Adapter
	entries map[string]*entry
	now     func() time.Time
	// combine groups concurrent replaces of one collection (see combiner).
	combine combiner
	// txKeys holds the context key of each datastore's transaction, made
	// once: a key built per lookup is boxed, an allocation per query.
	txKeys map[string]*txKey
}

// ExtraColumn is the column in which a schemaless model (schema: false)
// keeps its undeclared keys, as one JSON object per row (a datastore.Column
// with Merge set). The name cannot be an attribute's column: New refuses
// models that use it.
const ExtraColumn = "__skiff_extra"

// entry is everything the ORM needs about one model (user or junction).
type entry struct {
	model     *model.Model
	table     *datastore.Table
	store     string
	adapter   datastore.Adapter
	txKey     *txKey
	colToAttr map[string]string
	// renames lists the columns named differently from their attribute;
	// copyRows is set when renaming in place could overwrite a value (an
	// attribute named like another attribute's column).
	renames  []rename
	copyRows bool
	// extra is ExtraColumn for schemaless models, "" otherwise.
	extra string
	// shares holds, per singular association, the share of distinct
	// records the last page of records pointed at (see joinsPages).
	shares map[string]*atomic.Int32
	// lastShape is the shape of the rows FindRows read last (see
	// rowReader.cachedShape).
	lastShape atomic.Pointer[shapeOfRows]
}

// rename maps one column to the attribute it stores.
type rename struct{ col, attr string }

// New binds schema to stores (datastore name → adapter). Every model's
// datastore must be present.
func New(schema *model.Schema, stores map[string]datastore.Adapter) (*ORM, error) {
	o := &ORM{schema: schema, stores: stores, entries: map[string]*entry{}, now: time.Now, txKeys: map[string]*txKey{}}
	for name := range stores {
		o.txKeys[name] = &txKey{name}
	}
	all := append(append([]*model.Model{}, schema.Models()...), schema.Junctions()...)
	for _, m := range all {
		a, ok := stores[m.Datastore]
		if !ok {
			return nil, fmt.Errorf("model %s: datastore %q is not configured", m.Identity, m.Datastore)
		}
		t := tableFor(schema, m)
		e := &entry{model: m, table: t, store: m.Datastore, adapter: a, txKey: o.txKeys[m.Datastore], colToAttr: map[string]string{}, shares: map[string]*atomic.Int32{}}
		for _, name := range m.Order {
			attr := m.Attributes[name]
			if attr.Assoc != nil && attr.Assoc.Kind == model.BelongsTo {
				e.shares[name] = new(atomic.Int32)
			}
			if !attr.IsPlural() {
				e.colToAttr[attr.ColumnName] = name
			}
			if attr.ColumnName == ExtraColumn {
				return nil, fmt.Errorf("model %s: attribute %s: the column name %s is reserved for the undeclared keys of schemaless models",
					m.Identity, name, ExtraColumn)
			}
		}
		if !m.Schema {
			e.extra = ExtraColumn
		}
		for col, name := range e.colToAttr {
			if col == name {
				continue
			}
			e.renames = append(e.renames, rename{col, name})
			if _, clash := e.colToAttr[name]; clash {
				e.copyRows = true
			}
		}
		o.entries[m.Identity] = e
	}
	return o, nil
}

// Schema returns the schema the ORM was built with.
func (o *ORM) Schema() *model.Schema { return o.schema }

// Table returns the physical table of the model with the given identity, or nil.
func (o *ORM) Table(identity string) *datastore.Table {
	if e := o.entries[identity]; e != nil {
		return e.table
	}
	return nil
}

// Migrate brings every table in line with its model, each with the model's
// own strategy (junction tables follow the first side that is not safe).
func (o *ORM) Migrate(ctx context.Context) error {
	for _, g := range o.migrationGroups() {
		if err := o.stores[g.store].Define(ctx, g.tables, datastore.Migrate(g.mode)); err != nil {
			return fmt.Errorf("migrate datastore %s (%s): %w", g.store, g.mode, err)
		}
	}
	return nil
}

// txKey is the context key under which InTx keeps a datastore's
// transaction; ORM.txKeys holds the one key of each datastore.
type txKey struct{ store string }

// InTx runs fn in one transaction on the given datastore. ORM calls made
// with the ctx fn receives use that transaction; nested calls join it.
func (o *ORM) InTx(ctx context.Context, store string, fn func(ctx context.Context) error) error {
	a, ok := o.stores[store]
	if !ok {
		return fmt.Errorf("datastore %q is not configured", store)
	}
	key := o.txKeys[store]
	if ctx.Value(key) != nil {
		return fn(ctx)
	}
	return a.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return fn(context.WithValue(ctx, key, tx))
	})
}

// adapter returns the adapter to use for e: the transaction in ctx, if any.
func (o *ORM) adapter(ctx context.Context, e *entry) datastore.Adapter {
	if tx, ok := ctx.Value(e.txKey).(datastore.Adapter); ok {
		return tx
	}
	return e.adapter
}

func (o *ORM) entry(m *model.Model) (*entry, error) {
	e := o.entries[m.Identity]
	if e == nil {
		return nil, fmt.Errorf("unknown model %q", m.Identity)
	}
	return e, nil
}

// toRow maps attribute names to columns and values to the column's kind.
// Undeclared keys of a schemaless model go into its extra column.
func (e *entry) toRow(rec model.Record) datastore.Record {
	row := make(datastore.Record, len(rec))
	var extra map[string]any
	for name, v := range rec {
		a := e.model.Attributes[name]
		if a == nil && e.extra != "" {
			if extra == nil {
				extra = map[string]any{}
				row[e.extra] = extra
			}
			extra[name] = v
			continue
		}
		if a == nil || a.IsPlural() {
			continue
		}
		c := e.table.Column(a.ColumnName)
		if c != nil && c.Kind == datastore.Integer {
			if f, ok := v.(float64); ok {
				v = int64(f)
			}
		}
		row[a.ColumnName] = v
	}
	return row
}

// fromRow maps a row back to attribute names. The undeclared keys of a
// schemaless model join the record, except those named like a declared
// attribute (stored before it was declared): the attribute wins. Otherwise
// the row becomes the record: adapters hand over rows they no longer use,
// and a list of 300 children then costs 300 maps instead of 600. Columns
// the model does not know are dropped.
func (e *entry) fromRow(row datastore.Record) model.Record {
	if e.copyRows || e.extra != "" {
		rec := make(model.Record, len(row))
		for col, v := range row {
			if name, ok := e.colToAttr[col]; ok {
				rec[name] = v
			}
		}
		if e.extra != "" {
			extra, _ := row[e.extra].(map[string]any)
			for k, v := range extra {
				if e.model.Attributes[k] == nil {
					rec[k] = v
				}
			}
		}
		return rec
	}
	for _, r := range e.renames {
		if v, ok := row[r.col]; ok {
			delete(row, r.col)
			row[r.attr] = v
		}
	}
	if len(row) > len(e.colToAttr) {
		for name := range row {
			if a := e.model.Attributes[name]; a == nil || a.IsPlural() {
				delete(row, name)
			}
		}
	}
	return model.Record(row)
}

func (e *entry) column(attr string) string {
	if a := e.model.Attributes[attr]; a != nil && a.ColumnName != "" {
		return a.ColumnName
	}
	return attr
}

// columns maps a where clause over attributes to one over columns; an
// undeclared key of a schemaless model becomes that key of its extra column.
func (e *entry) columns(where criteria.Expr) criteria.Expr {
	if e.extra == "" && len(e.renames) == 0 {
		// Every column is named as its attribute: the clause is its own
		// mapping (criteria.Rename would copy it as it is), and nothing
		// changes a clause once made.
		return where
	}
	if e.extra == "" {
		return criteria.Rename(where, e.column)
	}
	return criteria.Map(where, func(c criteria.Cmp) criteria.Cmp {
		if e.model.Attributes[c.Attr] == nil {
			c.Attr, c.Key = e.extra, c.Attr
		} else {
			c.Attr = e.column(c.Attr)
		}
		return c
	})
}

// query turns a normalised criteria over e's attributes into a datastore query.
func (e *entry) query(c *criteria.Criteria) *datastore.Query {
	q := &datastore.Query{Table: e.table, Limit: c.Limit, Skip: c.Skip}
	if q.Limit == 0 && !c.Noop {
		q.Limit = criteria.Unlimited
	}
	if c.Where != nil {
		q.Where = e.columns(c.Where)
	}
	for _, s := range c.Sort {
		if e.extra != "" && e.model.Attributes[s.Attr] == nil {
			q.Sort = append(q.Sort, criteria.Sort{Attr: e.extra, Key: s.Attr, Desc: s.Desc})
			continue
		}
		q.Sort = append(q.Sort, criteria.Sort{Attr: e.column(s.Attr), Desc: s.Desc})
	}
	if len(c.Select) > 0 {
		q.Select = []string{e.table.PrimaryKey}
		for _, name := range c.Select {
			if a := e.model.Attributes[name]; a != nil && !a.IsPlural() && name != e.model.PrimaryKey {
				q.Select = append(q.Select, a.ColumnName)
			}
		}
	}
	return q
}

// pkWhere is the criteria matching one primary key value.
func pkWhere(m *model.Model, pk any) criteria.Expr {
	return &criteria.Cmp{Attr: m.PrimaryKey, Op: criteria.Eq, Value: pk}
}

// classify turns adapter errors whose meaning is known into model errors.
func (e *entry) classify(err error) error {
	if u, ok := errors.AsType[*datastore.UniqueError](err); ok {
		var attrs []string
		for _, c := range u.Columns {
			if name, ok := e.colToAttr[c]; ok {
				attrs = append(attrs, name)
			}
		}
		return &model.Error{
			Kind:  model.Invalid,
			Code:  model.CodeUnique,
			Msg:   "Would violate uniqueness constraint-- a record already exists with conflicting value(s).",
			Model: e.model.Identity,
			Attrs: attrs,
			Err:   err,
		}
	}
	return err
}
