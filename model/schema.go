package model

import (
	"fmt"
	"slices"
	"strings"
)

// Schema is the resolved set of an application's models: every association
// points at its target model, and the implicit junction models of
// many-to-many collections exist. It is built once by NewSchema and is
// read-only afterwards, so it is safe for concurrent use.
type Schema struct {
	models    []*Model
	junctions []*Model
	byID      map[string]*Model
}

// NewSchema resolves the associations of models, as waterline-schema does
// at lift, and returns the schema. It sets Attribute.Assoc on every
// association, gives each singular association the type of its target's
// primary key, forces through models schemaful, and generates one junction
// model per many-to-many relation, named as Sails names it. The models are
// modified in place. Problems (duplicate identities, unknown targets, a via
// that does not point back, misuse of through or dominant) are
// *DefinitionError.
func NewSchema(models []*Model) (*Schema, error) {
	s := &Schema{byID: map[string]*Model{}}
	for _, m := range models {
		if prev := s.byID[m.Identity]; prev != nil {
			return nil, defErr(m, "", "identity %q is already used by %s", m.Identity, sourceOf(prev))
		}
		s.byID[m.Identity] = m
		s.models = append(s.models, m)
	}
	slices.SortFunc(s.models, func(a, b *Model) int { return strings.Compare(a.Identity, b.Identity) })
	for _, m := range s.models {
		for _, name := range m.Order {
			if a := m.Attributes[name]; a.Through != "" {
				if th := s.byID[a.Through]; th != nil {
					th.Schema = true
				}
			}
		}
	}
	for _, m := range s.models {
		for _, name := range m.Order {
			if a := m.Attributes[name]; a.IsSingular() {
				if err := s.resolveSingular(m, a); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, m := range s.models {
		for _, name := range m.Order {
			if a := m.Attributes[name]; a.IsPlural() {
				if err := s.resolvePlural(m, a); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, m := range s.models {
		for _, name := range m.Order {
			if a := m.Attributes[name]; a.IsSingular() {
				a.Assoc.Inverse = inverseOf(m, a)
			}
		}
	}
	slices.SortFunc(s.junctions, func(a, b *Model) int { return strings.Compare(a.Identity, b.Identity) })
	for _, m := range s.models {
		m.listAssocs()
	}
	for _, m := range s.junctions {
		m.listAssocs()
	}
	return s, nil
}

// listAssocs records which attributes of m SerializeOwned descends into.
func (m *Model) listAssocs() {
	m.assocs = []string{}
	for _, name := range m.Order {
		if a := m.Attributes[name]; a != nil && a.Assoc != nil && a.Assoc.Target != nil {
			m.assocs = append(m.assocs, name)
		}
	}
}

// Model returns the model (user or junction) with the given identity, or nil.
func (s *Schema) Model(identity string) *Model { return s.byID[identity] }

// Models returns the application's own models sorted by identity. The
// slice must not be modified.
func (s *Schema) Models() []*Model { return s.models }

// Junctions returns the generated junction models sorted by identity. The
// slice must not be modified.
func (s *Schema) Junctions() []*Model { return s.junctions }

func defErr(m *Model, attr, format string, args ...any) *DefinitionError {
	return &DefinitionError{Source: m.Source, Model: m.Identity, Attr: attr, Msg: fmt.Sprintf(format, args...)}
}

func sourceOf(m *Model) string {
	if m.Source != "" {
		return m.Source
	}
	return "another model"
}

func (s *Schema) resolveSingular(m *Model, a *Attribute) error {
	t := s.byID[a.Model]
	if t == nil {
		return defErr(m, a.Name, "model %q is not a known model", a.Model)
	}
	pk := t.PK()
	a.Type = pk.Type
	if a.ColumnType == "" || strings.HasPrefix(a.ColumnType, "_") {
		a.ColumnType = "_" + string(pk.Type)
		if !strings.HasPrefix(pk.ColumnType, "_") && pk.ColumnType != "" {
			a.ColumnType = pk.ColumnType
		}
	}
	a.Assoc = &Association{Kind: BelongsTo, Target: t}
	return nil
}

// inverseOf finds the collection on a's target that is stored through a
// (its one-to-many parent side), if any.
func inverseOf(m *Model, a *Attribute) *Attribute {
	t := a.Assoc.Target
	for _, name := range t.Order {
		c := t.Attributes[name]
		if c.IsPlural() && c.Collection == m.Identity && c.Via == a.Name && c.Through == "" {
			return c
		}
	}
	return nil
}

func (s *Schema) resolvePlural(m *Model, a *Attribute) error {
	t := s.byID[a.Collection]
	if t == nil {
		return defErr(m, a.Name, "collection %q is not a known model", a.Collection)
	}
	if a.Through != "" {
		return s.resolveThrough(m, a, t)
	}
	if a.Via == "" {
		join, err := s.junction(m, a, t, a.Name+"_"+t.Identity, nil)
		if err != nil {
			return err
		}
		a.Assoc = &Association{Kind: ManyToMany, Target: t, Join: join}
		return nil
	}
	inv := t.Attributes[a.Via]
	switch {
	case inv == nil:
		return defErr(m, a.Name, "via %q names no attribute of %s", a.Via, t.Identity)
	case inv == a:
		return defErr(m, a.Name, "via cannot point a collection at itself")
	case inv.IsSingular():
		if inv.Model != m.Identity {
			return defErr(m, a.Name, "via %q: %s.%s points at %q, not back at %q", a.Via, t.Identity, a.Via, inv.Model, m.Identity)
		}
		if a.Dominant {
			return defErr(m, a.Name, "dominant is only allowed on a many-to-many collection, and %s.%s is a model attribute", t.Identity, a.Via)
		}
		a.Assoc = &Association{Kind: HasMany, Target: t, Inverse: inv}
		return nil
	case inv.IsPlural():
		if inv.Collection != m.Identity || inv.Via != a.Name {
			return defErr(m, a.Name, "via %q: %s.%s must be a collection of %q with via %q", a.Via, t.Identity, a.Via, m.Identity, a.Name)
		}
		if inv.Through != "" {
			return defErr(m, a.Name, "via %q: %s.%s uses through %q, so this side must use it too", a.Via, t.Identity, a.Via, inv.Through)
		}
		if a.Dominant && inv.Dominant {
			return defErr(m, a.Name, "both sides of the many-to-many with %s.%s are dominant", t.Identity, a.Via)
		}
		join, err := s.junction(m, a, t, a.Via, inv)
		if err != nil {
			return err
		}
		a.Assoc = &Association{Kind: ManyToMany, Target: t, Inverse: inv, Join: join}
		return nil
	}
	return defErr(m, a.Name, "via %q: %s.%s is not an association", a.Via, t.Identity, a.Via)
}

// resolveThrough applies flag-through-table.js: the through model holds a
// model attribute pointing back at m (via) and one pointing at t, and t
// declares the mirror collection through the same model.
func (s *Schema) resolveThrough(m *Model, a *Attribute, t *Model) error {
	th := s.byID[a.Through]
	if th == nil {
		return defErr(m, a.Name, "through %q is not a known model", a.Through)
	}
	back := th.Attributes[a.Via]
	if back == nil || back.Model != m.Identity {
		return defErr(m, a.Name, "via %q must name a model attribute of %s pointing at %q", a.Via, th.Identity, m.Identity)
	}
	var other *Attribute
	for _, name := range th.Order {
		if c := th.Attributes[name]; c != back && c.Model == t.Identity {
			other = c
			break
		}
	}
	if other == nil {
		return defErr(m, a.Name, "through %q has no model attribute pointing at %q (besides %q)", th.Identity, t.Identity, a.Via)
	}
	var mirror *Attribute
	for _, name := range t.Order {
		c := t.Attributes[name]
		if c != a && c.Collection == m.Identity && c.Through == a.Through && c.Via == other.Name {
			mirror = c
			break
		}
	}
	if mirror == nil {
		return defErr(m, a.Name, "%s must declare the mirror collection {collection: %s, via: %s, through: %s}",
			t.Identity, m.Identity, other.Name, th.Identity)
	}
	a.Assoc = &Association{Kind: Through, Target: t, Inverse: mirror, Join: &JoinTable{Model: th, ParentAttr: a.Via, ChildAttr: other.Name}}
	return nil
}

// side is one (model, attribute) end of a many-to-many relation.
type side struct {
	m    *Model
	attr string
}

func (d side) column() string { return d.m.Identity + "_" + d.attr }

// junction returns the join table of a (on m) from a's point of view,
// generating the junction model the first time either side asks
// (build-join-table-schema.js). via is the other side's attribute name,
// invented for via-less collections; inv is that attribute, if it exists.
func (s *Schema) junction(m *Model, a *Attribute, t *Model, via string, inv *Attribute) (*JoinTable, error) {
	me, them := side{m, a.Name}, side{t, via}
	pair := [2]side{me, them}
	if them.m.Identity < me.m.Identity || (them.m.Identity == me.m.Identity && them.attr < me.attr) {
		pair = [2]side{them, me}
	}
	table := pair[0].column() + "__" + pair[1].column()
	identity := strings.ToLower(table)
	j := s.byID[identity]
	switch {
	case j == nil:
		store := pair[0].m
		switch {
		case a.Dominant:
			store = m
		case inv != nil && inv.Dominant:
			store = t
		}
		j = newJunction(identity, table, store, pair)
		s.byID[identity] = j
		s.junctions = append(s.junctions, j)
	case !j.Junction:
		return nil, defErr(m, a.Name, "the join table %q of this collection collides with the model %q", table, j.Identity)
	}
	return &JoinTable{Model: j, ParentAttr: me.column(), ChildAttr: them.column()}, nil
}

func newJunction(identity, table string, store *Model, pair [2]side) *Model {
	j := &Model{
		Identity:   identity,
		TableName:  table,
		PrimaryKey: "id",
		Datastore:  store.Datastore,
		Schema:     true,
		Migrate:    store.Migrate,
		Attributes: map[string]*Attribute{},
		Order:      []string{"id"},
		Source:     "junction of " + pair[0].m.Identity + "." + pair[0].attr + " and " + pair[1].m.Identity + "." + pair[1].attr,
		Junction:   true,
	}
	j.Attributes["id"] = &Attribute{Name: "id", Type: Number, AutoIncrement: true, Unique: true, ColumnName: "id", ColumnType: "_numberkey"}
	for _, d := range pair {
		pk := d.m.PK()
		col := d.column()
		j.Attributes[col] = &Attribute{
			Name: col, Type: pk.Type, Required: true, ColumnName: col, ColumnType: "_" + string(pk.Type),
			Model: d.m.Identity, Assoc: &Association{Kind: BelongsTo, Target: d.m},
		}
		j.Order = append(j.Order, col)
	}
	return j
}
