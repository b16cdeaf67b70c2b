package model

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DefinitionError reports a model definition that Skiff refuses to load, as
// Sails refuses to lift. Source is the file (or "models config" for the
// project-wide defaults), Model the identity, Attr the attribute concerned
// (empty for model-level problems).
type DefinitionError struct {
	Source string
	Model  string
	Attr   string
	Msg    string
}

// Error renders e as `<source>: attribute "<attr>": <msg>`.
func (e *DefinitionError) Error() string {
	var b strings.Builder
	switch {
	case e.Source != "":
		b.WriteString(e.Source)
	case e.Model != "":
		fmt.Fprintf(&b, "model %q", e.Model)
	default:
		b.WriteString("model definition")
	}
	b.WriteString(": ")
	if e.Attr != "" {
		fmt.Fprintf(&b, "attribute %q: ", e.Attr)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// defaultsSource names the project-wide model defaults in error messages.
const defaultsSource = "models config"

var identityPattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Parse reads one model definition def (decoded from YAML or JSON) with the
// project-wide defaults (the app's `models` config section, may be nil) and
// returns the model with Sails' defaults applied: primaryKey "id", tableName
// = identity, datastore "default", schema true. Migrate stays empty when
// neither def nor defaults set it; the caller applies the environment's
// default. identity is lower-cased, as Sails does with file names.
//
// Attribute order is the primary key first, then the model's own attributes
// by name, then the inherited default attributes by name (decoded maps carry
// no order). Associations are not resolved: see NewSchema. Every refusal is
// a *DefinitionError.
func Parse(identity, source string, def, defaults map[string]any) (*Model, error) {
	identity = strings.ToLower(identity)
	p := &parser{source: source, model: identity}
	if !identityPattern.MatchString(identity) {
		return nil, p.errf("", "identity %q must match ^[a-z_][a-z0-9_]*$", identity)
	}
	m := &Model{
		Identity:   identity,
		TableName:  identity,
		PrimaryKey: "id",
		Datastore:  "default",
		Schema:     true,
		Attributes: map[string]*Attribute{},
		Source:     source,
	}
	dp := &parser{source: defaultsSource, model: identity}
	defAttrs, err := dp.settings(m, defaults, true)
	if err != nil {
		return nil, err
	}
	ownAttrs, err := p.settings(m, def, false)
	if err != nil {
		return nil, err
	}
	var own, inherited []string
	for _, name := range sortedNames(ownAttrs) {
		if v := ownAttrs[name]; v == false {
			continue // removes an inherited attribute
		}
		own = append(own, name)
	}
	for _, name := range sortedNames(defAttrs) {
		if _, ok := ownAttrs[name]; !ok && defAttrs[name] != false {
			inherited = append(inherited, name)
		}
	}
	for _, name := range append(own, inherited...) {
		v, ok := ownAttrs[name]
		if !ok {
			v = defAttrs[name]
		}
		a, err := p.attribute(name, v)
		if err != nil {
			return nil, err
		}
		m.Attributes[name] = a
	}
	if err := p.checkModel(m); err != nil {
		return nil, err
	}
	order := []string{m.PrimaryKey}
	for _, name := range append(own, inherited...) {
		if name != m.PrimaryKey {
			order = append(order, name)
		}
	}
	m.Order = order
	return m, nil
}

type parser struct {
	source string
	model  string
}

func (p *parser) errf(attr, format string, args ...any) *DefinitionError {
	return &DefinitionError{Source: p.source, Model: p.model, Attr: attr, Msg: fmt.Sprintf(format, args...)}
}

// legacyModelKeys are Sails 0.x model settings that fail the lift in 1.x.
var legacyModelKeys = map[string]string{
	"autoPK":        "autoPK is no longer supported: declare the primary key attribute and name it in primaryKey",
	"autoCreatedAt": "top-level autoCreatedAt is no longer supported: set autoCreatedAt: true on an attribute",
	"autoUpdatedAt": "top-level autoUpdatedAt is no longer supported: set autoUpdatedAt: true on an attribute",
	"connection":    "connection is no longer supported: use datastore",
	"types":         "custom types are no longer supported: use validation rules",
}

// ignoredModelKeys are Sails model settings Skiff accepts without effect.
var ignoredModelKeys = map[string]bool{
	"description": true, "globalId": true, "archiveModelIdentity": true, "dataEncryptionKeys": true,
	"fetchRecordsOnCreate": true, "fetchRecordsOnCreateEach": true, "fetchRecordsOnUpdate": true,
	"fetchRecordsOnDestroy": true, "dontUseObjectIds": true,
}

// settings applies the model-level keys of def to m and returns its
// attribute definitions.
func (p *parser) settings(m *Model, def map[string]any, isDefaults bool) (map[string]any, error) {
	var attrs map[string]any
	for _, k := range sortedNames(def) {
		v := def[k]
		if msg, ok := legacyModelKeys[k]; ok {
			return nil, p.errf("", "%s", msg)
		}
		if ignoredModelKeys[k] {
			continue
		}
		switch k {
		case "attributes":
			if v == nil {
				continue
			}
			a, ok := v.(map[string]any)
			if !ok {
				return nil, p.errf("", "attributes must be a dictionary, not %s", describeDef(v))
			}
			attrs = a
		case "primaryKey", "tableName", "datastore":
			if k == "tableName" && isDefaults {
				return nil, p.errf("", "tableName cannot be set for every model")
			}
			s, ok := v.(string)
			if !ok || s == "" {
				return nil, p.errf("", "%s must be a non-empty string, not %s", k, describeDef(v))
			}
			switch k {
			case "primaryKey":
				m.PrimaryKey = s
			case "tableName":
				m.TableName = s
			default:
				m.Datastore = s
			}
		case "schema", "cascadeOnDestroy":
			b, ok := v.(bool)
			if !ok {
				return nil, p.errf("", "%s must be true or false, not %s", k, describeDef(v))
			}
			if k == "schema" {
				m.Schema = b
			} else {
				m.CascadeOnDestroy = b
			}
		case "migrate":
			s, _ := v.(string)
			switch Migrate(s) {
			case MigrateSafe, MigrateAlter, MigrateDrop:
				m.Migrate = Migrate(s)
			default:
				return nil, p.errf("", "migrate must be safe, alter or drop, not %s", describeDef(v))
			}
		case "customToJSON":
			omit, queryable, err := p.customToJSON(v)
			if err != nil {
				return nil, err
			}
			m.Omit, m.Queryable = omit, queryable
		case "identity":
			if s, ok := v.(string); isDefaults || !ok || strings.ToLower(s) != p.model {
				return nil, p.errf("", "identity %s does not match the identity %q taken from the file name", describeDef(v), p.model)
			}
		default:
			return nil, p.errf("", "unknown model setting %q", k)
		}
	}
	return attrs, nil
}

// customToJSON reads {omit: [...], queryable: [...]}.
func (p *parser) customToJSON(v any) (omit, queryable []string, err error) {
	d, ok := v.(map[string]any)
	if !ok {
		return nil, nil, p.errf("", "customToJSON must be a dictionary {omit: [attribute names]}, not %s", describeDef(v))
	}
	for k, x := range d {
		var names *[]string
		switch k {
		case "omit":
			names = &omit
		case "queryable":
			names = &queryable
		default:
			return nil, nil, p.errf("", "customToJSON: unknown key %q (only omit and queryable are supported)", k)
		}
		list, ok := x.([]any)
		if !ok {
			return nil, nil, p.errf("", "customToJSON.%s must be a list of attribute names, not %s", k, describeDef(x))
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil, nil, p.errf("", "customToJSON.%s must list attribute names, not %s", k, describeDef(e))
			}
			*names = append(*names, s)
		}
	}
	return omit, queryable, nil
}

// checkModel runs the checks that need the whole attribute set.
func (p *parser) checkModel(m *Model) error {
	pk := m.Attributes[m.PrimaryKey]
	if pk == nil {
		return p.errf("", "primaryKey %q names no attribute", m.PrimaryKey)
	}
	switch {
	case pk.IsAssociation():
		return p.errf(pk.Name, "the primary key cannot be an association")
	case pk.Type != String && pk.Type != Number:
		return p.errf(pk.Name, "the primary key must have type string or number, not %s", pk.Type)
	case pk.AllowNull:
		return p.errf(pk.Name, "allowNull is not allowed on the primary key")
	case pk.HasDefault:
		return p.errf(pk.Name, "defaultsTo is not allowed on the primary key")
	case pk.AutoCreatedAt || pk.AutoUpdatedAt:
		return p.errf(pk.Name, "the primary key cannot be an auto timestamp")
	}
	pk.Unique = true
	if pk.ColumnType == "" {
		pk.ColumnType = "_" + string(pk.Type) + "key"
	}
	for _, name := range m.Omit {
		// A schemaless model may hide an undeclared key too (Sails'
		// customToJSON is a function that can delete any key).
		if m.Attributes[name] == nil && (m.Schema || !ValidKey(name)) {
			return p.errf("", "customToJSON.omit names %q, which is not an attribute", name)
		}
	}
	for _, name := range m.Queryable {
		if !slices.Contains(m.Omit, name) {
			return p.errf("", "customToJSON.queryable names %q, which customToJSON.omit does not hide", name)
		}
	}
	return nil
}

// attrBoolKeys are the attribute keys that take true or false.
var attrBoolKeys = map[string]bool{
	"required": true, "allowNull": true, "unique": true, "autoIncrement": true,
	"autoCreatedAt": true, "autoUpdatedAt": true, "dominant": true,
}

// attrStringKeys are the attribute keys that take a non-empty string.
var attrStringKeys = map[string]bool{
	"type": true, "columnName": true, "columnType": true, "model": true,
	"collection": true, "via": true, "through": true,
}

// ignoredAttrKeys are documentation keys Sails accepts on attributes.
var ignoredAttrKeys = map[string]bool{
	"description": true, "example": true, "extendedDescription": true, "meta": true, "moreInfoUrl": true,
}

// legacyAttrKeys fail the lift in Sails 1.x.
var legacyAttrKeys = map[string]string{
	"primaryKey": "primaryKey on an attribute is no longer supported: name the attribute in the model's primaryKey",
	"protected":  "protected is no longer supported: use customToJSON: {omit: [...]}",
	"encrypt":    "encrypt is not supported by Skiff",
	"custom":     "custom rules can only be set from Go (Attribute.CustomRules)",
	"validations": "validation rules are written directly on the attribute " +
		"(e.g. isEmail: true), not under validations",
}

// legacyTypes are Sails 0.x types refused by 1.x; renamedTypes are accepted.
var (
	legacyTypes  = []string{"array", "date", "datetime", "binary", "objectid", "mediumint", "bigint"}
	renamedTypes = map[string]Type{
		"text": String, "mediumtext": String, "longtext": String,
		"integer": Number, "float": Number,
	}
)

func (p *parser) attribute(name string, v any) (*Attribute, error) {
	switch {
	case name == "":
		return nil, p.errf(name, "attribute names cannot be empty")
	case strings.Contains(name, "."):
		return nil, p.errf(name, "attribute names cannot contain a dot")
	case name == "toJSON":
		return nil, p.errf(name, "toJSON cannot be an attribute: use customToJSON")
	}
	var def map[string]any
	switch x := v.(type) {
	case string:
		def = map[string]any{"type": x}
	case map[string]any:
		def = x
	default:
		return nil, p.errf(name, "definition must be a type name or a dictionary, not %s", describeDef(v))
	}
	a := &Attribute{Name: name}
	var rules []Rule
	for _, k := range sortedNames(def) {
		val := def[k]
		if msg, ok := legacyAttrKeys[k]; ok {
			return nil, p.errf(name, "%s", msg)
		}
		if ignoredAttrKeys[k] {
			continue
		}
		if attrBoolKeys[k] {
			b, ok := val.(bool)
			if !ok {
				return nil, p.errf(name, "%s must be true or false, not %s", k, describeDef(val))
			}
			switch k {
			case "required":
				a.Required = b
			case "allowNull":
				a.AllowNull = b
			case "unique":
				a.Unique = b
			case "autoIncrement":
				a.AutoIncrement = b
			case "autoCreatedAt":
				a.AutoCreatedAt = b
			case "autoUpdatedAt":
				a.AutoUpdatedAt = b
			case "dominant":
				a.Dominant = b
			}
			continue
		}
		if attrStringKeys[k] {
			s, ok := val.(string)
			if !ok || s == "" {
				return nil, p.errf(name, "%s must be a non-empty string, not %s", k, describeDef(val))
			}
			switch k {
			case "type":
				t, err := p.attrType(name, s)
				if err != nil {
					return nil, err
				}
				a.Type = t
			case "columnName":
				a.ColumnName = s
			case "columnType":
				a.ColumnType = s
			case "model":
				a.Model = strings.ToLower(s)
			case "collection":
				a.Collection = strings.ToLower(s)
			case "via":
				a.Via = s
			case "through":
				a.Through = strings.ToLower(s)
			}
			continue
		}
		if k == "defaultsTo" {
			a.HasDefault = true
			a.DefaultsTo = normalizeNumbers(val)
			continue
		}
		r, ok, err := p.rule(name, k, val)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if slices.ContainsFunc(rules, func(x Rule) bool { return x.Name == r.Name }) {
			return nil, p.errf(name, "rule %s is given twice (under a legacy name too)", r.Name)
		}
		rules = append(rules, r)
	}
	if err := p.checkAttribute(a, hasKey(def, "type")); err != nil {
		return nil, err
	}
	if !a.IsAssociation() {
		// Rules on associations are ignored, as Sails does.
		a.Rules = rules
		if err := p.checkRules(a); err != nil {
			return nil, err
		}
	}
	if a.HasDefault {
		if err := p.checkDefault(a); err != nil {
			return nil, err
		}
	}
	if a.ColumnName == "" {
		a.ColumnName = strings.Replace(name, " ", "_", 1)
	}
	if a.ColumnType == "" && a.Type != "" {
		a.ColumnType = "_" + string(a.Type)
		if a.AutoCreatedAt || a.AutoUpdatedAt {
			a.ColumnType += "timestamp"
		}
	}
	return a, nil
}

func hasKey(d map[string]any, k string) bool { _, ok := d[k]; return ok }

func (p *parser) attrType(name, s string) (Type, error) {
	t := Type(strings.ToLower(s))
	switch t {
	case String, Number, Boolean, JSON, Ref:
		return t, nil
	}
	if r, ok := renamedTypes[string(t)]; ok {
		return r, nil
	}
	if slices.Contains(legacyTypes, string(t)) {
		return "", p.errf(name, "type %q is no longer supported: use one of string, number, boolean, json, ref (and columnType for the column)", s)
	}
	return "", p.errf(name, "unknown type %q (use string, number, boolean, json or ref)", s)
}

// checkAttribute enforces the combinations Sails refuses.
func (p *parser) checkAttribute(a *Attribute, hasType bool) error {
	name := a.Name
	ts := a.AutoCreatedAt || a.AutoUpdatedAt
	switch {
	case a.Model != "" && a.Collection != "":
		return p.errf(name, "model and collection cannot be used together")
	case a.IsAssociation() && hasType:
		return p.errf(name, "an association cannot declare a type")
	case !a.IsAssociation() && !hasType:
		return p.errf(name, "type is required (string, number, boolean, json or ref)")
	case a.Via != "" && !a.IsPlural():
		return p.errf(name, "via is only allowed with collection")
	case a.Through != "" && !a.IsPlural():
		return p.errf(name, "through is only allowed with collection")
	case a.Through != "" && a.Via == "":
		return p.errf(name, "through requires via (the through model's attribute pointing back here)")
	case a.Dominant && (!a.IsPlural() || a.Via == "" || a.Through != ""):
		return p.errf(name, "dominant is only allowed on a many-to-many collection with via")
	case a.IsPlural() && a.Required:
		return p.errf(name, "required is not allowed on a collection")
	case a.IsPlural() && a.ColumnName != "":
		return p.errf(name, "columnName is not allowed on a collection")
	case a.IsPlural() && a.Unique:
		return p.errf(name, "unique is not allowed on a collection")
	case a.IsAssociation() && a.HasDefault:
		return p.errf(name, "defaultsTo is not allowed on an association")
	case a.IsAssociation() && a.AllowNull:
		return p.errf(name, "allowNull is not allowed on an association")
	case a.IsAssociation() && (ts || a.AutoIncrement):
		return p.errf(name, "an association cannot be an auto timestamp or auto-increment")
	case a.Required && a.HasDefault:
		return p.errf(name, "required cannot be combined with defaultsTo")
	case a.Required && a.AllowNull:
		return p.errf(name, "required cannot be combined with allowNull")
	case a.Required && ts:
		return p.errf(name, "required cannot be combined with an auto timestamp")
	case a.AutoCreatedAt && a.AutoUpdatedAt:
		return p.errf(name, "autoCreatedAt and autoUpdatedAt cannot be used together")
	case ts && a.Type != Number && a.Type != String && a.Type != Ref:
		return p.errf(name, "an auto timestamp must have type number, string or ref, not %s", a.Type)
	case ts && a.HasDefault:
		return p.errf(name, "defaultsTo is not allowed on an auto timestamp")
	case ts && a.AllowNull:
		return p.errf(name, "allowNull is not allowed on an auto timestamp")
	case a.AllowNull && (a.Type == JSON || a.Type == Ref):
		return p.errf(name, "allowNull is not allowed on type %s (it accepts null already)", a.Type)
	case a.AllowNull && a.HasDefault && a.DefaultsTo == nil:
		return p.errf(name, "allowNull cannot be combined with defaultsTo: null")
	case a.AutoIncrement && a.Type != Number:
		return p.errf(name, "autoIncrement requires type number")
	}
	return nil
}

// checkDefault validates defaultsTo strictly against the type and the rules.
func (p *parser) checkDefault(a *Attribute) error {
	v := a.DefaultsTo
	ok := false
	switch a.Type {
	case String:
		_, ok = v.(string)
	case Number:
		f, isNum := v.(float64)
		ok = isNum && f == f
	case Boolean:
		_, ok = v.(bool)
	case JSON:
		ok = jsonCompatible(v, 0)
	case Ref:
		ok = true
	}
	if !ok {
		return p.errf(a.Name, "defaultsTo %s is not %s", describeDef(v), describeType(a.Type))
	}
	if v != nil {
		if msgs := a.violations(v); len(msgs) > 0 {
			return p.errf(a.Name, "defaultsTo %s violates a validation rule: %s", describeDef(v), msgs[0])
		}
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describeDef renders a definition value for error messages.
func describeDef(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string, float64, bool, []any, map[string]any:
		return Describe(v)
	}
	if f, ok := ToFloat(v); ok {
		return FormatNumber(f)
	}
	return fmt.Sprintf("%T", v)
}
