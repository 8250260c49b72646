package serve

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

// pages adds the pages' routes.
func (h *Handler) pages(m *http.ServeMux) {
	m.HandleFunc("GET /{$}", h.read(h.runsPage))
	m.HandleFunc("GET /runs/{sel}", h.read(h.runPage))
	m.HandleFunc("GET /runs/{sel}/source/{file...}", h.read(h.sourcePage))
	m.HandleFunc("GET /compare/{a}/{b}", h.read(h.comparePage))
	m.HandleFunc("GET /trend", h.read(h.trendPage))
}

// links are the addresses of the pages, under the base path, for
// package report; q is the request, whose trend TrendOf narrows.
type links struct {
	base string
	q    url.Values
	// noTrend is set on a run's page whose runs form no trend (traces of
	// different counters, trend.Drawable): it links to none.
	noTrend bool
}

func (l links) Runs() string          { return l.base + "/" }
func (l links) Run(inst int64) string { return l.base + "/runs/" + strconv.FormatInt(inst, 10) }
func (l links) Source(inst int64, file string) string {
	return l.Run(inst) + "/source/" + url.PathEscape(file)
}
func (l links) Compare(a, b int64) string {
	return fmt.Sprintf("%s/compare/%d/%d", l.base, a, b)
}
func (l links) Trend(profiler, branch string) string {
	if l.noTrend {
		return ""
	}
	return l.base + "/trend?" + trendQuery(profiler, branch).Encode()
}

// trendQuery is the query of the trend of a profiler's runs on a branch
// ("" for every branch), as a run's page links to it.
func trendQuery(profiler, branch string) url.Values {
	v := url.Values{"profiler": {profiler}}
	if branch != "" {
		v.Set("branch", branch)
	}
	return v
}
func (l links) TrendOf(kind, name string) string {
	v := url.Values{}
	for k, vs := range l.q {
		if k != "file" && k != "routine" && k != "token" {
			v[k] = vs
		}
	}
	if kind == "routine" {
		v.Set("routine", name)
	} else {
		v.Set("file", name)
	}
	return l.base + "/trend?" + v.Encode()
}

// reportOptions are the report's options for a page of q.
func (h *Handler) reportOptions(q url.Values) report.Options {
	return report.Options{Title: "profdb", SourceRoot: h.o.SourceRoot, Top: h.o.Top, MaxLines: h.o.MaxLines,
		MaxNodes: h.o.MaxNodes, MaxDepth: h.o.MaxDepth, Links: links{base: h.o.BasePath, q: q}}
}

// html sets the answer's type and policy for a page.
func html(a *answer) error {
	csp, err := report.ServedPolicy()
	if err != nil {
		return err
	}
	a.contentType, a.csp = "text/html; charset=utf-8", csp
	return nil
}

// runsPage is /: the runs, newest first, a page at a time, paged by
// INST_ID (?before=N: the runs below N), never by offset.
func (h *Handler) runsPage(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v, append([]string{"before"}, filterParams...)...); err != nil {
		return err
	}
	f, err := filterOf(v, 0)
	if err != nil {
		return err
	}
	if f.Last == 0 || f.Last > h.o.PageSize {
		f.Last = h.o.PageSize
	}
	if s := v.Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return badf("before: %q is not an INST_ID", s)
		}
		f.Before = n
	}
	want := f.Last
	f.Last++ // one more says whether there is a next page
	got, err := q.rd.Select(q.ctx, f)
	if err != nil && !errors.Is(err, store.ErrNoResultSets) {
		return err
	}
	rp := &report.RunsPage{Filter: map[string]string{}, Profilers: profilers.Names(), PageSize: want}
	for _, k := range []string{"profiler", "branch", "commit", "since", "caption"} {
		rp.Filter[k] = v.Get(k)
	}
	rp.Filter["label"] = strings.Join(v["label"], ",")
	more := len(got) > want
	if more {
		got = got[1:] // oldest first: the extra one is the oldest
	}
	// The headlines of the page's runs, a few queries for them all.
	heads, err := q.rd.Headlines(q.ctx, got)
	if err != nil {
		return err
	}
	for i := len(got) - 1; i >= 0; i-- {
		rp.Runs = append(rp.Runs, report.RunRow{Listing: got[i], Headline: heads[got[i].InstID]})
	}
	page := func(before int64) string {
		w := url.Values{}
		for k, vs := range v {
			if k != "before" && k != "token" {
				w[k] = vs
			}
		}
		if before > 0 {
			w.Set("before", strconv.FormatInt(before, 10))
		}
		if len(w) == 0 {
			return h.o.BasePath + "/"
		}
		return h.o.BasePath + "/?" + w.Encode()
	}
	if f.Before > 0 {
		rp.First = page(0)
	}
	if more && len(got) > 0 {
		rp.Next = page(got[0].InstID)
	}
	if err := html(a); err != nil {
		return err
	}
	return report.WriteRuns(&a.body, rp, h.reportOptions(v))
}

