package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

// Options say how a Handler serves.
type Options struct {
	// BasePath is the path under which the handler is mounted ("/profdb"):
	// the requests it receives carry it, and its links begin with it. ""
	// for the root.
	BasePath string
	// SourceRoot is where source files are read for the source pages
	// (package report's rule: only under it); "" shows the line table.
	SourceRoot string
	// QueryTimeout bounds a request's database work; its statements are
	// cancelled then (0: DefaultQueryTimeout).
	QueryTimeout time.Duration
	// MaxConcurrent caps the requests doing database work at once (0:
	// DefaultMaxConcurrent); one more waits at most Wait (0: DefaultWait),
	// then gets 503.
	MaxConcurrent int
	Wait          time.Duration
	// Token, when set, is what every request but /healthz must present.
	Token string
	// DefaultBranch is the branch a run's baseline is looked for on ("":
	// "main").
	DefaultBranch string
	// PageSize is how many runs / lists (0: 50).
	PageSize int
	// GitDir is the working directory whose git repository ancestor:
	// selectors read ("": the process's).
	GitDir string
	// The report's limits (report.Options): entries per list of a page,
	// coverage lines, call-tree nodes and depth (0: report's defaults).
	Top, MaxLines, MaxNodes, MaxDepth int
}

// Defaults of Options.
const (
	DefaultQueryTimeout  = 10 * time.Second
	DefaultMaxConcurrent = 8
	DefaultWait          = 2 * time.Second
	DefaultPageSize      = 50
)

// FigureCacheSize is how many result sets' headline figures a Handler
// keeps (readback.FigureCache), about 200 bytes each: those of the runs
// and trend pages read most.
const FigureCacheSize = 20000

// CookieName is the cookie that carries the token once given.
const CookieName = "profdb_token"

// Handler serves a database.
type Handler struct {
	db    *store.DB
	o     Options
	mux   *http.ServeMux
	slots chan struct{}
	token [sha256.Size]byte
	// figures keeps the headline figures of the result sets the pages
	// have shown (readback.FigureCache: those of a set never change).
	figures *readback.FigureCache
	// kept keeps the pages of runs and comparisons (keptPages).
	kept *keptPages
}

