package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/store"
)

// The flags of every command that opens a database: the DSN, and how long
// to wait for a server and for a lock.

// defaultDB is where profdb writes when --db is not given: a SQLite file in
// the current folder.
const defaultDB = "sqlite:profdb.db"

// dbFlag adds --db to a command.
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", defaultDB,
		"database `DSN`: sqlite:PATH, postgres://…, mysql://user:pass@host:port/db, sqlserver://user:pass@host:port?database=db")
}

// connOptions are the connection flags of the commands that open a
// database, with the ledger of the command.
type connOptions struct {
	timeout, ioTimeout, lockTimeout time.Duration
	cmd                             *cobra.Command // the command, whose flags say whether lockTimeout was given
	rep                             *ledger
}

// connFlags adds --timeout, --io-timeout and --lock-timeout to a command
// whose ledger is rep.
func connFlags(cmd *cobra.Command, c *connOptions, rep *ledger) {
	c.rep, c.cmd = rep, cmd
	f := cmd.Flags()
	f.DurationVar(&c.timeout, "timeout", store.DefaultConnectTimeout,
		"give up connecting to a database server after this long (0: wait for ever)")
	f.DurationVar(&c.ioTimeout, "io-timeout", store.DefaultIOTimeout,
		"give up when a database server neither answers nor takes data for this long (0: wait for ever)")
	f.DurationVar(&c.lockTimeout, "lock-timeout", dialects.DefaultLockTimeout,
		"SQLite: give up when another writer has held the database file for this long without writing to it (0: wait for ever); a writer waits behind others for as long as they make progress; wins over the DSN's lock_timeout")
	for _, name := range []string{"timeout", "io-timeout", "lock-timeout"} {
		if err := f.SetAnnotation(name, annNotNegative, []string{"true"}); err != nil {
			panic(err) // the flag was just added
		}
	}
}

// open opens a database with the connection options, for a command whose
// failure its lost connection explains (see ledger.explain). The notes the
// library logs (o.Logf) name the Options fields as the command does
// (phraseArgs).
func (c connOptions) open(ctx context.Context, dsn string, o store.Options) (*store.DB, error) {
	o.ConnectTimeout, o.IOTimeout = never(c.timeout), never(c.ioTimeout)
	if c.cmd != nil && c.cmd.Flags().Changed("lock-timeout") {
		o.LockTimeout = never(c.lockTimeout) // else the DSN's, or the default
	}
	if logf := o.Logf; logf != nil {
		o.Logf = func(format string, args ...any) { logf(format, phraseArgs(c.cmd, args)...) }
	}
	db, err := store.Open(ctx, dsn, o)
	if err != nil {
		return nil, err
	}
	c.rep.watch(db)
	return db, nil
}

// never maps a flag's 0 ("wait for ever") to the exporter's negative "none".
func never(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
