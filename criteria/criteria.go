// Package criteria holds the Waterline query language: the normalised
// criteria tree (where, sort, limit, skip, select, omit) and Normalize, which
// turns the loose JSON-shaped criteria a client sends into that tree for one
// model, with Waterline's rules and error codes. It knows nothing of SQL.
package criteria

// Op is a comparison operator of a normalised constraint.
type Op uint8

// The operators left after normalisation. contains, startsWith and endsWith
// become Like; deprecated aliases (lessThan, not, ...) map to these.
const (
	Eq Op = iota + 1
	Ne
	Lt
	Lte
	Gt
	Gte
	In
	Nin
	Like
)

// String returns the operator as Waterline spells it.
func (o Op) String() string {
	switch o {
	case Eq:
		return "="
	case Ne:
		return "!="
	case Lt:
		return "<"
	case Lte:
		return "<="
	case Gt:
		return ">"
	case Gte:
		return ">="
	case In:
		return "in"
	case Nin:
		return "nin"
	case Like:
		return "like"
	}
	return "?"
}

// Expr is a node of a normalised where clause: *And, *Or or *Cmp. A nil Expr
// matches every record.
type Expr interface{ isExpr() }

// And matches records matching every child. An empty And matches everything.
type And struct{ Exprs []Expr }

// Or matches records matching at least one child. An empty Or matches nothing.
type Or struct{ Exprs []Expr }

// Cmp compares one attribute (or, inside a datastore query, one column) with
// a value. Value is nil (Eq/Ne only: IS [NOT] NULL), a bool, float64 or
// string, a []any for In/Nin, or a Like pattern string in which % is a
// wildcard and \% a literal percent sign.
//
// Key is set only in datastore queries, never by Normalize: it names one
// top-level key of the JSON object stored in the column Attr (the
// catch-all column of a schemaless model), and the comparison applies to
// that key's value, type-strictly (see datastore.Query).
type Cmp struct {
	Attr  string
	Key   string
	Op    Op
	Value any
}

func (*And) isExpr() {}
func (*Or) isExpr()  {}
func (*Cmp) isExpr() {}

// Sort is one sort key. Key, as in Cmp, names a key inside the JSON
// column Attr (datastore queries only).
type Sort struct {
	Attr string
	Key  string
	Desc bool
}

// Unlimited is the Limit meaning "no limit" (Waterline's MAX_SAFE_INTEGER).
const Unlimited int64 = 9007199254740991

// Criteria is a normalised query. Where is nil when it matches everything.
type Criteria struct {
	Where Expr
	// Limit is Unlimited when no limit applies. A criteria whose Limit is 0
	// matches nothing (Noop).
	Limit int64
	Skip  int64
	Sort  []Sort
	// Select lists the attributes to return (the primary key always
	// included); nil means all. Omit lists attributes not to return.
	Select []string
	Omit   []string
	// Noop reports a criteria that can match nothing (Waterline E_NOOP:
	// limit 0, in: [], or: []); callers answer without querying.
	Noop bool
}
