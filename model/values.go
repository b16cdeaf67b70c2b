package model

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

var pkDigits = regexp.MustCompile(`^[0-9]+$`)

// NewRecord normalises in as a new record of m, with Waterline's create
// rules: unknown keys dropped (schema true) or, on a schemaless model, kept
// when their name is a ValidKey and their value JSON-compatible; values loosely coerced to their attribute's type and
// checked against its rules; omitted attributes filled with defaultsTo, the
// timestamp now, null (allowNull, singular associations) or the type's base
// value. An omitted primary key stays absent (the adapter assigns it), as do
// omitted collections; given collections become deduplicated []any of keys.
// The first problem found is returned as an *Error of kind Invalid with code
// CodeInvalidNewRecord naming the attribute. in is not modified.
func (m *Model) NewRecord(in map[string]any, now time.Time) (Record, error) {
	w := writer{m: m, code: CodeInvalidNewRecord, create: true}
	out, err := w.given(in)
	if err != nil {
		return nil, err
	}
	for _, name := range m.Order {
		if _, ok := in[name]; ok {
			continue
		}
		a := m.Attributes[name]
		switch {
		case a.Required:
			return nil, w.fail(name, "Missing value for required attribute `%s`.  Expected %s, but instead, got: undefined",
				name, expectedLabel(m, a))
		case name == m.PrimaryKey || a.IsPlural():
		case a.IsSingular():
			out[name] = nil
		case a.HasDefault:
			out[name] = cloneValue(a.DefaultsTo)
		case a.AutoCreatedAt || a.AutoUpdatedAt:
			out[name] = timestamp(a.Type, now)
		case a.AllowNull:
			out[name] = nil
		default:
			out[name] = baseValue(a.Type)
		}
	}
	return out, nil
}

// ValuesToSet normalises in as the values of an update of m, with the same
// per-key rules as NewRecord but no defaults and no check for missing
// required attributes (a required one given as null or ” is still
// refused). Every autoUpdatedAt attribute not supplied is set to now;
// autoCreatedAt ones change only when supplied. Plural associations stay in
// the result as normalised key lists, for the caller to refuse or apply.
// Errors are *Error of kind Invalid with code CodeInvalidValuesToSet.
func (m *Model) ValuesToSet(in map[string]any, now time.Time) (Record, error) {
	w := writer{m: m, code: CodeInvalidValuesToSet}
	out, err := w.given(in)
	if err != nil {
		return nil, err
	}
	for _, name := range m.Order {
		a := m.Attributes[name]
		if _, ok := in[name]; !ok && a.AutoUpdatedAt {
			out[name] = timestamp(a.Type, now)
		}
	}
	return out, nil
}

// NormalizePK applies Waterline's strict primary key rule to v for m: a
// number key must be a positive safe integer (a string of digits is
// converted) and comes back as float64; a string key must be a non-empty
// string. Failures are *Error of kind Invalid with code CodeInvalidCriteria;
// callers re-code them for their context.
func (m *Model) NormalizePK(v any) (any, error) {
	pk, err := strictPK(m.PK().Type, v)
	if err != nil {
		return nil, &Error{Kind: Invalid, Code: CodeInvalidCriteria, Model: m.Identity, Attrs: []string{m.PrimaryKey},
			Msg: fmt.Sprintf("Invalid primary key value for `%s`: %s", m.Identity, err.Error())}
	}
	return pk, nil
}

// strictPK is normalize-pk-value.js for a key of type t.
func strictPK(t Type, v any) (any, error) {
	if t == String {
		if s, ok := v.(string); ok && s != "" {
			if strings.IndexByte(s, 0) >= 0 {
				return nil, errors.New(NULMessage)
			}
			return s, nil
		}
		return nil, fmt.Errorf("instead of a non-empty string, got: %s", inspect(v))
	}
	if s, ok := v.(string); ok {
		if !pkDigits.MatchString(s) {
			return nil, fmt.Errorf("instead of a number or a string of digits, got: %s", inspect(v))
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("instead of a safe integer, got: %s", inspect(v))
		}
		v = f
	}
	f, ok := ToFloat(v)
	switch {
	case !ok:
		return nil, fmt.Errorf("instead of a number, got: %s", inspect(v))
	case f != math.Trunc(f) || math.IsNaN(f):
		return nil, fmt.Errorf("instead of an integer, got: %s", inspect(f))
	case f <= 0:
		return nil, fmt.Errorf("instead of a positive integer, got: %s", inspect(f))
	case f > maxSafeInteger:
		return nil, fmt.Errorf("instead of a safe integer, got: %s", inspect(f))
	}
	return f, nil
}

