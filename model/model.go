// Package model holds Skiff's domain types: models, attributes, associations,
// records and the classified error every layer returns. It imports nothing
// else of Skiff, so every other package may depend on it.
package model

import "slices"

// Type is the Sails type of a plain attribute.
type Type string

// The five attribute types of Sails 1.x.
const (
	String  Type = "string"
	Number  Type = "number"
	Boolean Type = "boolean"
	JSON    Type = "json"
	Ref     Type = "ref"
)

// Migrate is a schema synchronisation strategy for a model's table.
type Migrate string

// The auto-migration strategies. Alter keeps rows (Skiff alters in place).
const (
	MigrateSafe  Migrate = "safe"
	MigrateAlter Migrate = "alter"
	MigrateDrop  Migrate = "drop"
)

// Rule is one validation rule of an attribute, e.g. {Name: "maxLength", Arg: 20}.
// Arg holds the configured value as read from the definition (true for flag
// rules, a number, a list, or a pattern string for regex).
type Rule struct {
	Name string
	Arg  any
}

// Attribute describes one attribute of a model: a plain value, a singular
// association (Model set) or a plural one (Collection set).
type Attribute struct {
	Name string
	// Type is empty for associations; a singular association takes the type
	// of the target's primary key when it is resolved (see KeyType).
	Type          Type
	Required      bool
	AllowNull     bool
	HasDefault    bool
	DefaultsTo    any
	Unique        bool
	ColumnName    string
	ColumnType    string
	AutoIncrement bool
	AutoCreatedAt bool
	AutoUpdatedAt bool
	Rules         []Rule
	// Custom rules, only settable from Go; each returns nil when v passes.
	CustomRules []func(v any) error

	// Model is the identity targeted by a singular association.
	Model string
	// Collection is the identity targeted by a plural association.
	Collection string
	// Via names the inverse attribute on the other model, if any.
	Via string
	// Through names an explicit join model, if any.
	Through  string
	Dominant bool

	// Set by Schema resolution.
	Assoc *Association
}

// IsAssociation reports whether a is a singular or plural association.
func (a *Attribute) IsAssociation() bool { return a.Model != "" || a.Collection != "" }

// IsPlural reports whether a is a collection (plural association).
func (a *Attribute) IsPlural() bool { return a.Collection != "" }

// IsSingular reports whether a is a model (singular) association.
func (a *Attribute) IsSingular() bool { return a.Model != "" }

// Model is one application model after its definition was read and merged
// with the project-wide defaults.
type Model struct {
	// Identity is the lower-case name used in URLs, rooms and events.
	Identity   string
	TableName  string
	PrimaryKey string
	Datastore  string
	// Schema true (the default) drops unknown keys on write and rejects them in criteria.
	Schema           bool
	Migrate          Migrate
	CascadeOnDestroy bool
	// Attributes by name; Order keeps definition order (used for column order).
	Attributes map[string]*Attribute
	Order      []string
	// Omit lists attributes never serialised to clients (customToJSON: {omit: [...]}).
	Omit []string
	// Queryable lists attributes of Omit that blueprint criteria may still
	// filter, sort and select on (customToJSON: {queryable: [...]}); the
	// others are refused there, so that a client cannot recover a hidden
	// value by searching for it.
	Queryable []string
	// ToJSON, when set (Go embedding only), replaces the declarative Omit:
	// it receives a copy of the record and returns what clients see.
	ToJSON func(Record) Record
	// Source names the file the definition came from, for error messages.
	Source string
	// Junction is true for implicit join-table models that Skiff generated.
	Junction bool

	// assocs, set by NewSchema, lists the attributes whose values
	// SerializeOwned descends into (those with a resolved target), so that
	// it looks those keys up instead of walking every key of every record.
	// nil before resolution: SerializeOwned then walks the keys.
	assocs []string
}

// Attr returns the attribute named name, or nil.
func (m *Model) Attr(name string) *Attribute { return m.Attributes[name] }

// Hidden reports whether clients may not query attr: customToJSON hides
// it and does not list it as queryable.
func (m *Model) Hidden(attr string) bool {
	return slices.Contains(m.Omit, attr) && !slices.Contains(m.Queryable, attr)
}

// PK returns the primary key attribute.
func (m *Model) PK() *Attribute { return m.Attributes[m.PrimaryKey] }

// Record maps attribute names to values. A value is nil, bool, float64
// (every number), string, []any, map[string]any (json), or for populated
// associations Record / []Record.
type Record map[string]any

// AssocKind classifies a resolved association.
type AssocKind uint8

// The association kinds Skiff stores.
const (
	// BelongsTo is a singular attribute: a foreign-key column on this model.
	BelongsTo AssocKind = iota + 1
	// HasMany is a collection whose via is a singular attribute on the child.
	HasMany
	// ManyToMany is a collection stored in a join table (with or without via).
	ManyToMany
	// Through is a collection stored through an explicit join model.
	Through
)

// Association is the resolved form of an association attribute.
type Association struct {
	Kind AssocKind
	// Target is the model at the other end.
	Target *Model
	// Inverse is the attribute on Target that points back (nil when none).
	Inverse *Attribute
	// Join describes the join table for ManyToMany and Through.
	Join *JoinTable
}

// JoinTable describes the table linking two sides of a plural association.
// For ManyToMany it is an implicit junction model named as Sails names it;
// for Through it is the user's through model.
type JoinTable struct {
	Model *Model
	// ParentColumn holds this side's primary key; ChildColumn the target's.
	ParentAttr string
	ChildAttr  string
}

// Clone returns a copy of m that shares nothing Schema resolution writes
// (the model, its attributes and their lists), so that resolving the copy
// leaves m as its owner wrote it.
func (m *Model) Clone() *Model {
	c := *m
	c.Attributes = make(map[string]*Attribute, len(m.Attributes))
	for name, a := range m.Attributes {
		ac := *a
		c.Attributes[name] = &ac
	}
	c.Order = slices.Clone(m.Order)
	c.Omit = slices.Clone(m.Omit)
	c.Queryable = slices.Clone(m.Queryable)
	return &c
}
