package blueprint

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// Service runs blueprint actions. It is safe for concurrent use.
type Service struct {
	orm   *orm.ORM
	parse ParseOptionsFunc
	// defaultParse says that parse is DefaultParseOptions because no hook
	// was given (see findOneDefault).
	defaultParse bool
	notifier     Notifier
	autoWatch    bool
	deepWatch    bool
	mirror       bool
	format       NotificationFormat
	log          *slog.Logger
	// answerSize is the size of the last record (0) and list (1) rowsJSON
	// wrote, so that the next starts with room for it.
	answerSize [2]atomic.Int64
	// plans holds, per model, the plan rowsJSON wrote its rows with last.
	// The map is not written after NewService.
	plans map[*model.Model]*planSlot
	// writers recycles rowsJSON's rowsWriters (*rowsWriter), which
	// nothing keeps once it returns.
	writers sync.Pool
}

// Config is what a Service runs with.
type Config struct {
	ORM *orm.ORM
	// Parse is the app-wide parseBlueprintOptions; nil means
	// DefaultParseOptions.
	Parse ParseOptionsFunc
	// Notifier receives the subscriptions and notifications of socket
	// requests and of every change; nil turns realtime off.
	Notifier Notifier
	// AutoWatch makes a socket's find watch the model; a route's autoWatch
	// option overrides it.
	AutoWatch bool
	// DeepWatch, with AutoWatch, makes a socket's find, findOne and
	// populate that return a record watch every model associated with the
	// one read (Sails' subscribeDeep); a route's deepWatch option overrides
	// it.
	DeepWatch bool
	// Format is the shape of the notifications; "" means FormatSeed.
	Format NotificationFormat
	// Mirror sends a socket requester the notifications of its own
	// requests too; a route's mirror option overrides it.
	Mirror bool
	// Logger receives notification failures; nil discards.
	Logger *slog.Logger
}