// writer holds what normalising one write needs.
type writer struct {
	m      *Model
	code   string
	create bool
}

func (w writer) fail(attr, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Code: w.code, Model: w.m.Identity, Attrs: []string{attr}, Msg: fmt.Sprintf(format, args...)}
}

// given normalises the keys present in in, attributes in definition order
// first so the reported problem does not depend on map order.
func (w writer) given(in map[string]any) (Record, error) {
	m := w.m
	out := make(Record, len(m.Order))
	for _, name := range m.Order {
		v, ok := in[name]
		if !ok {
			continue
		}
		if HasNUL(v) {
			return nil, w.fail(name, "Could not use specified `%s`: %s", name, NULMessage)
		}
		nv, err := w.value(m.Attributes[name], v)
		if err != nil {
			return nil, err
		}
		out[name] = nv
	}
	if m.Schema {
		return out, nil
	}
	for _, k := range sortedNames(in) {
		if m.Attributes[k] != nil {
			continue
		}
		v := in[k]
		if !ValidKey(k) {
			return nil, w.fail(k, "Could not use `%s`: an undeclared key must be a JavaScript identifier of letters, digits, _ or $ "+
				"(at most %d characters, not a reserved word).", k, MaxKeyLength)
		}
		if !jsonCompatible(v, 0) {
			return nil, w.fail(k, "Could not use specified `%s`.  Its value is not JSON-compatible.", k)
		}
		if HasNUL(v) {
			return nil, w.fail(k, "Could not use specified `%s`: %s", k, NULMessage)
		}
		out[k] = normalizeNumbers(v)
	}
	return out, nil
}

// value is normalize-value-to-set.js for one attribute.
func (w writer) value(a *Attribute, v any) (any, error) {
	m := w.m
	name := a.Name
	switch {
	case name == m.PrimaryKey:
		pk, err := strictPK(a.Type, v)
		if err != nil {
			return nil, w.fail(name, "Could not use specified `%s`.  Invalid primary key value: %s", name, err.Error())
		}
		return pk, w.rules(a, pk)
	case a.IsPlural():
		list, ok := v.([]any)
		if !ok {
			if v == nil {
				return nil, w.fail(name, "Could not use specified `%s`.  Expected an array of primary key values of `%s` records, but instead, got: null", name, a.Collection)
			}
			list = []any{v}
		}
		if len(list) > MaxIDs {
			return nil, w.fail(name, "Could not use specified `%s`: %s", name, TooManyIDs(len(list)))
		}
		ids := make([]any, 0, len(list))
		seen := make(map[any]struct{}, len(list))
		t := keyType(m, a)
		for _, e := range list {
			id, err := strictPK(t, e)
			if err != nil {
				return nil, w.fail(name, "Could not use specified `%s`.  Expected an array of primary key values of `%s` records, but one of the items is invalid: %s", name, a.Collection, err.Error())
			}
			if _, dup := seen[id]; !dup {
				seen[id] = struct{}{}
				ids = append(ids, id)
			}
		}
		return ids, nil
	case a.IsSingular():
		if v == nil {
			if a.Required {
				return nil, w.requiredEmpty(a, v)
			}
			return nil, nil
		}
		id, err := strictPK(keyType(m, a), v)
		if err != nil {
			return nil, w.fail(name, "Could not use specified `%s`.  Expected the primary key value of a `%s` record, but %s", name, a.Model, err.Error())
		}
		return id, nil
	}
	if (a.AutoCreatedAt || a.AutoUpdatedAt) && v == "" {
		return nil, w.fail(name, "Could not use specified `%s`.  If specified, the value of an auto timestamp must be %s, not an empty string.", name, describeType(a.Type))
	}
	if v == nil {
		switch {
		case a.Required:
			return nil, w.requiredEmpty(a, v)
		case a.AllowNull || a.Type == JSON || a.Type == Ref:
			return nil, nil
		}
		return nil, w.fail(name, "Specified value (null) is not a valid `%s`.  Even though this attribute is optional, "+
			"it still does not allow null to be explicitly set, because `allowNull` is not enabled for it.  "+
			"Instead, to indicate \"voidness\", please set the value for this attribute to the base value for its type, %s.  "+
			"Or, if you specifically need to save `null`, then change this attribute to either `type: 'json'` or `type: 'ref'`, "+
			"or set `allowNull: true`.", name, inspect(baseValue(a.Type)))
	}
	cv, err := CoerceLoose(a.Type, normalizeNumbers(v))
	if err != nil {
		prefix := "Could not use specified `" + name + "`."
		if w.create {
			prefix = "New record contains the wrong type of data for property `" + name + "`."
		}
		return nil, w.fail(name, "%s  Specified value is not a valid `%s`.  Expected %s, but instead, got: %s",
			prefix, name, describeType(a.Type), inspect(v))
	}
	if a.Required && cv == "" {
		return nil, w.requiredEmpty(a, cv)
	}
	return cv, w.rules(a, cv)
}

