package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// serveOptions are the flags of "profdb serve".
type serveOptions struct {
	dsn, schema, addr, tokenFile string
	noAuth                       bool
	o                            serve.Options
	conn                         connOptions
	rep                          *ledger
}

// shutdownGrace is how long the requests in flight have to finish after
// SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

func newServeCmd(rep *ledger) *cobra.Command {
	o := &serveOptions{rep: rep}
	cmd := &cobra.Command{
		Use:     "serve [--db DSN] [--addr 127.0.0.1:7070] [--source-root DIR] [--base-path P] [--query-timeout 10s] [--token-file F | --no-auth]",
		Short:   "Serve the result sets of a database in a browser and as JSON, read-only",
		Long:    serveLong,
		Example: serveExample,
		Args:    usageArgs(cobra.NoArgs),
		RunE:    o.run,
	}
	dbFlag(cmd, &o.dsn)
	f := cmd.Flags()
	f.StringVar(&o.schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVar(&o.addr, "addr", "127.0.0.1:7070", "the `HOST:PORT` to listen on; another than loopback needs a token or --no-auth")
	f.StringVar(&o.o.SourceRoot, "source-root", "", "folder where coverage sources are looked for; only files under it are read")
	f.StringVar(&o.o.BasePath, "base-path", "", "the `PATH` the pages are served under, behind a reverse proxy (/profdb)")
	f.DurationVar(&o.o.QueryTimeout, "query-timeout", serve.DefaultQueryTimeout, "cancel a request's database work after this long")
	f.StringVar(&o.tokenFile, "token-file", "", "a `FILE` holding the token every request must present (else $PROFDB_SERVE_TOKEN)")
	f.BoolVar(&o.noAuth, "no-auth", false, "serve an address other than loopback without a token")
	positiveIntVar(f, &o.o.MaxConcurrent, "max-concurrent", serve.DefaultMaxConcurrent, "requests reading the database at once; more wait, then get 503")
	connFlags(cmd, &o.conn, rep)
	return cmd
}

// token is the token of --token-file or $PROFDB_SERVE_TOKEN; "" for none.
func (o *serveOptions) token() (string, error) {
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return "", fmt.Errorf("serve: --token-file: %w", err)
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", usageErrorf("serve: --token-file %s is empty", o.tokenFile)
		}
		return t, nil
	}
	return strings.TrimSpace(os.Getenv("PROFDB_SERVE_TOKEN")), nil
}

// run serves until SIGINT or SIGTERM, then lets the requests in flight
// finish (shutdownGrace).
func (o *serveOptions) run(cmd *cobra.Command, _ []string) error {
	tok, err := o.token()
	if err != nil {
		return err
	}
	if o.noAuth && tok != "" {
		return usageErrorf("serve: --no-auth and a token: give one of them")
	}
	if err := serve.CheckAddr(o.addr, tok != "", o.noAuth); err != nil {
		return usageErrorf("serve: --addr %s is not loopback: give a token (--token-file or PROFDB_SERVE_TOKEN) or --no-auth", o.addr)
	}
	o.o.Token = tok
	ctx := cmd.Context()
	// A signal ends the open, but not the connections it opens: store
	// closes a DB's connections when the context it was opened with
	// ends, and the requests in flight at the signal need theirs.
	octx, endOpen := context.WithCancel(context.WithoutCancel(ctx))
	defer endOpen()
	unwatch := context.AfterFunc(ctx, endOpen)
	db, err := o.conn.open(octx, o.dsn, store.Options{Schema: o.schema, ReadOnly: true})
	if !unwatch() && err == nil { // the signal came during the open
		db.Close()
		return context.Cause(ctx)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	h, err := serve.New(db, o.o)
	if err != nil {
		return usageErrorf("serve: --base-path: %v", err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := serve.NewServer(o.addr, h, serve.Timeouts{Write: o.o.QueryTimeout + 20*time.Second})
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	auth := "loopback only, no token"
	switch {
	case tok != "":
		auth = "a token is required"
	case o.noAuth:
		auth = "no token (--no-auth): anyone who reaches the address reads the database"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "profdb: serving %s at http://%s%s/ (%s)\n", db, ln.Addr(), o.o.BasePath, auth)
	o.rep.mu.Lock()
	o.rep.grace = shutdownGrace + 2*time.Second
	o.rep.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	if err != nil {
		return fmt.Errorf("serve: shut down: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "profdb: serve: stopped\n")
	return nil
}

const serveLong = `serve answers HTTP requests about the result sets of a database, read-only:
pages for a browser and a JSON API with the documents the commands print.

  /                            the runs, newest first: filters as list's
                               (?profiler=, branch=, label=, commit=,
                               since=, caption=), paged by ?before=INST_ID
  /runs/SELECTOR               one run as show and report give it
  /runs/SELECTOR/source/FILE   a source file, lines marked (--source-root)
  /compare/A/B                 compare as a page
  /trend?…                     report --trend's charts (trend's flags)
  /healthz                     200 when the database answers
  /api/v1/runs?…               list --json
  /api/v1/runs/SELECTOR        show --json (?top=)
  /api/v1/compare/A/B          compare --json (?style=, top=)
  /api/v1/trend?…              trend --json

Selectors are profdb's (latest, branch:NAME, commit:SHA, label:KEY=VALUE,
ancestor:REV, ~N; docs/selectors.md). Every request reads in one read-only
snapshot; methods other than GET and HEAD get 405. Each request's database
work is cancelled after --query-timeout; at most --max-concurrent requests
read at once, others wait 2 s, then get 503.

serve listens on loopback unless --addr says otherwise; another address
needs a token (PROFDB_SERVE_TOKEN, or the file --token-file names), sent as
"Authorization: Bearer TOKEN" or once as ?token=TOKEN, which sets an
HttpOnly, SameSite=Strict cookie; or --no-auth. It prints its address and
which it does. SIGINT or SIGTERM stops it; requests in flight have 10 s to
finish.`

const serveExample = `  profdb serve --db postgres://reader@db/prof --source-root ~/src/app
  PROFDB_SERVE_TOKEN=s3cret profdb serve --addr :7070 --base-path /profdb`