// NewService returns a Service for cfg.
func NewService(cfg Config) *Service {
	defaultParse := cfg.Parse == nil
	if defaultParse {
		cfg.Parse = DefaultParseOptions
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Format == "" {
		cfg.Format = FormatSeed
	}
	s := &Service{orm: cfg.ORM, parse: cfg.Parse, defaultParse: defaultParse, notifier: cfg.Notifier, autoWatch: cfg.AutoWatch, deepWatch: cfg.DeepWatch,
		mirror: cfg.Mirror, format: cfg.Format, log: cfg.Logger, plans: map[*model.Model]*planSlot{}}
	if cfg.ORM != nil {
		for _, m := range cfg.ORM.Schema().Models() {
			s.plans[m] = new(planSlot)
		}
	}
	return s
}

// Do runs r.Action. Client mistakes come back as *model.Error (Invalid,
// NotFound, ...); anything else is an internal failure.
func (s *Service) Do(ctx context.Context, r *Request, routeParse ParseOptionsFunc) (*Result, error) {
	parse := s.parse
	if routeParse != nil {
		parse = routeParse
	} else if s.defaultParse && r.Action == FindOne && plainFindOne(r) {
		return s.findOneDefault(ctx, r)
	}
	opts, err := parse(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("parseBlueprintOptions for %s/%s: %w", r.Model.Identity, r.Action, err)
	}
	if opts == nil {
		return nil, fmt.Errorf("parseBlueprintOptions for %s/%s returned no options", r.Model.Identity, r.Action)
	}
	m := r.Model
	if opts.Using != "" && opts.Using != m.Identity {
		if m = s.orm.Schema().Model(opts.Using); m == nil {
			return nil, fmt.Errorf("parseBlueprintOptions: `using` names no model: %q", opts.Using)
		}
	}
	ps := s.pubsub(ctx, r)
	switch r.Action {
	case Find:
		return s.find(ctx, ps, m, opts, rawAnswer{r.RawBody, r.Buffer})
	case FindOne:
		return s.findOne(ctx, ps, m, opts, rawAnswer{r.RawBody, r.Buffer})
	case Create:
		return s.create(ctx, ps, m, opts)
	case Update:
		return s.update(ctx, ps, m, opts)
	case Destroy:
		return s.destroy(ctx, ps, m, opts)
	case Populate:
		return s.populate(ctx, ps, m, opts)
	case Add, Remove, Replace:
		return s.changeCollection(ctx, ps, r.Action, m, opts)
	}
	return nil, &model.Error{Kind: model.NotFound, Msg: fmt.Sprintf("the %s action is not available", r.Action)}
}

// query normalises loose criteria and populates for m.
func (s *Service) query(m *model.Model, raw, rawPops map[string]any) (*criteria.Criteria, []orm.Populate, error) {
	c, err := criteria.Normalize(raw, m)
	if err != nil {
		return nil, nil, err
	}
	if err := refuseHidden(m, c, model.CodeInvalidCriteria); err != nil {
		return nil, nil, err
	}
	pops, err := s.populates(m, rawPops, c.Omit)
	if err != nil {
		return nil, nil, err
	}
	return c, pops, nil
}

// rawAnswer is how the caller takes a find's answer (Request.RawBody,
// Request.Buffer): as records, or, with json, as its JSON, written into
// buf when buf has room.
type rawAnswer struct {
	json bool
	buf  []byte
}

func (s *Service) find(ctx context.Context, ps *pubsub, m *model.Model, o *Options, raw rawAnswer) (*Result, error) {
	c, pops, err := s.query(m, o.Criteria, o.Populates)
	if err != nil {
		return nil, err
	}
	if raw.json && (ps.n == nil || ps.socket == "") && s.orm.RowsReadable(ctx, m, c, pops) {
		// No socket to watch the model or subscribe to the records: the
		// answer is all the records are for.
		body, _, ok, err := s.rowsJSON(ctx, m, c, pops, true, raw.buf)
		if err != nil {
			return nil, err
		}
		if ok {
			return &Result{Status: http.StatusOK, Body: body}, nil
		}
	}
	recs, err := s.orm.Find(ctx, m, c, pops)
	if err != nil {
		return nil, err
	}
	if ps.autoWatch {
		ps.watch(m)
	}
	ps.subscribeRead(m, recs)
	// The records are this request's own: serialise them in place.
	for i, r := range recs {
		recs[i] = m.SerializeOwned(r)
	}
	return &Result{Status: http.StatusOK, Body: recs}, nil
}

func (s *Service) findOne(ctx context.Context, ps *pubsub, m *model.Model, o *Options, raw rawAnswer) (*Result, error) {
	where, err := s.targetWhere(m, o.Criteria)
	if err != nil {
		return nil, err
	}
	// findOne keeps only the key, select and omit (no sort, limit or skip).
	var c *criteria.Criteria
	var pops []orm.Populate
	sel, om := o.Criteria["select"], o.Criteria["omit"]
	if sel == nil && om == nil {
		// The usual request: the criteria are the key's comparison,
		// normalised already, as normalising {where: {pk: key}} again
		// would give them.
		c = &criteria.Criteria{Where: where, Limit: criteria.Unlimited}
		if err := refuseHidden(m, c, model.CodeInvalidCriteria); err != nil {
			return nil, err
		}
		pops, err = s.populates(m, o.Populates, nil)
	} else {
		c, pops, err = s.query(m, map[string]any{
			"where": map[string]any{m.PrimaryKey: where.Value}, "select": sel, "omit": om,
		}, o.Populates)
	}
	if err != nil {
		return nil, err
	}
	return s.readOne(ctx, ps, m, c, pops, raw)
}

// readOne answers findOne's read of c with pops; with raw.json and no
// socket to subscribe, with its JSON written as its row is read.
func (s *Service) readOne(ctx context.Context, ps *pubsub, m *model.Model, c *criteria.Criteria, pops []orm.Populate, raw rawAnswer) (*Result, error) {
	if raw.json && (ps.n == nil || ps.socket == "") && s.orm.RowsReadable(ctx, m, &criteria.Criteria{Limit: 2}, pops) {
		one := *c
		one.Limit, one.Skip, one.Sort = 2, 0, nil // as FindOne reads
		body, n, ok, err := s.rowsJSON(ctx, m, &one, pops, false, raw.buf)
		switch {
		case err != nil:
			return nil, err
		case ok && n == 0:
			return nil, notFound()
		case ok && n == 1:
			return &Result{Status: http.StatusOK, Body: body}, nil
		}
		// Several records (FindOne's error), or an answer that needs records.
	}
	rec, err := s.orm.FindOne(ctx, m, c, pops)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, notFound()
	}
	ps.subscribeRead(m, []model.Record{rec})
	return &Result{Status: http.StatusOK, Body: m.SerializeOwned(rec)}, nil
}