func (w writer) requiredEmpty(a *Attribute, v any) *Error {
	return w.fail(a.Name, "Cannot set %s for required attribute `%s`.  Expected %s, but instead, got: %s",
		inspect(v), a.Name, expectedLabel(w.m, a), inspect(v))
}

// rules checks the validation rules; null is never checked.
func (w writer) rules(a *Attribute, v any) error {
	if v == nil {
		return nil
	}
	msgs := a.violations(v)
	if len(msgs) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Could not use specified `%s`.  Violated one or more validation rules:", a.Name)
	for _, msg := range msgs {
		b.WriteString("\n  • ")
		b.WriteString(msg)
	}
	return w.fail(a.Name, "%s", b.String())
}

// keyType is the primary key type of the model an association targets;
// before schema resolution a singular attribute's own Type stands in, and a
// plural one is taken as a number key.
func keyType(m *Model, a *Attribute) Type {
	if a.Assoc != nil && a.Assoc.Target != nil {
		if pk := a.Assoc.Target.PK(); pk != nil {
			return pk.Type
		}
	}
	if a.Type == String {
		return String
	}
	return Number
}

// NULMessage explains the refusal of text holding the NUL character.
const NULMessage = "text must not contain the NUL character (\\u0000), which PostgreSQL cannot store."

// HasNUL reports whether v, a value as JSON decodes it, holds a string or
// a dictionary key with the NUL character. Skiff refuses such text on
// every engine alike (PostgreSQL cannot store it in text or jsonb).
func HasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.IndexByte(x, 0) >= 0
	case []any:
		for _, e := range x {
			if HasNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.IndexByte(k, 0) >= 0 || HasNUL(e) {
				return true
			}
		}
	}
	return false
}

// MaxIDs bounds the primary keys one write may name for one collection
// (a create's or update's collection value, a replace): every engine
// accepts the statements that many become, and no honest client sends more.
const MaxIDs = 10000

// TooManyIDs explains the refusal of a list of n keys, more than MaxIDs.
func TooManyIDs(n int) string {
	return fmt.Sprintf("%d primary keys given, at most %d are allowed in one request.", n, MaxIDs)
}

func expectedLabel(m *Model, a *Attribute) string {
	switch {
	case a.IsSingular():
		return "the primary key value of a `" + a.Model + "` record"
	case a.IsPlural():
		return "an array of primary key values"
	}
	return describeType(a.Type)
}

// timestamp is now in the format Sails stores for type t: epoch
// milliseconds for numbers, Date#toJSON's ISO string otherwise.
func timestamp(t Type, now time.Time) any {
	if t == Number || t == JSON {
		return float64(now.UnixMilli())
	}
	return now.UTC().Format("2006-01-02T15:04:05.000Z")
}

// baseValue is rttc's base value of a type.
func baseValue(t Type) any {
	switch t {
	case String:
		return ""
	case Number:
		return 0.0
	case Boolean:
		return false
	}
	return nil
}
