package blueprint

import (
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

// refuseHidden refuses criteria over m that filter, sort or select on an
// attribute customToJSON hides from clients (model.Model.Hidden): answers
// never show it, and a client must not recover it by searching either
// (startsWith one character at a time). Sails allows it; the ORM, used from
// Go, still does. code is the error code to answer with.
func refuseHidden(m *model.Model, c *criteria.Criteria, code string) error {
	if len(m.Omit) == 0 || c == nil {
		return nil
	}
	if attr, ok := hiddenIn(m, c.Where); ok {
		return hiddenError(m, code, "filter by", attr)
	}
	for _, s := range c.Sort {
		if m.Hidden(s.Attr) {
			return hiddenError(m, code, "sort by", s.Attr)
		}
	}
	for _, name := range c.Select {
		if m.Hidden(name) {
			return hiddenError(m, code, "select", name)
		}
	}
	return nil
}

// hiddenIn returns the first hidden attribute e compares.
func hiddenIn(m *model.Model, e criteria.Expr) (string, bool) {
	var list []criteria.Expr
	switch x := e.(type) {
	case *criteria.Cmp:
		return x.Attr, m.Hidden(x.Attr)
	case *criteria.And:
		list = x.Exprs
	case *criteria.Or:
		list = x.Exprs
	}
	for _, c := range list {
		if attr, ok := hiddenIn(m, c); ok {
			return attr, true
		}
	}
	return "", false
}

func hiddenError(m *model.Model, code, verb, attr string) error {
	return &model.Error{Kind: model.Invalid, Code: code, Model: m.Identity, Attrs: []string{attr},
		Msg: "Cannot " + verb + " `" + attr + "`: customToJSON hides it from clients of " + m.Identity +
			" (list it in customToJSON.queryable to allow this)."}
}