// plainFindOne reports whether r, a findOne, has none of the parameters
// that DefaultParseOptions reads besides the key: populate, select, omit.
func plainFindOne(r *Request) bool {
	for _, name := range [...]string{"populate", "select", "omit"} {
		if _, given := r.Param(name); given {
			return false
		}
	}
	return true
}

// findOneDefault is Do for a plainFindOne request without a
// parseBlueprintOptions hook: what findOne does with the options
// DefaultParseOptions gives it ({where: {pk: id}}, every association
// populated by default), without building them as maps to read them back
// (two maps for the criteria, one for the populates and two more per
// collection: a fifth of GET /pet/:id's bytes allocated).
// TestFindOneDefault checks it against that path.
func (s *Service) findOneDefault(ctx context.Context, r *Request) (*Result, error) {
	m := r.Model
	ps := s.pubsub(ctx, r)
	id, _ := r.Param("id")
	where, err := s.keyWhere(m, id, true)
	if err != nil {
		return nil, err
	}
	c := &criteria.Criteria{Where: where, Limit: criteria.Unlimited}
	if err := refuseHidden(m, c, model.CodeInvalidCriteria); err != nil {
		return nil, err
	}
	var pops []orm.Populate
	for _, name := range m.Order {
		a := m.Attributes[name]
		if !a.IsAssociation() {
			continue
		}
		p := orm.Populate{Attr: name}
		if a.IsPlural() {
			// populates' criteria for populateDefault's map.
			p.Criteria = &criteria.Criteria{Limit: DefaultLimit}
		}
		pops = append(pops, p)
	}
	return s.readOne(ctx, ps, m, c, pops, rawAnswer{r.RawBody, r.Buffer})
}

func (s *Service) create(ctx context.Context, ps *pubsub, m *model.Model, o *Options) (*Result, error) {
	pops, err := s.populates(m, o.Populates, nil)
	if err != nil {
		return nil, err
	}
	// The new record is as stored; only its associations need reading,
	// and those the create reads with the insert are read.
	pops, empty := freshPopulates(m, o.NewRecord, pops)
	rec, answer, pops, changes, err := s.orm.CreateAnswer(ctx, m, o.NewRecord, pops)
	if err != nil {
		return nil, err
	}
	if ps.format != FormatSails {
		// created carries the record as stored, before population.
		ps.created(m, rec, nil, changes)
	}
	res, err := s.answer(ctx, m, answer, pops, empty...)
	if ps.format == FormatSails {
		// created carries the answer, as in Sails; the record was created
		// even if reading the answer failed, and the watchers learn of it.
		var data model.Record
		if err == nil {
			data = res.Body.(model.Record)
		}
		ps.created(m, rec, data, changes)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Service) update(ctx context.Context, ps *pubsub, m *model.Model, o *Options) (*Result, error) {
	pk, pops, err := s.target(m, o)
	if err != nil {
		return nil, err
	}
	// previous is populated as the answer is, when someone will read it.
	var previous []orm.Populate
	if ps.listens(m, pk) {
		previous = pops
	}
	before, after, changes, err := s.orm.UpdateWithPrevious(ctx, m, pk, o.ValuesToSet, previous)
	if err != nil {
		return nil, err
	}
	if after == nil {
		return nil, notFound()
	}
	ps.updated(m, before, after, o.ValuesToSet, changes)
	// after is the row as the update stored it; only associations need reading.
	return s.answer(ctx, m, after, pops)
}

// answer populates a record just written and serialises it for the client.
// The collections in empty answer as empty lists; they are set after the
// population, since writing any key of a record map that holds eight keys
// costs three allocations (the runtime grows it into a table).
func (s *Service) answer(ctx context.Context, m *model.Model, rec model.Record, pops []orm.Populate, empty ...string) (*Result, error) {
	if err := s.orm.Populate(ctx, m, []model.Record{rec}, pops); err != nil {
		return nil, err
	}
	for _, name := range empty {
		rec[name] = []model.Record{}
	}
	return &Result{Status: http.StatusOK, Body: m.SerializeOwned(rec)}, nil
}

// target reads what a single-record action needs: the record's key and
// the populates of its answer.
func (s *Service) target(m *model.Model, o *Options) (any, []orm.Populate, error) {
	pk, err := s.targetPK(m, o.Criteria)
	if err != nil {
		return nil, nil, err
	}
	pops, err := s.populates(m, o.Populates, nil)
	if err != nil {
		return nil, nil, err
	}
	return pk, pops, nil
}

func (s *Service) destroy(ctx context.Context, ps *pubsub, m *model.Model, o *Options) (*Result, error) {
	pk, pops, err := s.target(m, o)
	if err != nil {
		return nil, err
	}
	// The answer, and destroyed's previous, is the record as it was,
	// populated: read before any of its links is undone.
	gone, changes, err := s.orm.DestroyWithPrevious(ctx, m, pk, pops)
	if err != nil {
		return nil, err
	}
	if gone == nil {
		return nil, notFound()
	}
	id := gone[m.PrimaryKey]
	// Neither the message nor the answer is changed once built: they may
	// share the serialised record.
	body := m.SerializeOwned(gone)
	ps.destroyed(m, id, body, changes)
	return &Result{Status: http.StatusOK, Body: body}, nil
}

func (s *Service) populate(ctx context.Context, ps *pubsub, m *model.Model, o *Options) (*Result, error) {
	pk, err := s.targetPK(m, o.Criteria)
	if err != nil {
		return nil, err
	}
	a := m.Attr(o.Alias)
	if a == nil || !a.IsAssociation() {
		return nil, invalidPopulates("`%s` is not an association of %s", o.Alias, m.Identity)
	}
	pops, err := s.populates(m, map[string]any{o.Alias: o.Populates[o.Alias]}, nil)
	if err != nil {
		return nil, err
	}
	rec, err := s.orm.FindByPK(ctx, m, pk, pops)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, notFound()
	}
	switch rec[o.Alias].(type) {
	case model.Record, []model.Record:
	default:
		// An empty singular association is a 404, with no subscription
		// made (as in Sails).
		return nil, notFound()
	}
	ps.subscribeRead(m, []model.Record{rec})
	target := a.Assoc.Target
	switch v := rec[o.Alias].(type) {
	case model.Record:
		return &Result{Status: http.StatusOK, Body: target.SerializeOwned(v)}, nil
	case []model.Record:
		out := make([]model.Record, len(v))
		for i, c := range v {
			out[i] = target.SerializeOwned(c)
		}
		return &Result{Status: http.StatusOK, Body: out}, nil
	}
	return nil, notFound()
}

