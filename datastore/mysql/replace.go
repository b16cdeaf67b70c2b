package mysql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.CollectionReplacer = (*DB)(nil)
	_ datastore.CollectionReplacer = (*session)(nil)
)

// ReplaceCollections implements datastore.CollectionReplacer: outside a
// transaction the locks would not hold, so it answers
// errors.ErrUnsupported.
func (db *DB) ReplaceCollections(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error) {
	return nil, fmt.Errorf("replace collections outside a transaction: %w", errors.ErrUnsupported)
}

// okVar is the user variable holding whether the change being made is
// valid; its writes are guarded by it.
const okVar = "@skiff_replace_ok"

// replaceScript is the statements of one Replacement in the multi-statement
// query of ReplaceCollections, and how to read their results.
type replaceScript struct {
	r     *datastore.Replacement
	stmts []string
	args  []any
	reads []sqlgen.Stmt // the statements returning rows, in order
	// members: the current links (join key, child key) or, one-to-many,
	// children (key), read before the writes.
	childKey, linkKey, linkChild string
	want                         []any
}

// ReplaceCollections implements datastore.CollectionReplacer with one
// multi-statement query, sent with START TRANSACTION and the deferred
// writes when they have not gone yet: for each change, its locks, the
// children's locks (FOR UPDATE NOWAIT), the validity test into a user
// variable, the current members, and the writes guarded by that variable;
// then COMMIT, then the reads after it. The server runs it all without
// waiting for the client, so the parent's lock is held only that long.
func (s *session) ReplaceCollections(ctx context.Context, rs []*datastore.Replacement) ([]*datastore.Replaced, error) {
	if s.tx == nil {
		return s.db.ReplaceCollections(ctx, rs)
	}
	var sb strings.Builder
	var args []any
	scripts := make([]*replaceScript, len(rs))
	for i, r := range rs {
		sc, err := s.replaceScript(r)
		if err != nil {
			return nil, fmt.Errorf("replace collection: %w", err)
		}
		scripts[i] = sc
		for _, st := range sc.stmts {
			sb.WriteString(st)
			sb.WriteString("; ")
		}
		args = append(args, sc.args...)
	}
	sb.WriteString("COMMIT")
	var after []sqlgen.Stmt
	for _, r := range rs {
		for _, rd := range r.After {
			var st sqlgen.Stmt
			var err error
			switch {
			case rd.Through != nil:
				st, err = sqlgen.SelectThrough(s.db.d, rd.Query, rd.Through)
			case rd.Joins != nil:
				st, err = sqlgen.SelectJoined(s.db.d, rd.Query, rd.Joins)
			default:
				st, err = sqlgen.Select(s.db.d, rd.Query)
			}
			if err != nil {
				return nil, fmt.Errorf("replace collection: read after: %w", err)
			}
			after = append(after, st)
			sb.WriteString("; ")
			sb.WriteString(st.SQL)
			args = append(args, st.Args...)
		}
	}
	rows, err := s.q.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("replace collection: %w", lockError(err, true))
	}
	defer rows.Close()
	out := make([]*datastore.Replaced, len(rs))
	first := true
	next := func() error {
		if first {
			first = false
			return nil
		}
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return err
			}
			return errors.New("result missing")
		}
		return nil
	}
	for i, sc := range scripts {
		res := make([][]datastore.Record, len(sc.reads))
		for k, st := range sc.reads {
			if err := next(); err != nil {
				return nil, fmt.Errorf("replace collection: %w", lockError(err, true))
			}
			if res[k], err = scan(rows, st.Columns); err != nil {
				return nil, fmt.Errorf("replace collection: %w", lockError(err, true))
			}
		}
		out[i] = sc.result(res)
	}
	// The writes and COMMIT return no rows: their errors come with the
	// step to the first read after them, or with the end.
	committed := rows.NextResultSet()
	if !committed {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("replace collection: %w", err)
		}
	}
	s.tx.ended = true
	k := 0
	for i, r := range rs {
		if len(r.After) == 0 {
			continue
		}
		got := make([][]datastore.Record, len(r.After))
		for n := range r.After {
			if k > 0 && !rows.NextResultSet() || !committed {
				got = nil
				break
			}
			if got[n], err = scan(rows, after[k].Columns, after[k].Nests...); err != nil {
				got = nil
				break
			}
			k++
		}
		out[i].After = got
	}
	return out, nil
}

