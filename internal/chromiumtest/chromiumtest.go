package chromiumtest

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/internal/dbtest"
)

// Path returns the path of a Chromium binary. Without one the test skips,
// or fails under CI, which installs Debian's chromium (.ci/run).
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if dbtest.InCI() {
		t.Fatal("no chromium on PATH: CI must install it (apt-get install chromium; see .ci/run)")
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run the browser tests")
	return ""
}

// Browser starts a headless Chromium with a fresh profile, 1280×1000
// pixels, and returns a context for chromedp; the browser ends with the
// test.
func Browser(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// Tab opens a new tab of the browser ctx, with 60 s (or timeout, when
// longer) for all it does there, listening for what its pages must not do
// (Log) with the network, log and runtime events on; a request whose URL
// allow does not accept is one of them. The tab closes when the test ends.
func Tab(t testing.TB, ctx context.Context, timeout time.Duration, allow func(url string) bool) (context.Context, *Log) {
	t.Helper()
	tctx, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	tctx, cancel = context.WithTimeout(tctx, max(timeout, 60*time.Second))
	t.Cleanup(cancel)
	l := &Log{allow: allow}
	if err := chromedp.Do(tctx); err != nil { // open the tab
		t.Fatal(err)
	}
	if err := l.listen(tctx); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return tctx, l
}

// Log collects what a page must not do: console errors and warnings,
// uncaught exceptions, browser log errors and warnings (a CSP violation, a
// failed load) and requests its tab does not allow.
type Log struct {
	mu       sync.Mutex
	allow    func(url string) bool
	problems []string
}

func (l *Log) add(format string, args ...any) {
	l.mu.Lock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// Take returns the problems collected since the last Take.
func (l *Log) Take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.problems
	l.problems = nil
	return p
}

func (l *Log) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				l.add("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			l.add("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				l.add("log %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; l.allow == nil || !l.allow(u) {
				l.add("network request: %s", u)
			}
		}
	})
}

// Eval evaluates a JavaScript expression in the page and returns its
// value; an error fails the test.
func Eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// NotBlank fails unless a screenshot has some variety: at least a few
// percent of its pixels differ from the most common colour, in several
// colours.
func NotBlank(t testing.TB, view string, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("view %s: screenshot: %v", view, err)
	}
	counts := map[[4]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}]++
		}
	}
	total, most := 0, 0
	for _, n := range counts {
		total += n
		most = max(most, n)
	}
	if other := float64(total-most) / float64(total); len(counts) < 8 || other < 0.03 {
		t.Errorf("view %s: the screenshot looks blank (%d colours, %.1f%% not background)", view, len(counts), other*100)
	}
}
