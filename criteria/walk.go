package criteria

// Rename returns a copy of e whose attribute names are mapped through f
// (the ORM uses it to turn attribute names into column names).
func Rename(e Expr, f func(attr string) string) Expr {
	switch x := e.(type) {
	case *And:
		out := &And{Exprs: make([]Expr, len(x.Exprs))}
		for i, c := range x.Exprs {
			out.Exprs[i] = Rename(c, f)
		}
		return out
	case *Or:
		out := &Or{Exprs: make([]Expr, len(x.Exprs))}
		for i, c := range x.Exprs {
			out.Exprs[i] = Rename(c, f)
		}
		return out
	case *Cmp:
		return &Cmp{Attr: f(x.Attr), Op: x.Op, Value: x.Value}
	}
	return e
}
