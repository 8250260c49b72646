package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// TimeFormat is the layout of the times in PROFDB_RESULT_SETS: UTC to the
// second, so that the text sorts as the times do.
const TimeFormat = "2006-01-02T15:04:05Z"

// Listing describes one result set in INSTANCES.
type Listing struct {
	InstID   int64            `json:"inst_id"`
	Profiler string           `json:"profiler"` // "" when RELATIONS names no registered profiler
	Caption  string           `json:"caption"`
	Rows     int64            `json:"rows"`
	Tables   map[string]int64 `json:"tables"`
	// What PROFDB_RESULT_SETS records, when the database has that table
	// and a row for the result set ("" otherwise): when it was exported
	// (UTC, TimeFormat), on which host, from what input, by which profdb.
	ExportedAt string `json:"exported_at,omitempty"`
	Host       string `json:"host,omitempty"`
	Input      string `json:"input,omitempty"`
	Version    string `json:"profdb_version,omitempty"`
	// Run is the run's identity, where profdb recorded one (Select fills
	// it in).
	Run *resultset.Run `json:"run,omitempty"`
	// Counter is the INSTANCES row's counter, nil when it names none.
	Counter *resultset.Counter `json:"-"`
	// Related are the child tables the result set's RELATIONS rows name,
	// sorted, whether a registered profiler has them or not: what tells
	// its profiler, or why none was found.
	Related []string `json:"-"`
}

// List returns the result sets in INSTANCES, by INST_ID, with each one's
// profiler (found from its RELATIONS rows), caption, row counts and
// identity (Listing.Run, as Select reads it), read in one consistent
// snapshot. A database without an INSTANCES table is an
// error wrapping ErrNoResultSets (see NoInstances), not an empty list: an
// INSTANCES table without rows is one.
func (db *DB) List(ctx context.Context) ([]Listing, error) {
	return db.list(ctx, true)
}

// InstIDs returns the INST_IDs in INSTANCES, in order: List without its
// counts, which read every row of every table (profdb copy needs them only
// for its progress bar).
func (db *DB) InstIDs(ctx context.Context) ([]int64, error) {
	ls, err := db.list(ctx, false)
	var out []int64
	for _, l := range ls {
		out = append(out, l.InstID)
	}
	return out, err
}

