package readback

import (
	"context"
	"fmt"
)

// Resource is the summary of a Resource result set.
type Resource struct {
	LiveCount  NullDec             `json:"live_count"` // over every class
	LiveSize   NullDec             `json:"live_size"`
	Classes    List[ClassFigures]  `json:"classes"` // by live count, then live size
	Allocators List[Allocator]     `json:"allocating_routines"`
	Errors     List[ResourceError] `json:"errors"`
}

// ClassFigures are a class's figures (CLASSES_DATA).
type ClassFigures struct {
	Name         string  `json:"name" db:"name"`
	Module       string  `json:"module" db:"module"`
	LiveCount    NullDec `json:"live_count" db:"live_count"`
	LiveSize     NullDec `json:"live_size" db:"live_size"`
	PeakCreated  NullDec `json:"peak_created" db:"peak_created"`
	PeakSize     NullDec `json:"peak_size" db:"peak_size"`
	TotalCreated NullDec `json:"total_created" db:"total_created"`
	TotalSize    NullDec `json:"total_size" db:"total_size"`
}

// Allocator is a routine that created objects (the topmost frame of their
// creation call stacks), with how many and their size.
type Allocator struct {
	RecID   int64   `json:"rec_id" db:"rid"`
	Name    string  `json:"name" db:"name"`
	Class   string  `json:"class,omitempty" db:"class"`
	Objects int64   `json:"objects" db:"objects"`
	Size    NullDec `json:"size" db:"size"`
}

// ResourceError is an error the Resource profiler recorded.
type ResourceError struct {
	Name        string  `json:"name" db:"name"`
	Description string  `json:"description" db:"description"`
	Code        NullDec `json:"code" db:"code"`
	Kind        NullDec `json:"kind" db:"kind"`
}

// classQuery selects a CLASSES_DATA table's figures, by live count.
func classQuery(table string) string {
	col := func(c, as string) string { return "{c." + table + "." + c + "} AS " + as }
	return `SELECT COALESCE({c.` + table + `.COL_CLASS_NAME}, '') AS name, COALESCE({c.` + table + `.COL_MODULE_NAME}, '') AS module, ` +
		col("COL_LIVE_COUNT", "live_count") + ", " + col("COL_LIVE_SIZE", "live_size") + ", " +
		col("COL_PEAK_CREATED", "peak_created") + ", " + col("COL_PEAK_SIZE", "peak_size") + ", " +
		col("COL_TOTAL_CREATED", "total_created") + ", " + col("COL_TOTAL_SIZE", "total_size") +
		` FROM {c:` + table + `} WHERE {c.` + table + `.INST_ID} = {?}
		ORDER BY {c.` + table + `.COL_LIVE_COUNT} DESC, {c.` + table + `.COL_LIVE_SIZE} DESC, {c.` + table + `.ID}`
}

func (r *Reader) resource(ctx context.Context, in Instance, o Options) (*Resource, error) {
	if err := r.need(in, rsClasses, rsObjects, rsCreation, rsMetaRoutines, rsErrors); err != nil {
		return nil, err
	}
	wrap := func(what string, err error) error {
		return fmt.Errorf("read: result set %d: %s: %w", in.InstID, what, err)
	}
	res := &Resource{}
	var err error
	if res.Classes, err = top[ClassFigures](ctx, r, in.InstID, o.top(), classQuery(rsClasses)); err != nil {
		return nil, wrap("classes", err)
	}
	if res.LiveCount, res.LiveSize, err = r.classTotals(ctx, rsClasses, in.InstID); err != nil {
		return nil, wrap("live objects", err)
	}
	res.Allocators, err = top[Allocator](ctx, r, in.InstID, o.top(), `SELECT a.rid, COALESCE({m.`+rsMetaRoutines+`.COL_ROUTINE_NAME}, '') AS name,
		COALESCE({m.`+rsMetaRoutines+`.COL_CLASS_NAME}, '') AS class, a.objects, a.size
		FROM (SELECT COALESCE({s.`+rsCreation+`.COL_ROUTINERID}, -1) AS rid, COUNT(*) AS objects, COALESCE(SUM({o.`+rsObjects+`.COL_SIZE}), 0) AS size
			FROM {s:`+rsCreation+`} JOIN {o:`+rsObjects+`} ON {o.`+rsObjects+`.INST_ID} = {?}
				AND {o.`+rsObjects+`.ID} = {s.`+rsCreation+`.PARENT_ID}
			WHERE {s.`+rsCreation+`.INST_ID} = {?} AND {s.`+rsCreation+`.REC_ID} = 0
			GROUP BY COALESCE({s.`+rsCreation+`.COL_ROUTINERID}, -1)) a
		LEFT JOIN {m:`+rsMetaRoutines+`} ON {m.`+rsMetaRoutines+`.INST_ID} = {?} AND {m.`+rsMetaRoutines+`.REC_ID} = a.rid
		ORDER BY a.size DESC, a.objects DESC, a.rid`)
	if err != nil {
		return nil, wrap("allocating routines", err)
	}
	res.Errors, err = top[ResourceError](ctx, r, in.InstID, o.top(), `SELECT COALESCE({e.`+rsErrors+`.COL_NAME}, '') AS name,
		COALESCE({e.`+rsErrors+`.COL_DESCRIPTION}, '') AS description, {e.`+rsErrors+`.COL_ERROR_CODE} AS code, {e.`+rsErrors+`.COL_KIND} AS kind
		FROM {e:`+rsErrors+`} WHERE {e.`+rsErrors+`.INST_ID} = {?} ORDER BY {e.`+rsErrors+`.ID}`)
	if err != nil {
		return nil, wrap("errors", err)
	}
	return res, nil
}

