package merge

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/profilers/resource"
)

// Resource and Reference Count results share more than their routines
// (routineTable): classes, whose tables are alike, and objects with their
// creation call stacks.

// rsClass is a class of a merged Resource or Reference Count result set.
type rsClass struct {
	name, module, moniker string
	figs                  [6]acc           // live count, live size, peak created, peak size, total created, total size
	known                 resource.Figures // the figures an input gave
}

// classTable is the classes of Resource and Reference Count inputs,
// matched by name and module.
type classTable struct {
	classes keyed[[2]string, *rsClass]
}

// The columns readClasses reads of a META_CLASSES_DATA table, and of a
// CLASSES_DATA table: name, module and the figures of rsClass.figs.
var (
	metaClassCols = []string{"REC_ID", "COL_CLASS_NAME", "COL_MODULE_NAME", "COL_SYMBOL_MONIKER"}
	classCols     = []string{"COL_CLASS_NAME", "COL_MODULE_NAME",
		"COL_LIVE_COUNT", "COL_LIVE_SIZE", "COL_PEAK_CREATED", "COL_PEAK_SIZE", "COL_TOTAL_CREATED", "COL_TOTAL_SIZE"}
)

func (t *classTable) class(name, module string) int32 {
	return t.classes.at([2]string{name, module}, func() *rsClass { return &rsClass{name: name, module: module} })
}

// readClasses reads the classes (mq, of metaClassCols) and their figures
// (fq, of classCols) of input i, result set inst, and returns the merged
// classes by the input's REC_IDs. figure reads a figure, false for none:
// the input then holds no count of it.
func (t *classTable) readClasses(ctx context.Context, in *inputs, i int, inst int64, mq, fq *query,
	figure func(v any) (int64, bool)) (map[int64]int32, error) {
	byRec := map[int64]int32{}
	rec, name, module, moniker := mq.at("REC_ID"), mq.at("COL_CLASS_NAME"), mq.at("COL_MODULE_NAME"), mq.at("COL_SYMBOL_MONIKER")
	err := in.scan(ctx, inst, mq, func(row []any) error {
		j := t.class(str(row[name]), str(row[module]))
		if c := t.classes.items[j]; c.moniker == "" {
			c.moniker = str(row[moniker])
		}
		byRec[integer(row[rec])] = j
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("classes: %w", err)
	}
	name, module = fq.at("COL_CLASS_NAME"), fq.at("COL_MODULE_NAME")
	var figs [6]int
	for f, n := range classCols[2:] {
		figs[f] = fq.at(n)
	}
	err = in.scan(ctx, inst, fq, func(row []any) error {
		c := t.classes.items[t.class(str(row[name]), str(row[module]))]
		for f, at := range figs {
			if v, ok := figure(row[at]); ok {
				c.figs[f].add(i, v)
				c.known |= 1 << f
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("class figures: %w", err)
	}
	return byRec, nil
}

// creation is an object's creation call stack: its frames, each of the
// first input that has it, with the hit counts of every input.
type creation struct{ frames []rsFrame }

func (c *creation) stack() *creation { return c }

type rsFrame struct {
	routine int32 // -1 for none
	line    int64 // 0 for none
	hits    acc
}

// creationCols are the columns readCreation reads of a CREATION_CALL_STACK
// table.
var creationCols = []string{"PARENT_ID", "COL_HIT_COUNT", "COL_LINERID", "COL_ROUTINERID"}

// readCreation reads the creation call stacks (q, of creationCols, by
// parent and REC_ID) of input i, result set inst, into the merged objects
// the input's object IDs name by objects. A frame names its routine by
// REC_ID (routines) and its line by what line returns for the frame's
// COL_ROUTINERID and COL_LINERID.
func readCreation[O interface{ stack() *creation }](ctx context.Context, in *inputs, i int, inst int64, q *query,
	objects map[int64]O, routines map[int64]int32, line func(routine, rec any) int64) error {
	pos, cur := 0, int64(-1)
	parent := q.at("PARENT_ID")
	hits, lineRec, routine := q.at("COL_HIT_COUNT"), q.at("COL_LINERID"), q.at("COL_ROUTINERID")
	err := in.scan(ctx, inst, q, func(row []any) error {
		o, err := object(objects, integer(row[parent]), "a creation call stack's PARENT_ID")
		if err != nil {
			return err
		}
		s := o.stack()
		if integer(row[parent]) != cur {
			pos, cur = 0, integer(row[parent])
		}
		if pos == len(s.frames) { // a frame the inputs before have not
			r, err := ref(routines, row[routine], "a creation call stack's COL_ROUTINERID")
			if err != nil {
				return err
			}
			s.frames = append(s.frames, rsFrame{routine: r, line: line(row[routine], row[lineRec])})
		}
		s.frames[pos].hits.add(i, integer(row[hits]))
		pos++
		return nil
	})
	if err != nil {
		return fmt.Errorf("creation call stacks: %w", err)
	}
	return nil
}

// object is the merged object an input's object ID id names by objects;
// what says what names it, for the error.
func object[O any](objects map[int64]O, id int64, what string) (O, error) {
	o, ok := objects[id]
	if !ok {
		return o, fmt.Errorf("%s names no object %d (run verify)", what, id)
	}
	return o, nil
}

// ref is the merged item an input's REC_ID or ID v names by ids, -1 for
// none (NULL); what says what names it, for the error.
func ref(ids map[int64]int32, v any, what string) (int32, error) {
	if v == nil {
		return -1, nil
	}
	j, ok := ids[integer(v)]
	if !ok {
		return 0, fmt.Errorf("%s %d names nothing (run verify)", what, integer(v))
	}
	return j, nil
}