// list is List, counted or not, in one snapshot.
func (db *DB) list(ctx context.Context, counted bool) ([]Listing, error) {
	var out []Listing
	err := db.inCatalog(ctx, allSets, func(c *Catalog) error {
		var err error
		out, err = c.list(ctx, counted, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return out, nil
}

// ErrNoResultSets is wrapped by the errors that say there is no database
// of result sets where a read was asked to look: a database (a schema, an
// SQLite file) without an INSTANCES table, an empty SQLite file, or one
// that does not exist where nothing may be created. A schema that does not
// exist is dialects.ErrNoSchema instead.
var ErrNoResultSets = errors.New("no result sets")

// nothing is err, whose own words say what is missing, wrapping
// ErrNoResultSets without adding them.
func nothing(err error) error { return dialects.Wrapping(ErrNoResultSets, err) }

// NoInstances is the error for a database without an INSTANCES table
// where result sets are read: it names the database and the schema, and
// wraps ErrNoResultSets.
func (db *DB) NoInstances() error {
	return nothing(fmt.Errorf("%s has no INSTANCES table: it holds no result sets (nothing was ever exported there)", db.where()))
}

// NoInstances is DB.NoInstances of the catalogue's database.
func (c *Catalog) NoInstances() error { return c.db.NoInstances() }

// where names the database, and the schema when one was given.
func (db *DB) where() string {
	if db.opts.Schema != "" {
		return fmt.Sprintf("%s (schema %q)", db.display, db.opts.Schema)
	}
	return db.display
}

// List returns the result sets in INSTANCES, by INST_ID, as DB.List does,
// read through the catalogue's querier; ids limits the list to those
// result sets, each of which must be there. A database without an
// INSTANCES table holds none.
func (c *Catalog) List(ctx context.Context, ids ...int64) ([]Listing, error) {
	return c.list(ctx, true, ids)
}

// list is List, with the rows of each table counted only when counted is
// true (Rows and Tables stay zero otherwise): a count reads every row's
// index entry, which a read of the rows itself does not need.
func (c *Catalog) list(ctx context.Context, counted bool, ids []int64) ([]Listing, error) {
	if !c.Has(profilers.InstancesTable) {
		if len(ids) > 0 {
			return nil, &NoResultSetError{InstID: ids[0], NoTable: true, Database: c.db.where()}
		}
		return nil, nil
	}
	out, err := c.instances(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := c.recorded(ctx, out, ids); err != nil {
		return nil, err
	}
	if counted {
		if err := c.labelsOf(ctx, out, ids == nil); err != nil {
			return nil, err
		}
	}
	rels, err := c.relations(ctx, ids)
	if err != nil {
		return nil, err
	}
	var insts []int64 // nil: count the rows of every result set at once
	if len(ids) > 0 {
		insts = ids
	}
	counts := map[string]map[int64]int64{}
	for i := range out {
		rel := rels[out[i].InstID]
		for child := range rel {
			out[i].Related = append(out[i].Related, child)
		}
		sort.Strings(out[i].Related)
		def, ok := profilerOf(rel)
		if !ok {
			continue
		}
		out[i].Profiler = def.Name
		for _, t := range def.Tables {
			if !counted || !c.Has(t.Name) {
				continue
			}
			m, ok := counts[t.Name]
			if !ok {
				if m, err = c.countByInst(ctx, t.Name, insts); err != nil {
					return nil, err
				}
				counts[t.Name] = m
			}
			out[i].Tables[t.Name] = m[out[i].InstID]
			out[i].Rows += m[out[i].InstID]
		}
	}
	return out, nil
}

// ProfilerErr says why the result set's profiler is unknown (Profiler is
// ""), naming the tables its RELATIONS rows list; nil when it is known.
func (l Listing) ProfilerErr() error {
	if l.Profiler != "" {
		return nil
	}
	if len(l.Related) == 0 {
		return fmt.Errorf("result set %d has no RELATIONS rows: its profiler is unknown", l.InstID)
	}
	named, more := l.Related, ""
	if len(named) > 2 {
		named, more = named[:2], fmt.Sprintf(" and %d more", len(named)-2)
	}
	return fmt.Errorf("result set %d: RELATIONS names tables of a profiler this build does not know (%s%s); known profilers: %s",
		l.InstID, strings.Join(named, ", "), more, strings.Join(profilers.Names(), ", "))
}

// counterCols returns INSTANCES' COUNTER_NAME, COUNTER_DESCRIPTION and
// COUNTER_FREQUENCY, quoted, or nil when the table lacks one of them.
func (c *Catalog) counterCols(ctx context.Context) ([]string, error) {
	names := []string{"COUNTER_NAME", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY"}
	has, err := c.hasCols(ctx, profilers.InstancesTable, names...)
	if err != nil || !has {
		return nil, err
	}
	return c.mustCols(ctx, profilers.InstancesTable, names...)
}

// counterOf returns result set inst's counter from its INSTANCES row's
// counter columns (counterCols), nil when they name none.
func counterOf(inst int64, name, desc sql.NullString, freq any) (*resultset.Counter, error) {
	if !name.Valid && !desc.Valid && freq == nil {
		return nil, nil
	}
	f, err := Canonical(ddl.Decimal, freq)
	if err != nil {
		return nil, fmt.Errorf("INSTANCES.COUNTER_FREQUENCY of result set %d: %w", inst, err)
	}
	return &resultset.Counter{Name: name.String, Description: desc.String, Frequency: f}, nil
}

// instances reads the INSTANCES rows, of every result set or of those ids
// names.
func (c *Catalog) instances(ctx context.Context, ids []int64) ([]Listing, error) {
	cols, err := c.mustCols(ctx, profilers.InstancesTable, ddl.InstID, "CAPTION")
	if err != nil {
		return nil, err
	}
	counter, err := c.counterCols(ctx)
	if err != nil {
		return nil, err
	}
	cols = append(cols, counter...)
	query := fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), c.qualified(profilers.InstancesTable))
	where, args := c.whereInsts(cols[0], ids)
	rows, err := c.q.QueryContext(ctx, query+where+" ORDER BY "+cols[0], args...)
	if err != nil {
		return nil, fmt.Errorf("read INSTANCES: %w", err)
	}
	defer rows.Close()
	want := make(map[int64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []Listing
	for rows.Next() {
		var l Listing
		var caption, cname, cdesc sql.NullString
		var freq any
		dest := []any{&l.InstID, &caption}
		if counter != nil {
			dest = append(dest, &cname, &cdesc, &freq)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read INSTANCES: %w", err)
		}
		if len(ids) > 0 && !want[l.InstID] {
			continue
		}
		delete(want, l.InstID)
		l.Caption = caption.String
		l.Tables = map[string]int64{}
		if l.Counter, err = counterOf(l.InstID, cname, cdesc, freq); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read INSTANCES: %w", err)
	}
	for _, id := range ids {
		if want[id] {
			return nil, &NoResultSetError{InstID: id}
		}
	}
	return out, nil
}

// recorded fills in what PROFDB_RESULT_SETS records of the listed result
// sets, when the database has that table: of those ids names, read by
// INST_ID, or of every one. Where the table has the identity columns (one
// an earlier profdb made may lack them), each one's Run is read with the
// rest, as Select reads it (the labels are read apart: Catalog.labels).
func (c *Catalog) recorded(ctx context.Context, out []Listing, ids []int64) error {
	if !c.Has(profilers.ResultSetsTable) || len(out) == 0 {
		return nil
	}
	names := []string{ddl.InstID, profilers.ColExportedAt, profilers.ColHost, profilers.ColInput, profilers.ColVersion, profilers.ColDeletedAt}
	identity, err := c.hasCols(ctx, profilers.ResultSetsTable, profilers.IdentityColumns...)
	if err != nil {
		return err
	}
	if identity {
		names = append(names, profilers.ColCommit, profilers.ColBranch, profilers.ColDirty, profilers.ColCI, profilers.ColBuildID, profilers.ColBuildURL)
	}
	cols, err := c.mustCols(ctx, profilers.ResultSetsTable, names...)
	if err != nil {
		return err
	}
	read := append(cols[:5:5], cols[6:]...) // all but DELETED_AT
	at := make(map[int64]int, len(out))
	for i, l := range out {
		at[l.InstID] = i
	}
	where, args := c.whereInsts(cols[0], ids)
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	rows, err := c.q.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s%s%s IS NULL",
		strings.Join(read, ", "), c.qualified(profilers.ResultSetsTable), where, cols[5]), args...)
	if err != nil {
		return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var inst int64
		var when, host, input, version sql.NullString
		var id runColumns
		dest := []any{&inst, &when, &host, &input, &version}
		if identity {
			dest = append(dest, id.dest()...)
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
		}
		if i, ok := at[inst]; ok {
			out[i].ExportedAt, out[i].Host, out[i].Input, out[i].Version = when.String, host.String, input.String, version.String
			out[i].Run = id.run()
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
	}
	return nil
}

// NoResultSetError is the error for an INST_ID that names no result set:
// errors.As finds it, so that a command can tell a missing result set from
// a failure.
type NoResultSetError struct {
	InstID  int64
	NoTable bool // the database has no INSTANCES table at all
	// Database names the database (without secrets) when NoTable is set;
	// "" for "the database".
	Database string
}

// Unwrap returns ErrNoResultSets when the database has no INSTANCES table.
func (e *NoResultSetError) Unwrap() error {
	if e.NoTable {
		return ErrNoResultSets
	}
	return nil
}

func (e *NoResultSetError) Error() string {
	if e.NoTable {
		db := e.Database
		if db == "" {
			db = "the database"
		}
		return fmt.Sprintf("no result set %d: %s has no INSTANCES table", e.InstID, db)
	}
	return fmt.Sprintf("no result set %d in INSTANCES", e.InstID)
}