// result builds what the change did from the rows its reads returned:
// those of the parent's lock, the children's lock, the validity test and
// the members.
func (sc *replaceScript) result(res [][]datastore.Record) *datastore.Replaced {
	done := &datastore.Replaced{Children: res[1]}
	if len(res[0]) > 0 {
		done.Parent = res[0][0]
	}
	if ok := res[2]; len(ok) == 1 {
		done.Applied = ok[0]["ok"] == true
	}
	if !done.Applied {
		return done
	}
	locked := map[string]bool{}
	for _, c := range res[1] {
		locked[keyString(c[sc.childKey])] = true
	}
	wanted := map[string]bool{}
	for _, w := range sc.want {
		wanted[keyString(w)] = true
	}
	members := map[string]bool{}
	for _, m := range res[3] {
		child := m[sc.linkChild]
		members[keyString(child)] = true
		if !wanted[keyString(child)] && locked[keyString(child)] {
			done.Removed = append(done.Removed, child)
		}
	}
	for _, w := range sc.want {
		if !members[keyString(w)] {
			done.Added = append(done.Added, w)
		}
	}
	return done
}

// replaceScript compiles the statements of r.
func (s *session) replaceScript(r *datastore.Replacement) (*replaceScript, error) {
	d := s.db.d
	if r.Parent == nil || r.Child == nil {
		return nil, errors.New("no parent or child table")
	}
	pk, ck := r.Parent.Column(r.Parent.PrimaryKey), r.Child.Column(r.Child.PrimaryKey)
	if pk == nil || ck == nil {
		return nil, fmt.Errorf("%s.%s: no primary key column", r.Parent.Name, r.Child.Name)
	}
	key, err := sqlgen.Encode(pk.Kind, r.Key)
	if err != nil {
		return nil, err
	}
	want := make([]any, len(r.Want))
	for i, v := range r.Want {
		if want[i], err = sqlgen.Encode(ck.Kind, v); err != nil {
			return nil, err
		}
	}
	sc := &replaceScript{r: r, childKey: ck.Name}
	// Want as the contract reads keys back, for Added.
	for _, w := range want {
		dw, err := decode(ck.Kind, w)
		if err != nil {
			return nil, err
		}
		sc.want = append(sc.want, dw)
	}
	add := func(st sqlgen.Stmt, rows bool) {
		sc.stmts = append(sc.stmts, st.SQL)
		sc.args = append(sc.args, st.Args...)
		if rows {
			sc.reads = append(sc.reads, st)
		}
	}
	st, err := s.lockStmt(r.ParentLock())
	if err != nil {
		return nil, err
	}
	add(st, true)
	eq := func(col string, v any) criteria.Expr { return &criteria.Cmp{Attr: col, Op: criteria.Eq, Value: v} }
	in := func(col string, op criteria.Op) criteria.Expr { return &criteria.Cmp{Attr: col, Op: op, Value: want} }

	// The children: those wanted and the members, locked without waiting.
	cols := r.ChildColumns
	if cols == nil {
		cols = []string{ck.Name}
		if r.Through == nil {
			cols = append(cols, r.Via)
		}
	}
	if !slices.Contains(cols, ck.Name) {
		cols = append([]string{ck.Name}, cols...)
	}
	lock := &datastore.Query{Table: r.Child, Select: cols, Sort: []criteria.Sort{{Attr: ck.Name}}, Limit: criteria.Unlimited}
	if len(want) > 0 {
		lock.Where = in(ck.Name, criteria.In)
	}
	var or criteria.Expr
	var linked *datastore.Through
	var links *datastore.Table
	var parentCol, childCol string
	if j := r.Through; j != nil {
		if j.Table == nil || j.Table.Column(j.ParentColumn) == nil || j.Table.Column(j.ChildColumn) == nil || j.Table.Column(j.Table.PrimaryKey) == nil {
			return nil, fmt.Errorf("%s.%s: bad join table", r.Parent.Name, r.Child.Name)
		}
		linked = &datastore.Through{Table: j.Table, ParentColumn: j.ParentColumn, ChildColumn: j.ChildColumn, Parents: []any{key}}
		links, parentCol, childCol = j.Table, j.ParentColumn, j.ChildColumn
		sc.linkKey, sc.linkChild = j.Table.PrimaryKey, j.ChildColumn
	} else {
		if r.Child.Column(r.Via) == nil {
			return nil, fmt.Errorf("table %s has no column %q", r.Child.Name, r.Via)
		}
		or = eq(r.Via, key)
		links, parentCol, childCol = r.Child, r.Via, ck.Name
		sc.linkKey, sc.linkChild = ck.Name, ck.Name
	}
	// Each of the wanted keys, the members' links (or key) finds its rows
	// through its own index (see sqlgen.SelectUnion).
	if st, err = sqlgen.SelectUnion(d, lock, or, linked); err != nil {
		return nil, err
	}
	st.SQL += " FOR UPDATE NOWAIT"
	add(st, true)

	// The validity test: the parent exists, every wanted child does and,
	// for a required key, no member leaves.
	leaving := &criteria.And{Exprs: []criteria.Expr{eq(parentCol, key), in(childCol, criteria.Nin)}}
	var test strings.Builder
	var targs []any
	test.WriteString("SET " + okVar + " = (EXISTS (")
	cond := func(t *datastore.Table, e criteria.Expr, prefix string) error {
		w, a, err := s.where(t, e)
		if err != nil {
			return err
		}
		test.WriteString(prefix + d.Ident(t.Name) + " WHERE " + w)
		targs = append(targs, a...)
		return nil
	}
	if err := cond(r.Parent, eq(pk.Name, key), "SELECT 1 FROM "); err != nil {
		return nil, err
	}
	test.WriteString(") AND (")
	if err := cond(r.Child, in(ck.Name, criteria.In), "SELECT COUNT(*) FROM "); err != nil {
		return nil, err
	}
	test.WriteString(fmt.Sprintf(") = %d", len(want)))
	if r.Through == nil && r.Required {
		test.WriteString(" AND NOT EXISTS (")
		if err := cond(links, leaving, "SELECT 1 FROM "); err != nil {
			return nil, err
		}
		test.WriteString(")")
	}
	test.WriteString(")")
	add(sqlgen.Stmt{SQL: test.String(), Args: targs}, false)
	add(sqlgen.Stmt{SQL: "SELECT " + okVar + " AS " + d.Ident("ok"), Columns: []*datastore.Column{{Name: "ok", Kind: datastore.Boolean}}}, true)

	// The members before the change, in the order of their links.
	members, err := sqlgen.Select(d, &datastore.Query{
		Table: links, Where: eq(parentCol, key), Select: uniq(sc.linkKey, sc.linkChild),
		Sort: []criteria.Sort{{Attr: sc.linkKey}}, Limit: criteria.Unlimited,
	})
	if err != nil {
		return nil, err
	}
	add(members, true)

	// The writes, guarded by the test.
	guarded := func(head string, t *datastore.Table, e criteria.Expr, headArgs ...any) error {
		w, a, err := s.where(t, e)
		if err != nil {
			return err
		}
		add(sqlgen.Stmt{SQL: head + " WHERE " + okVar + " AND (" + w + ")", Args: append(headArgs, a...)}, false)
		return nil
	}
	// The writes find their rows through the index on the parent's key,
	// named: on a table whose statistics are stale (a fresh one, filled
	// since), MariaDB took the NOT IN of a removal for a scan of the whole
	// table, which also locks, and waits for, every row it reads.
	table := d.Ident(links.Name)
	if ix := s.db.indexOn(links, parentCol); ix != "" {
		table += " FORCE INDEX (" + d.Ident(ix) + ")"
	}
	if r.Through != nil {
		if err := guarded("DELETE "+d.Ident(links.Name)+" FROM "+table, links, leaving); err != nil {
			return nil, err
		}
		if len(want) > 0 {
			add(s.insertLinks(links, parentCol, childCol, r.Child, key, want), false)
		}
		return sc, nil
	}
	if err := guarded("UPDATE "+table+" SET "+d.Ident(parentCol)+" = NULL", links, leaving); err != nil {
		return nil, err
	}
	if len(want) > 0 {
		joining := &criteria.And{Exprs: []criteria.Expr{in(ck.Name, criteria.In), &criteria.Cmp{Attr: parentCol, Op: criteria.Ne, Value: key}}}
		if err := guarded("UPDATE "+d.Ident(links.Name)+" SET "+d.Ident(parentCol)+" = ?", links, joining, key); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// insertLinks compiles the guarded insertion of the links from key to
// each of want that is not linked yet, in the order of want. Where the
// join table has its unique key on the pair, as Skiff's join tables do,
// the wanted children are read from their table and the pairs already
// there skipped by that key (INSERT IGNORE: the values are keys read from
// the tables, so it can only skip duplicates); that costs the server what
// a plain INSERT does, where the general form below, which tests each
// pair against the join table it writes, cost up to three times more.
func (s *session) insertLinks(links *datastore.Table, parentCol, childCol string, child *datastore.Table, key any, want []any) sqlgen.Stmt {
	d := s.db.d
	var sb strings.Builder
	args := []any{key}
	head := " INTO " + d.Ident(links.Name) + " (" + d.Ident(parentCol) + ", " + d.Ident(childCol) + ") SELECT ?, "
	for _, set := range links.UniqueTogether {
		if len(set) == 2 && slices.Contains(set, parentCol) && slices.Contains(set, childCol) {
			pk := d.Ident(child.PrimaryKey)
			sb.WriteString("INSERT IGNORE" + head + pk + " FROM " + d.Ident(child.Name) + " WHERE " + okVar + " AND " + pk + " IN (")
			list := strings.TrimSuffix(strings.Repeat("?, ", len(want)), ", ")
			sb.WriteString(list + ") ORDER BY FIELD(" + pk + ", " + list + ")")
			args = append(append(args, want...), want...)
			return sqlgen.Stmt{SQL: sb.String(), Args: args}
		}
	}
	// Strings compare as bytes: the derived table's values have the
	// connection's collation, the column the table's.
	bin := func(x string) string {
		if child.Column(child.PrimaryKey).Kind == datastore.String {
			return "CAST(" + x + " AS BINARY)"
		}
		return x
	}
	sb.WriteString("INSERT" + head + d.Ident("w") + "." + d.Ident("c") + " FROM (")
	for i, w := range want {
		if i > 0 {
			sb.WriteString(" UNION ALL ")
		}
		sb.WriteString(fmt.Sprintf("SELECT ? AS %s, %d AS %s", d.Ident("c"), i, d.Ident("n")))
		args = append(args, w)
	}
	sb.WriteString(") AS " + d.Ident("w") + " WHERE " + okVar + " AND NOT EXISTS (SELECT 1 FROM " + d.Ident(links.Name) + " AS " + d.Ident("e") +
		" WHERE " + d.Ident("e") + "." + d.Ident(parentCol) + " = ? AND " + bin(d.Ident("e")+"."+d.Ident(childCol)) + " = " +
		bin(d.Ident("w")+"."+d.Ident("c")) + ") ORDER BY " + d.Ident("w") + "." + d.Ident("n"))
	args = append(args, key)
	return sqlgen.Stmt{SQL: sb.String(), Args: args}
}

// where compiles e on t into the text of a WHERE clause and its arguments.
func (s *session) where(t *datastore.Table, e criteria.Expr) (string, []any, error) {
	st, err := sqlgen.Count(s.db.d, &datastore.Query{Table: t, Where: e})
	if err != nil {
		return "", nil, err
	}
	prefix := "SELECT COUNT(*) FROM " + s.db.d.Ident(t.Name) + " WHERE "
	w, ok := strings.CutPrefix(st.SQL, prefix)
	if !ok {
		return "", nil, fmt.Errorf("unexpected count statement %q", st.SQL)
	}
	return w, st.Args, nil
}

// uniq returns a and b, or a alone when they are the same.
func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}
