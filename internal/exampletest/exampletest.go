package exampletest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Example is an example input's tables: rows as column -> value (numbers
// and strings as text).
type Example map[string][]map[string]json.Number

// Load reads examples/NAME.json from the repository whose root is root.
func Load(root, name string) (Example, error) {
	f, err := os.Open(filepath.Join(root, "examples", name+".json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var doc struct {
		Tables map[string][]map[string]any `json:"tables"`
	}
	d := json.NewDecoder(f)
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ex := Example{}
	for tn, rows := range doc.Tables {
		for _, row := range rows {
			m := map[string]json.Number{}
			for k, v := range row {
				switch x := v.(type) {
				case json.Number:
					m[k] = x
				case string:
					m[k] = json.Number(x)
				}
			}
			ex[tn] = append(ex[tn], m)
		}
	}
	return ex, nil
}

func num(v json.Number) float64 { f, _ := v.Float64(); return f }

// fileLines calls each with every LINES row of a Light Coverage example
// and its routine's source file.
func (ex Example) fileLines(each func(file string, line map[string]json.Number)) {
	fileOf := map[string]string{}
	for _, r := range ex["LIGHT_COVERAGE_PROFILER_ROUTINES_DATA"] {
		fileOf[string(r["ID"])] = string(r["COL_SOURCE_FILE"])
	}
	for _, l := range ex["LIGHT_COVERAGE_PROFILER_LINES"] {
		each(fileOf[string(l["PARENT_ID"])], l)
	}
}

// FileCoverage returns covered and total lines per source file of a Light
// Coverage example.
func (ex Example) FileCoverage() map[string][2]int64 {
	out := map[string][2]int64{}
	ex.fileLines(func(f string, l map[string]json.Number) {
		c := out[f]
		c[1]++
		if num(l["COL_MARK"]) > 0 {
			c[0]++
		}
		out[f] = c
	})
	return out
}

// MaxLine returns the largest line number of each source file of a Light
// Coverage example.
func (ex Example) MaxLine() map[string]int64 {
	out := map[string]int64{}
	ex.fileLines(func(f string, l map[string]json.Number) {
		out[f] = max(out[f], int64(num(l["COL_SOURCE_LINE"])))
	})
	return out
}

// OwnTimes returns the own time (sum of COL__S) of each routine of a
// Function Trace example, by routine name.
func (ex Example) OwnTimes() map[string]int64 {
	name := map[string]string{}
	for _, r := range ex["FUNCTION_TRACE_PROFILER_META_ROUTINES"] {
		name[string(r["REC_ID"])] = string(r["COL_ROUTINE_NAME"])
	}
	out := map[string]int64{}
	for _, c := range ex["FUNCTION_TRACE_PROFILER_CALL_TRACE"] {
		out[name[string(c["COL_ROUTINE_NAME"])]] += int64(num(c["COL__S"]))
	}
	return out
}

// Sum adds up a column of a table.
func (ex Example) Sum(table, column string) float64 {
	var s float64
	for _, r := range ex[table] {
		s += num(r[column])
	}
	return s
}

// AliveObjects returns the numbers (COL__) of the Reference Count
// example's objects with live references, sorted.
func (ex Example) AliveObjects() []string {
	var out []string
	for _, o := range ex["REFERENCE_COUNT_PROFILER_OBJECTS"] {
		if num(o["COL_LIVE_REFERENCES"]) > 0 {
			out = append(out, string(o["COL__"]))
		}
	}
	sort.Strings(out)
	return out
}

// Names are the examples, one per profiler.
var Names = []string{"light-coverage", "function-trace", "resource", "reference-count"}

// Export exports the named examples (all when none are named) from the
// repository at root into dsn and returns the INST_ID of each. The caller
// imports the dialects, the profilers and input/interchange.
func Export(ctx context.Context, root, dsn string, names ...string) (map[string]int64, error) {
	if len(names) == 0 {
		names = Names
	}
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ids := map[string]int64{}
	for _, ex := range names {
		if ids[ex], err = exportOne(ctx, root, ex, db); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// ExportRun exports the example name from the repository at root into dsn
// with the identity run, as profdb export records the one it found, and
// returns its INST_ID. The caller imports the dialect, the profiler and
// input/interchange.
func ExportRun(ctx context.Context, root, dsn, name string, run *resultset.Run) (int64, error) {
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return exportOne(ctx, root, name, withRun{db, run})
}

// exportOne exports the example name through t.
func exportOne(ctx context.Context, root, name string, t resultset.Target) (int64, error) {
	f, err := os.Open(filepath.Join(root, "examples", name+".json"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	res, err := input.Read(ctx, "", f, name, t, input.Options{})
	if err != nil {
		return 0, err
	}
	return res[0].InstID, nil
}

// withRun gives every result set begun through it the identity run.
type withRun struct {
	resultset.Target
	run *resultset.Run
}

func (w withRun) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	h.Run = w.run
	return w.Target.Begin(ctx, h)
}

// UncoveredLines returns "file:line" of every line of a Light Coverage
// example that did not run.
func (ex Example) UncoveredLines() []string {
	var out []string
	ex.fileLines(func(f string, l map[string]json.Number) {
		if num(l["COL_MARK"]) <= 0 {
			out = append(out, f+":"+string(l["COL_SOURCE_LINE"]))
		}
	})
	sort.Strings(out)
	return out
}

// ObjectsPerClass counts the objects of a Resource example by class name.
func (ex Example) ObjectsPerClass() map[string]int64 {
	name := map[string]string{}
	for _, c := range ex["RESOURCE_PROFILER_META_CLASSES_DATA"] {
		name[string(c["REC_ID"])] = string(c["COL_CLASS_NAME"])
	}
	out := map[string]int64{}
	for _, o := range ex["RESOURCE_PROFILER_OBJECTS"] {
		out[name[string(o["COL_CLASSRID"])]]++
	}
	return out
}

// Column maps a table's key column to its value column, as text.
func (ex Example) Column(table, key, value string) map[string]string {
	out := map[string]string{}
	for _, r := range ex[table] {
		out[string(r[key])] = string(r[value])
	}
	return out
}