// runPage is /runs/{selector}.
func (h *Handler) runPage(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v); err != nil {
		return err
	}
	l, err := q.first("run", q.PathValue("sel"))
	if err != nil {
		return err
	}
	var baseline int64
	if l.Profiler != "" {
		// The newest run of its profiler on the default branch before it.
		if got, err := q.rd.Select(q.ctx, store.Filter{Profiler: l.Profiler, Branch: h.o.DefaultBranch, Before: l.InstID, Last: 1}); err == nil && len(got) == 1 {
			baseline = got[0].InstID
		}
		// Linked only when compare would compare them (a trace's counter).
		if baseline != 0 && !h.comparable(q, l.InstID, baseline) {
			baseline = 0
		}
	}
	ro := h.reportOptions(v)
	if l.Profiler != "" {
		// Linked only when the trend page would draw one: the link's
		// query, as trendPage reads it.
		lk := ro.Links.(links)
		branch := ""
		if l.Run != nil {
			branch = l.Run.Branch
		}
		o, err := trendOptions(trendQuery(l.Profiler, branch), 20)
		lk.noTrend = err != nil || trend.Drawable(q.ctx, q.rd, o) != nil
		ro.Links = lk
	}
	if err := html(a); err != nil {
		return err
	}
	key, ok := setKey(l)
	key = fmt.Sprintf("run %s baseline %d trend %v", key, baseline, !ro.Links.(links).noTrend)
	return h.kept.answer(ok, key, a, func() error {
		return report.WriteRun(q.ctx, q.rd, &a.body, l.InstID, baseline, ro)
	})
}

// comparable reports whether result sets a and b compare
// (readback.Comparable).
func (h *Handler) comparable(q *request, a, b int64) bool {
	ia, err := q.rd.Instance(q.ctx, a)
	if err != nil {
		return false
	}
	ib, err := q.rd.Instance(q.ctx, b)
	return err == nil && readback.Comparable(ia, ib) == nil
}

// sourcePage is /runs/{selector}/source/{file}.
func (h *Handler) sourcePage(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v); err != nil {
		return err
	}
	file := q.PathValue("file")
	if err := checkFile(file); err != nil {
		return err
	}
	l, err := q.first("run", q.PathValue("sel"))
	if err != nil {
		return err
	}
	if err := html(a); err != nil {
		return err
	}
	err = report.WriteSource(q.ctx, q.rd, &a.body, l.InstID, file, h.reportOptions(v))
	if errors.Is(err, report.ErrNoSuchFile) {
		return notFound{err}
	}
	return err
}

// checkFile refuses a file name from a URL that could lead out of the
// source root however it is matched: .. or . segments (between / or \),
// a NUL. The name must then be one the result set
// holds, and is read only under the source root (srcroot).
func checkFile(file string) error {
	if file == "" || len(file) > 4096 || strings.ContainsRune(file, 0) {
		return badf("source file: not a file name")
	}
	for _, seg := range strings.FieldsFunc(file, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." || seg == "." {
			return badf("source file: %q has a %s segment: refused", file, seg)
		}
	}
	return nil
}