// targetPK reads the one primary key a single-record action acts on from
// criteria.where, coerced to the key's type.
func (s *Service) targetPK(m *model.Model, c map[string]any) (any, error) {
	cmp, err := s.targetWhere(m, c)
	if err != nil {
		return nil, err
	}
	return cmp.Value, nil
}

// targetWhere is targetPK's normalised comparison of the key with its value.
func (s *Service) targetWhere(m *model.Model, c map[string]any) (*criteria.Cmp, error) {
	where, _ := c["where"].(map[string]any)
	v, ok := where[m.PrimaryKey]
	return s.keyWhere(m, v, ok)
}

// keyWhere is targetWhere for the key v of the criteria's where clause
// (ok: it has one).
func (s *Service) keyWhere(m *model.Model, v any, ok bool) (*criteria.Cmp, error) {
	if !ok || v == nil {
		return nil, invalidCriteria("This action needs the primary key (`%s`) of the %s record in the URL.", m.PrimaryKey, m.Identity)
	}
	// A key of one value, from the URL, is normalised as the where clause
	// of that value alone: NormalizeWhere constrains the primary key with
	// it exactly as it would {pk: value}, without the map, the sorted keys
	// and the conjunction of one. A key named "and" or "or" would read as
	// a predicate in the map, and a modifier map needs the map's path.
	var raw any = v
	switch v.(type) {
	case string, float64:
		if m.PrimaryKey == "and" || m.PrimaryKey == "or" {
			raw = map[string]any{m.PrimaryKey: v}
		}
	default:
		raw = map[string]any{m.PrimaryKey: v}
	}
	e, _, err := criteria.NormalizeWhere(raw, m)
	if err != nil {
		return nil, err
	}
	if cmp, ok := e.(*criteria.Cmp); ok && cmp.Op == criteria.Eq && cmp.Value != nil {
		return cmp, nil
	}
	return nil, invalidCriteria("This action needs exactly one primary key (`%s`), got %s.", m.PrimaryKey, model.Describe(v))
}

