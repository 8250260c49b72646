package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
)

// snapshot is a read-only transaction on one connection in which every
// read sees the same committed state of the database (see
// dialects.ReadSnapshot): a reader never sees part of a result set that is
// being exported or deleted meanwhile.
type snapshot struct {
	conn *sql.Conn
	q    dialects.DBTX
	end  []string
	once sync.Once
	keep bool // the reader owns the snapshot now and closes it
	// killer, when set, stops on the server the statement the
	// connection runs once the snapshot's context ends
	// (dialects.QueryKiller); close stops it and waits for it.
	stop, killed chan struct{}
}

// snapshotRetries bounds how often a read starts again in a new snapshot
// after a table changed under the old one (see
// dialects.Dialect.SnapshotStale).
const snapshotRetries = 5

// The reach of a read, which decides the plans it is given.
const (
	// fewSets: every statement selects rows by INST_ID; the dialect's
	// FewSetsSettings apply (see dialects.FewSetsPlanner).
	fewSets = true
	// allSets: a read of every result set, planned as the server likes.
	allSets = false
)

// snapshot begins a read snapshot; few (fewSets) applies the dialect's
// settings for statements about one or a few result sets. Where the
// snapshot's beginning takes a lock on the whole database (SQLite's shared
// lock), it waits for writers as waitLock says.
func (db *DB) snapshot(ctx context.Context, few bool) (*snapshot, error) {
	var s *snapshot
	err := db.waitLock(ctx, false, func() (err error) {
		s, err = db.snapshot1(ctx, few)
		return err
	})
	return s, err
}

// snapshot1 is one attempt of snapshot.
func (db *DB) snapshot1(ctx context.Context, few bool) (*snapshot, error) {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", db.display, err)
	}
	s := &snapshot{conn: conn}
	plan := db.d.ReadSnapshot(db.opts.Schema)
	s.q, s.end = conn, plan.End
	begin := plan.Begin
	if plan.Probe != "" {
		var usable int64
		if err := conn.QueryRowContext(ctx, plan.Probe).Scan(&usable); err != nil {
			s.close()
			return nil, fmt.Errorf("begin read snapshot: %w", err)
		}
		if usable == 0 {
			begin = plan.Fallback
		}
	}
	if err := dialects.ExecAll(ctx, conn, begin); err != nil {
		s.close()
		return nil, fmt.Errorf("begin read snapshot: %w", err)
	}
	if few {
		if err := db.planFewSets(ctx, conn); err != nil {
			s.close()
			return nil, fmt.Errorf("begin read snapshot: %w", err)
		}
	}
	if err := db.watchKill(ctx, s); err != nil {
		s.close()
		return nil, fmt.Errorf("begin read snapshot: %w", err)
	}
	return s, nil
}

// killWait bounds the wait for another connection and for KILL QUERY.
const killWait = 5 * time.Second

// watchKill has the statement s's connection runs stopped on the server
// when ctx ends before s is closed, where the dialect's server would run it
// on (dialects.QueryKiller): it reads the connection's id now, and then
// runs KILL QUERY on another connection of the pool. The connection is
// s's until close, which waits for the kill, so no statement but s's can
// be stopped. A context that never ends needs no watch.
func (db *DB) watchKill(ctx context.Context, s *snapshot) error {
	k, ok := db.d.(dialects.QueryKiller)
	if !ok || ctx.Done() == nil {
		return nil
	}
	var id int64
	if err := s.conn.QueryRowContext(ctx, k.ConnectionID()).Scan(&id); err != nil {
		return err
	}
	s.stop, s.killed = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.killed)
		select {
		case <-s.stop:
		case <-ctx.Done():
			kctx, cancel := context.WithTimeout(context.Background(), killWait)
			defer cancel()
			db.db.ExecContext(kctx, k.KillQuery(id)) // at worst the server stops the statement when it notices
		}
	}()
	return nil
}

// planFewSets runs the dialect's settings for a transaction whose statements
// each select rows by INST_ID (dialects.FewSetsPlanner) in the transaction
// open on q.
func (db *DB) planFewSets(ctx context.Context, q dialects.DBTX) error {
	p, ok := db.d.(dialects.FewSetsPlanner)
	if !ok {
		return nil
	}
	return dialects.ExecAll(ctx, q, p.FewSetsSettings())
}

// close ends the snapshot and returns its connection to the pool, or
// discards the connection when the snapshot could not be ended cleanly. It
// is safe to call more than once.
func (s *snapshot) close() { s.once.Do(s.end1) }

func (s *snapshot) end1() {
	if s.stop != nil {
		close(s.stop)
		<-s.killed
	}
	// End even when the reader's context was canceled, so that the pooled
	// connection is not left inside a transaction; a connection that does
	// not answer is discarded, and the server ends its transaction.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := dialects.ExecAll(ctx, s.conn, s.end); err != nil {
		s.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	s.conn.Close()
}

// inSnapshot runs read in a new snapshot, again (at most snapshotRetries
// times) when the dialect says a table changed under the snapshot; few
// says whether the read is of one or a few result sets (fewSets) or of
// every one (allSets). A read that succeeds may keep the snapshot (setting
// its keep flag) and close it later itself.
func (db *DB) inSnapshot(ctx context.Context, few bool, read func(s *snapshot) error) error {
	for attempt := 1; ; attempt++ {
		s, err := db.snapshot(ctx, few)
		if err != nil {
			return err
		}
		err = read(s)
		if err != nil || !s.keep {
			s.close()
		}
		if err == nil || attempt > snapshotRetries || !snapshotStale(db.d, err) || ctx.Err() != nil {
			return err
		}
	}
}

// inCatalog runs read, in a new snapshot of the given reach (fewSets or
// allSets; see inSnapshot), on the
// catalogue of a database that holds result sets: one without an
// INSTANCES table is DB.NoInstances's error.
func (db *DB) inCatalog(ctx context.Context, reach bool, read func(c *Catalog) error) error {
	return db.inSnapshot(ctx, reach, func(s *snapshot) error {
		c, err := db.Catalog(ctx, s.q)
		if err != nil {
			return err
		}
		if !c.Has(profilers.InstancesTable) {
			return db.NoInstances()
		}
		return read(c)
	})
}

// Snapshot is a read-only, consistent view of a DB for readers of their
// own (package readback): every query through Querier sees the same
// committed state, and nothing is locked for writing or written. Close
// ends it.
type Snapshot struct{ s *snapshot }

// BeginSnapshot begins a read snapshot, as the dialect begins it (see
// dialects.Dialect.ReadSnapshot), for a reader whose queries select rows
// by INST_ID, one or a few result sets at a time: the dialect's settings
// for such statements apply (dialects.FewSetsPlanner).
func (db *DB) BeginSnapshot(ctx context.Context) (*Snapshot, error) {
	s, err := db.snapshot(ctx, fewSets)
	if err != nil {
		return nil, err
	}
	return &Snapshot{s}, nil
}

// Querier runs the snapshot's queries; it is one connection, not safe
// for concurrent use.
func (s *Snapshot) Querier() dialects.DBTX { return s.s.q }

// Close ends the snapshot. It is safe to call more than once.
func (s *Snapshot) Close() { s.s.close() }

// snapshotStale reports whether d says that err refused a table created
// or changed after the snapshot began (dialects.StaleSnapshots).
func snapshotStale(d dialects.Dialect, err error) bool {
	s, ok := d.(dialects.StaleSnapshots)
	return ok && s.SnapshotStale(err)
}