// comparePage is /compare/{a}/{b}.
func (h *Handler) comparePage(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v); err != nil {
		return err
	}
	first, err := q.first("A", q.PathValue("a"))
	if err != nil {
		return err
	}
	second, err := q.second("B", q.PathValue("b"), first)
	if err != nil {
		return err
	}
	if err := html(a); err != nil {
		return err
	}
	ka, okA := setKey(first)
	kb, okB := setKey(second)
	return h.kept.answer(okA && okB, "compare "+ka+" "+kb, a, func() error {
		return report.WriteCompare(q.ctx, q.rd, &a.body, first.InstID, second.InstID, h.reportOptions(v))
	})
}

// trendPage is /trend?….
func (h *Handler) trendPage(q *request, a *answer) error {
	v := q.URL.Query()
	o, err := trendOptions(v, 20)
	if err != nil {
		return err
	}
	ro := h.reportOptions(v)
	ro.Trend = &o
	if err := html(a); err != nil {
		return err
	}
	// The page is that of the runs the filter chooses now, in this
	// snapshot: kept under their identities and the parameters.
	keep := false
	key := sha256.New()
	if list, err := q.rd.Select(q.ctx, o.Filter); err == nil && len(list) > 0 {
		keep = true
		w := url.Values{}
		for k, vs := range v {
			if k != "token" {
				w[k] = vs
			}
		}
		fmt.Fprintf(key, "trend %s", w.Encode())
		for _, l := range list {
			k, ok := setKey(l)
			keep = keep && ok
			fmt.Fprintf(key, " %s", k)
		}
	}
	err = h.kept.answer(keep, string(key.Sum(nil)), a, func() error {
		return report.Write(q.ctx, q.rd, &a.body, ro)
	})
	var oe interface{ Names(string) bool }
	if errors.Is(err, trend.ErrUsage) || errors.As(err, &oe) {
		return badRequest{err}
	}
	return err
}

// errorPage sends a page that says what went wrong.
func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, code int, msg string) {
	a := &answer{}
	if err := html(a); err == nil {
		if err := report.WriteError(&a.body, code, msg, h.reportOptions(nil)); err == nil {
			w.Header().Set("Content-Type", a.contentType)
			w.Header().Set("Content-Security-Policy", a.csp)
			w.WriteHeader(code)
			if r.Method != http.MethodHead {
				w.Write(a.body.Bytes())
			}
			return
		}
	}
	http.Error(w, msg, code)
}

// keptPages keeps the pages that show result sets named by INST_ID alone
// (a run's page, a comparison), under the identity of those result sets:
// a result set never changes once written, and an INST_ID profdb's ledger
// gave out is never given out again, so the page is the one a later
// snapshot would write while the result sets are there (a deleted one is
// not found by the request's own selectors, which are resolved in its
// snapshot before the kept page is looked up). At most maxBytes of pages
// are kept; safe for concurrent use.
type keptPages struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	m        map[string][]byte
}

// KeptPageBytes is how many bytes of pages a Handler keeps (keptPages).
const KeptPageBytes = 16 << 20

func newKeptPages(maxBytes int) *keptPages {
	return &keptPages{maxBytes: maxBytes, m: map[string][]byte{}}
}

// setKey is the identity of a result set a kept page shows: its INST_ID
// and when it was exported; ok is false for one the ledger does not list,
// whose INST_ID may come back for another result set.
func setKey(l store.Listing) (key string, ok bool) {
	return fmt.Sprintf("%d@%s", l.InstID, l.ExportedAt), l.ExportedAt != ""
}

// answer writes into a the page kept under key, or writes it with write
// and keeps it when it succeeds; keep false neither looks nor keeps.
func (k *keptPages) answer(keep bool, key string, a *answer, write func() error) error {
	if !keep {
		return write()
	}
	k.mu.Lock()
	page, ok := k.m[key]
	k.mu.Unlock()
	if ok {
		a.body.Write(page)
		return nil
	}
	if err := write(); err != nil {
		return err
	}
	page = bytes.Clone(a.body.Bytes())
	if len(page) > k.maxBytes/8 {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.bytes+len(page) > k.maxBytes {
		clear(k.m)
		k.bytes = 0
	}
	if _, ok := k.m[key]; !ok {
		k.m[key] = page
		k.bytes += len(page)
	}
	return nil
}
