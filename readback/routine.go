package readback

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// RoutineID is what names a routine across result sets: its module,
// namespace (package), class and name as the profiler's META_ROUTINES
// table holds them. Overloads (the same full name at other lines or with
// other signatures) are one routine; two different full names never are,
// so `main.main` and `runtime.main` are two. compare and check match
// routines by it.
type RoutineID struct {
	Module    string `json:"module,omitempty" db:"module"`
	Namespace string `json:"namespace,omitempty" db:"namespace"`
	Class     string `json:"class,omitempty" db:"class"`
	Name      string `json:"name" db:"name"`
}

// FullName is Namespace.Class::Name, without the parts that are empty:
// `main.fib`, `net/http.Server::Serve`, `Class::Name`, `Name`.
func (id RoutineID) FullName() string { return FullName(id.Namespace, id.Class, id.Name) }

// FullName is the one spelling of a routine's (or a class member's) name
// for people: Namespace.Class::Name, without the parts that are empty.
func FullName(namespace, class, name string) string {
	s := name
	if class != "" {
		s = class + "::" + s
	}
	if namespace != "" {
		s = namespace + "." + s
	}
	return s
}

// Compare orders routine identities by full name, then module.
func (id RoutineID) Compare(o RoutineID) int {
	if c := strings.Compare(id.FullName(), o.FullName()); c != 0 {
		return c
	}
	return cmp.Or(strings.Compare(id.Namespace, o.Namespace), strings.Compare(id.Class, o.Class),
		strings.Compare(id.Name, o.Name), strings.Compare(id.Module, o.Module))
}

// RoutineIDColumns is the select list of a routine's identity (columns
// module, namespace, class and name, NULL as empty text) from the META_ROUTINES
// table meta (Light Coverage, Function Trace, Resource) through alias, as
// text compared exactly (ExactText), for query templates that match or
// group routines across result sets: the one definition of RoutineID in
// SQL.
func (r *Reader) RoutineIDColumns(alias, meta string) string {
	col := func(c, as string) string {
		return r.ExactText(`COALESCE({`+alias+`.`+meta+`.`+c+`}, '')`) + ` AS ` + as
	}
	return col("COL_MODULE_NAME", "module") + ", " + col("COL_NAMESPACE", "namespace") + ", " +
		col("COL_CLASS_NAME", "class") + ", " + col("COL_ROUTINE_NAME", "name")
}

// cumWalk computes time with children the way `go tool pprof` computes
// cum: per routine, the sum of COL__S_WITH_CHILDREN over its calls that
// have no call of the same routine above them, so that the time of a
// recursive routine's nested calls, already in its outer call's, is not
// counted again. Calls come in each thread's call order (REC_ID, a
// pre-order of the call tree, COL_PARENT_NO naming the caller).
//
// It keeps the open calls that are the outermost of their routine only: at
// most one per routine, however deep the calls nest. A call's callers are
// the open calls of a REC_ID up to its COL_PARENT_NO (pre-order): those
// after it are closed, and their routines no longer open.
type cumWalk struct {
	cum    []int64 // by routine key
	open   []bool  // by routine key: an outermost call of it is open
	stack  []cumFrame
	thread int64
}

type cumFrame struct {
	rec int64
	key int32
}

func newCumWalk(keys int) *cumWalk {
	return &cumWalk{cum: make([]int64, keys), open: make([]bool, keys)}
}

// add takes one call of thread, REC_ID rec, made by the call parent (-1
// at the top of the thread), of the routine key, with time with children
// total.
func (w *cumWalk) add(thread, rec, parent int64, key int32, total int64) {
	if thread != w.thread {
		parent = -1 // a thread of its own: every call of the last one is closed
		w.thread = thread
	}
	for len(w.stack) > 0 && w.stack[len(w.stack)-1].rec > parent {
		w.open[w.stack[len(w.stack)-1].key] = false
		w.stack = w.stack[:len(w.stack)-1]
	}
	if !w.open[key] {
		w.cum[key] += total
		w.open[key] = true
		w.stack = append(w.stack, cumFrame{rec, key})
	}
}

// withChildren walks the CALL_TRACE rows of result set inst and returns
// each routine key's time with children (pprof's cum); key maps a
// routine's REC_ID (COL_ROUTINE_NAME, -1 when NULL) to one of keys keys,
// or to -1 for a routine it does not know, whose calls then have no key of
// their own: they count for none. Memory grows with the keys only.
func (r *Reader) withChildren(ctx context.Context, inst int64, keys int, key func(rid int64) int32) ([]int64, error) {
	w := newCumWalk(keys + 1) // the last: routines key does not know
	var thread, rec, parent, rid, total int64
	err := scan(ctx, r, inst, `SELECT {c.`+ftCallTrace+`.PARENT_ID} AS thread, {c.`+ftCallTrace+`.REC_ID} AS rec,
		COALESCE({c.`+ftCallTrace+`.COL_PARENT_NO}, -1) AS parent, COALESCE({c.`+ftCallTrace+`.COL_ROUTINE_NAME}, -1) AS rid,
		COALESCE({c.`+ftCallTrace+`.COL__S_WITH_CHILDREN}, 0) AS total
		FROM {c:`+ftCallTrace+`} WHERE {c.`+ftCallTrace+`.INST_ID} = {?}
		ORDER BY {c.`+ftCallTrace+`.PARENT_ID}, {c.`+ftCallTrace+`.REC_ID}`,
		func(rows *sqlx.Rows) error {
			if err := rows.Scan(&thread, &rec, &parent, &rid, &total); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			k := key(rid)
			if k < 0 {
				k = int32(keys)
			}
			w.add(thread, rec, parent, k, total)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("time with children: %w", err)
	}
	return w.cum[:keys], nil
}
