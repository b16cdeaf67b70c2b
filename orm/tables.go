package orm

import (
	"strings"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// tableFor derives the physical table of a model: one column per plain or
// singular attribute, in definition order, and for a schemaless model the
// ExtraColumn last. Plural attributes have no column.
func tableFor(s *model.Schema, m *model.Model) *datastore.Table {
	t := &datastore.Table{Name: m.TableName, PrimaryKey: m.PK().ColumnName}
	for _, name := range m.Order {
		a := m.Attributes[name]
		if a.IsPlural() {
			continue
		}
		c := datastore.Column{
			Name:          a.ColumnName,
			Kind:          kindOf(s, a),
			PrimaryKey:    name == m.PrimaryKey,
			AutoIncrement: a.AutoIncrement,
			Unique:        a.Unique || name == m.PrimaryKey,
			NotNull:       name == m.PrimaryKey,
			// Population and collection changes look rows up by their keys.
			Indexed: a.IsSingular(),
		}
		if a.ColumnType != "" && !strings.HasPrefix(a.ColumnType, "_") {
			c.Type = a.ColumnType
		}
		t.Columns = append(t.Columns, c)
	}
	if !m.Schema {
		t.Columns = append(t.Columns, datastore.Column{Name: ExtraColumn, Kind: datastore.JSON, Merge: true})
	}
	if m.Junction {
		var pair []string
		for _, c := range t.Columns {
			if !c.PrimaryKey {
				pair = append(pair, c.Name)
			}
		}
		t.UniqueTogether = [][]string{pair}
	}
	return t
}

// kindOf picks the storage kind: integers where Sails stores whole numbers
// (auto-increment keys, millisecond timestamps, keys pointing at them).
func kindOf(s *model.Schema, a *model.Attribute) datastore.Kind {
	if a.IsSingular() {
		target := s.Model(a.Model)
		if target == nil {
			return datastore.String
		}
		return kindOf(s, target.PK())
	}
	switch a.Type {
	case model.String:
		return datastore.String
	case model.Boolean:
		return datastore.Boolean
	case model.Number:
		if a.AutoIncrement || a.AutoCreatedAt || a.AutoUpdatedAt {
			return datastore.Integer
		}
		return datastore.Number
	}
	return datastore.JSON
}