// populates normalises the loose populate map into ORM population requests.
func (s *Service) populates(m *model.Model, raw map[string]any, omitted []string) ([]orm.Populate, error) {
	var out []orm.Populate
	for _, name := range m.Order {
		v, ok := raw[name]
		if !ok || v == nil || v == false {
			continue
		}
		for _, o := range omitted {
			if o == name {
				return nil, invalidPopulates("Cannot populate `%s` and omit it at the same time.", name)
			}
		}
		a := m.Attributes[name]
		if !a.IsAssociation() {
			return nil, invalidPopulates("Could not populate `%s`: it is not an association of %s.", name, m.Identity)
		}
		p := orm.Populate{Attr: name}
		if a.IsSingular() {
			if sub, isMap := v.(map[string]any); !(v == true || isMap && len(sub) == 0) {
				return nil, invalidPopulates("Could not populate `%s`: a singular association takes no subcriteria.", name)
			}
		} else if sub, isMap := v.(map[string]any); isMap && isDefaultPopulate(sub) {
			// Every collection of every default request: the criteria
			// Normalize gives the map (TestDefaultPopulateCriteria), made
			// without going through it.
			p.Criteria = &criteria.Criteria{Limit: DefaultLimit}
		} else if isMap {
			c, err := criteria.Normalize(sub, a.Assoc.Target)
			if err != nil {
				if me, ok := model.AsError(err); ok {
					me.Code = model.CodeInvalidPopulates
				}
				return nil, err
			}
			if err := refuseHidden(a.Assoc.Target, c, model.CodeInvalidPopulates); err != nil {
				return nil, err
			}
			p.Criteria = c
		}
		out = append(out, p)
	}
	for name := range raw {
		if m.Attr(name) == nil {
			return nil, invalidPopulates("Could not populate `%s`: %s has no such association.", name, m.Identity)
		}
	}
	return out, nil
}

func notFound() error { return &model.Error{Kind: model.NotFound, Msg: "Not Found"} }

// freshPopulates drops the collections a record created with a generated key
// cannot have members in yet: nothing could point at a key the database had
// never handed out, since Skiff refuses keys of records that do not exist.
// Those collections read as empty lists without a query: they are
// returned in empty.
func freshPopulates(m *model.Model, newRecord map[string]any, pops []orm.Populate) (kept []orm.Populate, empty []string) {
	if _, explicit := newRecord[m.PrimaryKey]; explicit || !m.PK().AutoIncrement {
		return pops, nil
	}
	kept = pops[:0:0]
	for _, p := range pops {
		a := m.Attributes[p.Attr]
		if _, given := newRecord[p.Attr]; a.IsPlural() && !given {
			empty = append(empty, p.Attr)
			continue
		}
		kept = append(kept, p)
	}
	return kept, empty
}

// changeCollection runs add, remove or replace and answers the parent,
// populated, with exactly the resulting members.
func (s *Service) changeCollection(ctx context.Context, ps *pubsub, action Action, m *model.Model, o *Options) (*Result, error) {
	pops, err := s.populates(m, o.Populates, nil)
	if err != nil {
		return nil, err
	}
	if o.TargetRecordID == nil {
		return nil, model.Errorf(model.Invalid, model.CodeInvalidTargetIDs, "%s needs the parent's primary key in the URL.", action)
	}
	var changes orm.Changes
	var rec model.Record
	switch action {
	case Replace:
		changes, rec, err = s.orm.ReplaceThenFind(ctx, m, o.Alias, o.TargetRecordID, o.AssociatedIDs, pops)
	default:
		if len(o.AssociatedIDs) != 1 || o.AssociatedIDs[0] == nil {
			return nil, model.Errorf(model.Invalid, model.CodeInvalidAssociatedIDs, "%s needs the child's primary key in the URL.", action)
		}
		if action == Add {
			changes, err = s.orm.AddTo(ctx, m, o.Alias, o.TargetRecordID, o.AssociatedIDs[0])
		} else {
			changes, err = s.orm.RemoveFrom(ctx, m, o.Alias, o.TargetRecordID, o.AssociatedIDs[0])
		}
	}
	if err != nil {
		return nil, err
	}
	pk, err := m.NormalizePK(o.TargetRecordID)
	if err != nil {
		return nil, err
	}
	ps.collectionChanged(m, o.Alias, pk, action, changes)
	if action != Replace {
		if rec, err = s.orm.FindByPK(ctx, m, pk, pops); err != nil {
			return nil, err
		}
	}
	if rec == nil {
		return nil, notFound()
	}
	return &Result{Status: http.StatusOK, Body: m.SerializeOwned(rec)}, nil
}