// ReferenceCount is the summary of a Reference Count result set.
type ReferenceCount struct {
	Classes List[ClassFigures] `json:"classes"`
	Objects List[RefObject]    `json:"objects"`          // by live references
	Alive   List[RefObject]    `json:"alive_at_the_end"` // objects with live references
}

// RefObject is an object with its reference counts.
type RefObject struct {
	Number  int64   `json:"number" db:"num"`
	Address NullDec `json:"address" db:"address"`
	Class   string  `json:"class" db:"class"`
	Live    int64   `json:"live_references" db:"live"`
	Peak    int64   `json:"peak_references" db:"peak"`
	Total   int64   `json:"total_references" db:"total"`
	Size    NullDec `json:"size" db:"size"`
}

func (r *Reader) referenceCount(ctx context.Context, in Instance, o Options) (*ReferenceCount, error) {
	if err := r.need(in, rcClasses, rcObjects, rcMetaClasses); err != nil {
		return nil, err
	}
	wrap := func(what string, err error) error {
		return fmt.Errorf("read: result set %d: %s: %w", in.InstID, what, err)
	}
	rc := &ReferenceCount{}
	var err error
	if rc.Classes, err = top[ClassFigures](ctx, r, in.InstID, o.top(), classQuery(rcClasses)); err != nil {
		return nil, wrap("classes", err)
	}
	objects := func(where string) string {
		return `SELECT COALESCE({o.` + rcObjects + `.COL__}, 0) AS num, {o.` + rcObjects + `.COL_ADDRESS} AS address,
			COALESCE({c.` + rcMetaClasses + `.COL_CLASS_NAME}, '') AS class,
			COALESCE({o.` + rcObjects + `.COL_LIVE_REFERENCES}, 0) AS live, COALESCE({o.` + rcObjects + `.COL_PEAK_REFERENCES}, 0) AS peak,
			COALESCE({o.` + rcObjects + `.COL_TOTAL_REFERENCES}, 0) AS total, {o.` + rcObjects + `.COL_SIZE} AS size
			FROM {o:` + rcObjects + `} LEFT JOIN {c:` + rcMetaClasses + `} ON {c.` + rcMetaClasses + `.INST_ID} = {?}
				AND {c.` + rcMetaClasses + `.REC_ID} = {o.` + rcObjects + `.COL_CLASSRID}
			WHERE {o.` + rcObjects + `.INST_ID} = {?}` + where + `
			ORDER BY {o.` + rcObjects + `.COL_LIVE_REFERENCES} DESC, {o.` + rcObjects + `.COL__}`
	}
	if rc.Objects, err = top[RefObject](ctx, r, in.InstID, o.top(), objects("")); err != nil {
		return nil, wrap("objects", err)
	}
	if rc.Alive, err = top[RefObject](ctx, r, in.InstID, o.top(), objects(" AND {o."+rcObjects+".COL_LIVE_REFERENCES} > 0")); err != nil {
		return nil, wrap("objects alive at the end", err)
	}
	return rc, nil
}
