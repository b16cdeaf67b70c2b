package criteria

// Rename returns a copy of e whose attribute names are mapped through f
// (the ORM uses it to turn attribute names into column names).
func Rename(e Expr, f func(attr string) string) Expr {
	return Map(e, func(c Cmp) Cmp {
		c.Attr = f(c.Attr)
		return c
	})
}

// Map returns a copy of e in which every comparison is replaced by what f
// returns for a copy of it. e is not modified.
func Map(e Expr, f func(Cmp) Cmp) Expr {
	switch x := e.(type) {
	case *And:
		out := &And{Exprs: make([]Expr, len(x.Exprs))}
		for i, c := range x.Exprs {
			out.Exprs[i] = Map(c, f)
		}
		return out
	case *Or:
		out := &Or{Exprs: make([]Expr, len(x.Exprs))}
		for i, c := range x.Exprs {
			out.Exprs[i] = Map(c, f)
		}
		return out
	case *Cmp:
		c := f(*x)
		return &c
	}
	return e
}