// New returns the handler of db.
func New(db *store.DB, o Options) (*Handler, error) {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = DefaultQueryTimeout
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.DefaultBranch == "" {
		o.DefaultBranch = "main"
	}
	o.BasePath = strings.TrimRight(o.BasePath, "/")
	if o.BasePath != "" && (!strings.HasPrefix(o.BasePath, "/") || strings.ContainsAny(o.BasePath, "?#%\\") || strings.Contains(o.BasePath, "..")) {
		return nil, optionerr.New(nil, "serve.Options", "%s must be a path beginning with /, without ?, #, %%, \\ or .., not "+strings.ReplaceAll(strconv.Quote(o.BasePath), "%", "%%"), "BasePath")
	}
	db.KeepColumns()
	h := &Handler{db: db, o: o, slots: make(chan struct{}, o.MaxConcurrent), figures: readback.NewFigureCache(FigureCacheSize), kept: newKeptPages(KeptPageBytes)}
	if o.Token != "" {
		h.token = sha256.Sum256([]byte(o.Token))
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /healthz", h.healthz)
	m.HandleFunc("GET /api/v1/runs", h.read(h.apiRuns))
	m.HandleFunc("GET /api/v1/runs/{sel}", h.read(h.apiRun))
	m.HandleFunc("GET /api/v1/compare/{a}/{b}", h.read(h.apiCompare))
	m.HandleFunc("GET /api/v1/trend", h.read(h.apiTrend))
	h.pages(m)
	h.mux = m
	return h, nil
}

// ServeHTTP answers GET and HEAD only, with the token when one is set.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "profdb serve is read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	path := r.URL.EscapedPath()
	if h.o.BasePath != "" {
		rest, ok := strings.CutPrefix(path, h.o.BasePath)
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
			http.NotFound(w, r)
			return
		}
		if rest == "" {
			http.Redirect(w, r, h.o.BasePath+"/", http.StatusMovedPermanently)
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.RawPath = rest
		var err error
		if u.Path, err = url.PathUnescape(rest); err != nil {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		r2.URL = &u
		r = r2
	}
	if r.URL.Path != "/healthz" && !h.authorized(w, r) {
		return
	}
	h.mux.ServeHTTP(w, r)
}

// authorized checks the token: a bearer header, the cookie, or ?token=,
// which sets the cookie and redirects to the address without it.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	if h.o.Token == "" {
		return true
	}
	if a := r.Header.Get("Authorization"); a != "" {
		if t, ok := strings.CutPrefix(a, "Bearer "); ok && h.tokenIs(t) {
			return true
		}
	}
	if c, err := r.Cookie(CookieName); err == nil && h.tokenIs(c.Value) {
		return true
	}
	q := r.URL.Query()
	if t := q.Get("token"); t != "" && h.tokenIs(t) {
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: h.o.Token, Path: h.o.BasePath + "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		q.Del("token")
		u := h.o.BasePath + r.URL.EscapedPath()
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		http.Redirect(w, r, u, http.StatusSeeOther)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="profdb"`)
	http.Error(w, "a token is needed: send it as Authorization: Bearer TOKEN, or once as ?token=TOKEN", http.StatusUnauthorized)
	return false
}

// tokenIs compares t with the token in constant time (of their hashes,
// so that not even the length shows).
func (h *Handler) tokenIs(t string) bool {
	sum := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
}

// healthz answers 200 when the database answers.
func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.o.QueryTimeout)
	defer cancel()
	if err := h.db.SQL().PingContext(ctx); err != nil {
		http.Error(w, "database: "+termtext.Line(err.Error()), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

// request is one request's read: its snapshot and its resolver.
type request struct {
	*http.Request
	ctx context.Context
	rd  *readback.Reader
	res *selector.Resolver
}

// page is what a request answers: a body and its type, or an error.
type answer struct {
	body        bytes.Buffer
	contentType string
	csp         string // the page's Content-Security-Policy; "" for the default
}

// beforeRead, when set (by tests), runs in each request's snapshot before
// its reads.
var beforeRead func(ctx context.Context, rd *readback.Reader) error

// read runs f with a slot of database work, a query timeout and a read
// snapshot, and sends what it answers, or the error as a status.
func (h *Handler) read(f func(q *request, a *answer) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		wait := time.NewTimer(h.o.Wait)
		select {
		case h.slots <- struct{}{}:
			wait.Stop()
		case <-wait.C:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy: too many requests read the database at once", http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			wait.Stop()
			return
		}
		defer func() { <-h.slots }()
		ctx, cancel := context.WithTimeout(r.Context(), h.o.QueryTimeout)
		defer cancel()
		a := &answer{}
		err := h.inSnapshot(ctx, r, a, f)
		if err != nil {
			h.fail(w, r, ctx, err)
			return
		}
		w.Header().Set("Content-Type", a.contentType)
		if a.csp != "" {
			w.Header().Set("Content-Security-Policy", a.csp)
		}
		w.Header().Set("Content-Length", strconv.Itoa(a.body.Len()))
		if r.Method != http.MethodHead {
			w.Write(a.body.Bytes())
		}
	}
}

func (h *Handler) inSnapshot(ctx context.Context, r *http.Request, a *answer, f func(q *request, a *answer) error) error {
	rd, err := readback.Begin(ctx, h.db)
	if err != nil {
		return err
	}
	defer rd.Close()
	rd.UseCache(h.figures)
	if beforeRead != nil {
		if err := beforeRead(ctx, rd); err != nil {
			return err
		}
	}
	q := &request{Request: r, ctx: ctx, rd: rd, res: &selector.Resolver{DB: h.db, Source: rd, Dir: h.o.GitDir}}
	return f(q, a)
}

// badRequest is an error in what the request asks.
type badRequest struct{ err error }

func (e badRequest) Error() string { return e.err.Error() }
func (e badRequest) Unwrap() error { return e.err }

func badf(format string, args ...any) error { return badRequest{fmt.Errorf(format, args...)} }

// notFound is a request for something the database does not hold.
type notFound struct{ err error }

func (e notFound) Error() string { return e.err.Error() }
func (e notFound) Unwrap() error { return e.err }

// status is the HTTP status of err.
func status(ctx context.Context, err error) int {
	var nf *selector.NotFoundError
	var nr *store.NoResultSetError
	var oe *optionerr.Error
	var br badRequest
	var nt notFound
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return http.StatusServiceUnavailable
	case errors.As(err, &nf), errors.As(err, &nr), errors.As(err, &nt), errors.Is(err, store.ErrNoResultSets):
		return http.StatusNotFound
	case errors.As(err, &br), errors.As(err, &oe), errors.Is(err, selector.ErrSyntax), errors.Is(err, selector.ErrFirst):
		return http.StatusBadRequest
	case errors.Is(err, compare.ErrIncomparable), errors.Is(err, trend.ErrUsage):
		return http.StatusUnprocessableEntity
	}
	var amb *selector.AmbiguousError
	if errors.As(err, &amb) {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// fail sends err with its status: a page for a page, text for the API.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, ctx context.Context, err error) {
	code := status(ctx, err)
	msg := termtext.Line(err.Error())
	if code == http.StatusServiceUnavailable && ctx.Err() != nil {
		msg = fmt.Sprintf("the query took longer than %s and was cancelled", h.o.QueryTimeout)
	}
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		h.errorPage(w, r, code, msg)
		return
	}
	http.Error(w, msg, code)
}

// CheckAddr refuses to listen on addr, an address other than loopback,
// without a token, unless noAuth says so.
func CheckAddr(addr string, token bool, noAuth bool) error {
	if token || noAuth || Loopback(addr) {
		return nil
	}
	return optionerr.New(nil, "serve.Options", "%[1]s: "+strings.ReplaceAll(addr, "%", "%%")+" is not a loopback address: set a token, or say that none is needed", "Token")
}

// Loopback reports whether addr (host:port) listens on loopback only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Timeouts of NewServer's http.Server.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts are NewServer's when none are given: a client that has
// not sent its headers in 5 s is cut off.
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 30 * time.Second, Idle: 60 * time.Second}

// NewServer returns the http.Server of h at addr with the timeouts t
// (zero fields from DefaultTimeouts) and headers of at most 64 KiB.
func NewServer(addr string, h http.Handler, t Timeouts) *http.Server {
	d := DefaultTimeouts
	pick := func(v, dflt time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return dflt
	}
	return &http.Server{Addr: addr, Handler: h, MaxHeaderBytes: 64 << 10,
		ReadHeaderTimeout: pick(t.ReadHeader, d.ReadHeader), ReadTimeout: pick(t.Read, d.Read),
		WriteTimeout: pick(t.Write, d.Write), IdleTimeout: pick(t.Idle, d.Idle)}
}
