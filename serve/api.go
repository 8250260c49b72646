package serve

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

// The API answers with what the commands print with --json, from the same
// query parameters as their flags: list's filters, show's --top,
// compare's --style and --top, trend's filters, --file, --routine and
// --top. A parameter the command does not take is refused.

// known refuses a parameter not named in names (and "token").
func known(v url.Values, names ...string) error {
	for k := range v {
		ok := k == "token"
		for _, n := range names {
			ok = ok || k == n
		}
		if !ok {
			return badf("unknown parameter %q", k)
		}
	}
	return nil
}

// filterParams are list's filter flags.
var filterParams = []string{"profiler", "branch", "commit", "label", "since", "caption", "last"}

// filterOf reads list's filter flags from v (store.FilterText's rule);
// last is --last's default.
func filterOf(v url.Values, last int) (store.Filter, error) {
	t := store.FilterText{Profiler: v.Get("profiler"), Branch: v.Get("branch"), Commit: v.Get("commit"), Labels: v["label"], Since: v.Get("since"), Caption: v.Get("caption"), Last: last}
	if s := v.Get("last"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return store.Filter{}, badf("last: %q is not 0 (all) or more", s)
		}
		t.Last = n
	}
	f, err := t.Filter(time.Now())
	if err != nil {
		return f, badRequest{err}
	}
	return f, nil
}

// positive reads a positive integer parameter, dflt when absent.
func positive(v url.Values, name string, dflt int) (int, error) {
	s := v.Get(name)
	if s == "" {
		return dflt, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, badf("%s: %q is not a positive number", name, s)
	}
	return n, nil
}

// listing is what list prints for the filter of v.
func (q *request) listing(f store.Filter) (readback.Listing, error) {
	if f.Narrows() {
		f.Counted = true
		return q.rd.Select(q.ctx, f)
	}
	return q.rd.List(q.ctx)
}

// apiRuns is list --json.
func (h *Handler) apiRuns(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v, filterParams...); err != nil {
		return err
	}
	f, err := filterOf(v, 0)
	if err != nil {
		return err
	}
	l, err := q.listing(f)
	if err != nil {
		return err
	}
	a.contentType = "application/json"
	return readback.Listing(l).WriteJSON(&a.body)
}

// parseSel reads a selector from the path.
func parseSel(what, text string) (selector.Selector, error) {
	s, err := selector.Parse(text)
	if err != nil {
		return s, badRequest{fmt.Errorf("%s: %w", what, err)}
	}
	return s, nil
}

// first resolves the result set a path names first, and checks that the
// database holds it.
func (q *request) first(what, text string) (store.Listing, error) {
	s, err := parseSel(what, text)
	if err != nil {
		return store.Listing{}, err
	}
	l, err := q.res.Resolve(q.ctx, s)
	if err != nil {
		return l, err
	}
	return q.holds(l)
}

// second resolves B beside A, as compare does.
func (q *request) second(what, text string, first store.Listing) (store.Listing, error) {
	s, err := parseSel(what, text)
	if err != nil {
		return store.Listing{}, err
	}
	l, err := q.res.Second(q.ctx, s, first)
	if err != nil {
		return l, err
	}
	return q.holds(l)
}

// holds returns the listing of l's result set, which must be there.
func (q *request) holds(l store.Listing) (store.Listing, error) {
	if l.Profiler != "" {
		return l, nil
	}
	got, err := q.rd.Select(q.ctx, store.Filter{InstID: l.InstID})
	if err != nil {
		return l, err
	}
	if len(got) == 0 {
		return l, &store.NoResultSetError{InstID: l.InstID}
	}
	return got[0], nil
}

// apiRun is show --json.
func (h *Handler) apiRun(q *request, a *answer) error {
	v := q.URL.Query()
	if err := known(v, "top"); err != nil {
		return err
	}
	top, err := positive(v, "top", 20)
	if err != nil {
		return err
	}
	l, err := q.first("run", q.PathValue("sel"))
	if err != nil {
		return err
	}
	s, err := q.rd.Summarize(q.ctx, l.InstID, readback.Options{Top: top})
	if err != nil {
		return err
	}
	a.contentType = "application/json"
	return s.WriteJSON(&a.body)
}

// comparison is compare's result for the request's A and B.
func (q *request) comparison(top int) (*compare.Result, error) {
	v := q.URL.Query()
	style := v.Get("style")
	if style == "" {
		style = "difference"
	}
	st, err := compare.ParseStyle(style)
	if err != nil {
		return nil, badf("style must be difference, ratio or percent, not %q", style)
	}
	if top, err = positive(v, "top", top); err != nil {
		return nil, err
	}
	a, err := q.first("A", q.PathValue("a"))
	if err != nil {
		return nil, err
	}
	b, err := q.second("B", q.PathValue("b"), a)
	if err != nil {
		return nil, err
	}
	return compare.Compare(q.ctx, q.rd, a.InstID, b.InstID, compare.Options{Style: st, Top: top})
}

// apiCompare is compare --json.
func (h *Handler) apiCompare(q *request, a *answer) error {
	if err := known(q.URL.Query(), "style", "top"); err != nil {
		return err
	}
	res, err := q.comparison(20)
	if err != nil {
		return err
	}
	a.contentType = "application/json"
	return res.WriteJSON(&a.body)
}

// trendOptions are trend's options from the request's parameters.
func trendOptions(v url.Values, top int) (trend.Options, error) {
	if err := known(v, append([]string{"file", "routine", "top"}, filterParams...)...); err != nil {
		return trend.Options{}, err
	}
	var o trend.Options
	var err error
	if o.Filter, err = filterOf(v, 100); err != nil {
		return o, err
	}
	o.File, o.Routine = v.Get("file"), v.Get("routine")
	if o.Top, err = positive(v, "top", top); err != nil {
		return o, err
	}
	if err := o.Check(); err != nil {
		return o, badRequest{err}
	}
	return o, nil
}

// apiTrend is trend --json.
func (h *Handler) apiTrend(q *request, a *answer) error {
	o, err := trendOptions(q.URL.Query(), 10)
	if err != nil {
		return err
	}
	t, err := trend.Compute(q.ctx, q.rd, o)
	if err != nil {
		var oe interface{ Names(string) bool }
		if errors.As(err, &oe) {
			return badRequest{err}
		}
		return err
	}
	a.contentType = "application/json"
	return t.WriteJSON(&a.body)
}
