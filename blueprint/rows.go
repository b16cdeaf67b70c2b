package blueprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/internal/jsonenc"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// rowsJSON answers a find with its JSON, written as the rows are read
// (orm.FindRows), without making records: byte for byte what encoding the
// records Find returns, serialised, would write (TestFindJSONSameBytes).
// With list, the records are written as a list; without, one after the
// other (findOne's one record). n is how many were read. ok is false, with
// nothing read, when the answer needs records: customToJSON functions,
// collections to populate, an adapter that cannot hand rows over. Callers
// ask orm.RowsReadable first, so that a read needing records prepares
// nothing for the rows. The JSON is written into buf (Request.Buffer)
// unless it is smaller than the last such answer, which the new buffer
// then fits.
func (s *Service) rowsJSON(ctx context.Context, m *model.Model, c *criteria.Criteria, pops []orm.Populate, list bool, buf []byte) (body json.RawMessage, n int, ok bool, err error) {
	if m.ToJSON != nil {
		return nil, 0, false, nil
	}
	for _, p := range pops {
		if a := m.Attributes[p.Attr]; a == nil || a.Assoc == nil || a.Assoc.Target == nil || a.Assoc.Target.ToJSON != nil {
			return nil, 0, false, nil
		}
	}
	size := &s.answerSize[0]
	if list {
		size = &s.answerSize[1]
	}
	if hint := size.Load(); int64(cap(buf)) < hint {
		buf = make([]byte, 0, hint)
	}
	rw, _ := s.writers.Get().(*rowsWriter)
	if rw == nil {
		rw = new(rowsWriter)
	}
	*rw = rowsWriter{s: s, m: m, list: list, w: jsonenc.NewWriter(buf[:0], nil)}
	defer func() {
		*rw = rowsWriter{} // nothing of this answer stays reachable
		s.writers.Put(rw)
	}()
	if list {
		rw.w.Raw("[")
	}
	ok, err = s.orm.FindRows(ctx, m, c, pops, rw.row)
	if !ok || err != nil {
		return nil, rw.n, ok, err
	}
	if list {
		rw.w.Raw("]")
	}
	b := rw.w.Bytes()
	size.Store(min(int64(len(b)), maxAnswerHint))
	return b, rw.n, true, nil
}

// rowsWriter writes the records of one rowsJSON.
type rowsWriter struct {
	s       *Service
	m       *model.Model
	list    bool
	w       jsonenc.Writer
	plan    *rowPlan
	planned *orm.RowShape // the shape plan is for
	n       int
}

func (rw *rowsWriter) row(shape *orm.RowShape, vals []any) error {
	if shape != rw.planned {
		plan, err := rw.s.plan(rw.m, shape)
		if err != nil {
			return err
		}
		rw.plan, rw.planned = plan, shape
	}
	if rw.n > 0 && rw.list {
		rw.w.Raw(",")
	}
	rw.n++
	return rw.plan.write(&rw.w, vals)
}

// planSlot keeps a model's last rowPlan with the shape it was made for.
type planSlot = atomic.Pointer[shapePlan]

type shapePlan struct {
	shape *orm.RowShape
	plan  *rowPlan
}

// plan returns the plan writing the records of m whose rows have shape,
// the one made last for m when it was made for shape.
func (s *Service) plan(m *model.Model, shape *orm.RowShape) (*rowPlan, error) {
	slot := s.plans[m]
	if slot != nil {
		if sp := slot.Load(); sp != nil && sp.shape == shape {
			return sp.plan, nil
		}
	}
	p, err := planRows(m, shape)
	if err == nil && slot != nil {
		slot.Store(&shapePlan{shape: shape, plan: p})
	}
	return p, err
}

// maxAnswerHint bounds the buffer rowsJSON starts with.
const maxAnswerHint = 1 << 20

// rowPlan writes the JSON of one record from its row's values: its fields
// in the order encoding/json writes a map's (sorted keys).
type rowPlan struct {
	fields []planField
}

// planField is one field of a rowPlan: the value at index val, or, with
// joined set, the record that plan writes.
type planField struct {
	key    string // quoted, with its colon
	val    int
	joined *joinedPlan
}

// joinedPlan writes a record populated by a join, or null when the value
// at pk is nil.
type joinedPlan struct {
	pk   int
	plan rowPlan
}

// planRows returns the plan writing the records of m whose rows have
// shape: as SerializeOwned leaves them, without m's (and the joined
// models') omitted attributes.
func planRows(m *model.Model, shape *orm.RowShape) (*rowPlan, error) {
	own := len(shape.Names)
	if len(shape.Joined) > 0 {
		own = shape.Joined[0].From
	}
	p := &rowPlan{}
	for i, name := range shape.Names[:own] {
		if name != "" && !slices.Contains(m.Omit, name) {
			p.fields = append(p.fields, planField{key: name, val: i})
		}
	}
	for _, js := range shape.Joined {
		if slices.Contains(m.Omit, js.Attr) {
			continue
		}
		if js.Model.ToJSON != nil {
			return nil, errors.New("find: a joined model has customToJSON")
		}
		jp := &joinedPlan{pk: js.PK}
		for i := js.From; i < js.To; i++ {
			if name := shape.Names[i]; name != "" && !slices.Contains(js.Model.Omit, name) {
				jp.plan.fields = append(jp.plan.fields, planField{key: name, val: i})
			}
		}
		if err := jp.plan.sort(); err != nil {
			return nil, err
		}
		p.fields = append(p.fields, planField{key: js.Attr, joined: jp})
	}
	if err := p.sort(); err != nil {
		return nil, err
	}
	return p, nil
}

// sort puts p's fields in the order of their keys and quotes them.
func (p *rowPlan) sort() error {
	slices.SortFunc(p.fields, func(a, b planField) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	for i := range p.fields {
		if i > 0 && p.fields[i].key == p.fields[i-1].key {
			return fmt.Errorf("find: two values for attribute %q", p.fields[i].key)
		}
	}
	for i := range p.fields {
		p.fields[i].key = jsonenc.QuoteKey(p.fields[i].key)
	}
	return nil
}

func (p *rowPlan) write(w *jsonenc.Writer, vals []any) error {
	w.Raw("{")
	for i, f := range p.fields {
		if i > 0 {
			w.Raw(",")
		}
		w.Raw(f.key)
		if f.joined != nil {
			if vals[f.joined.pk] == nil {
				w.Raw("null")
				continue
			}
			if err := f.joined.plan.write(w, vals); err != nil {
				return err
			}
			continue
		}
		if err := w.Value(vals[f.val]); err != nil {
			return err
		}
	}
	w.Raw("}")
	return nil
}
