package report_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/chromiumtest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
)

// hostileFixture holds four result sets, one per profiler, whose names
// carry markup (</script><script>…, <img onerror=…>) and terminal control
// sequences; the injected scripts would set window.pwned.
const hostileFixture = "../testdata/hostile-names.json"

const hostileTitle = "profdb report: hostile names"

// hostileReport exports the hostile fixture into a fresh database of the
// dialect and returns the report of it.
func hostileReport(t *testing.T, dialect string) string {
	t.Helper()
	dsn := dbtest.Fresh(t, dialect)
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := os.Open(hostileFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := input.Read(ctx, "", f, hostileFixture, db, input.Options{}); err != nil || len(res) != 4 {
		t.Fatalf("export %s: %d result sets, %v", hostileFixture, len(res), err)
	}
	return render(t, dsn, report.Options{Title: hostileTitle})
}

var (
	metaCSP = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	// A start tag and its attributes, their values in double quotes as
	// html/template writes them; and one attribute of it.
	startTag = regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9]*((?:\s+[^\s=/>]+(?:="[^"]*")?)*)\s*/?>`)
	attr     = regexp.MustCompile(`\s([^\s=/>]+)(?:="[^"]*")?`)
)

// checkPolicy checks that the page's Content-Security-Policy lets run only
// the page's one <style> and one <script>, by their SHA-256, and that the
// page has no inline event handler or style attribute, which it would not
// obey anyway.
func checkPolicy(t *testing.T, page string) {
	t.Helper()
	m := metaCSP.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	csp := html.UnescapeString(m[1])
	for _, el := range []struct{ tag, directive string }{{"style", "style-src"}, {"script", "script-src"}} {
		if n := strings.Count(page, "<"+el.tag); n != 1 {
			t.Errorf("the page has %d <%s> elements, want its own one", n, el.tag)
		}
		text := between(page, "<"+el.tag+">", "</"+el.tag+">")
		if text == "" {
			t.Fatalf("no <%s> text", el.tag)
		}
		sum := sha256.Sum256([]byte(strings.TrimPrefix(text, "<"+el.tag+">")))
		want := el.directive + " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !strings.Contains(csp, want+";") {
			t.Errorf("the policy %q does not name the page's <%s> by its hash: want %q", csp, el.tag, want)
		}
	}
	if !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "unsafe-") {
		t.Errorf("the policy %q allows more than the page's own style and script", csp)
	}
	tags := 0
	for _, tag := range startTag.FindAllStringSubmatch(page, -1) {
		tags++
		for _, a := range attr.FindAllStringSubmatch(tag[1], -1) {
			if name := strings.ToLower(a[1]); strings.HasPrefix(name, "on") || name == "style" {
				t.Errorf("the page has an inline handler or style attribute: %.100s", tag[0])
			}
		}
	}
	if tags < 100 {
		t.Errorf("%d start tags found in the page: the check does not read it", tags)
	}
}

// TestHostileNamesReport reports the hostile fixture from every dialect:
// the names are escaped (html/template) and shown as the CLI prints them,
// and the policy names the page's script and style by hash.
func TestHostileNamesReport(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			page := hostileReport(t, dn)
			checkPolicy(t, page)
			checkPage(t, page)
			for _, name := range []string{"LoadConfig \x1b]0;pwned\a", "Sample.exe </script><script>window.pwned=1</script>"} {
				if w := ">" + html.EscapeString(termtext.Name(name)) + "<"; !strings.Contains(page, w) {
					t.Errorf("the page does not show %q as %s", name, w)
				}
			}
		})
	}
}

// TestHostileNamesInChromium opens the hostile fixture's report in
// headless Chromium: it loads with no console error and no CSP violation,
// its own script runs, and no injected script or handler does.
func TestHostileNamesInChromium(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	want := hostileStrings(t)
	shots := os.Getenv("PROFDB_SCREENSHOTS")
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hostile.html")
			if err := os.WriteFile(path, []byte(hostileReport(t, dn)), 0o644); err != nil {
				t.Fatal(err)
			}
			tctx, pl := openPage(t, ctx, path)
			checkNotPwned(t, tctx)
			if n := chromiumtest.Eval[int](t, tctx, `document.scripts.length + document.images.length`); n != 1 {
				t.Errorf("%d scripts and images in the page, want its own script alone", n)
			}
			handlers := chromiumtest.Eval[[]string](t, tctx, `Array.from(document.querySelectorAll("*")).flatMap(e =>
				Array.from(e.attributes).filter(a => a.name.startsWith("on")).map(a => e.tagName + " " + a.name))`)
			if len(handlers) > 0 {
				t.Errorf("elements with event handlers: %v", handlers)
			}
			// The page's script ran: it shows a view, and switches views.
			chromiumtest.Eval[string](t, tctx, `location.hash = "#inst-2"`)
			waitView(t, tctx, "inst-2")
			// The names reach the page exactly (data attributes), but for
			// the CR that HTML's parser makes LF; and are shown escaped.
			cr := map[string]bool{}
			for s := range want {
				cr[strings.ReplaceAll(s, "\r", "\n")] = true
			}
			routines := chromiumtest.Eval[[]string](t, tctx, `Array.from(document.querySelectorAll("#t-2-own tbody tr")).map(r => r.dataset.routine)`)
			for _, r := range routines {
				if !cr[r] {
					t.Errorf("routine %q in the page is not the fixture's", r)
				}
			}
			if len(routines) != 5 {
				t.Errorf("%d routines in the own time table, want 5", len(routines))
			}
			text := chromiumtest.Eval[string](t, tctx, `document.body.innerText`)
			for i, r := range text {
				if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r == '\u202e' || r == utf8.RuneError {
					t.Errorf("the page shows U+%04X at %d raw", r, i)
					break
				}
			}
			if w := termtext.Name("LoadConfig \x1b]0;pwned\a"); !strings.Contains(text, w) {
				t.Errorf("the page does not show %s", w)
			}
			if shots != "" {
				shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, "hostile-"+dn+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range pl.Take() {
				t.Error(p)
			}
		})
	}
}

// TestPolicyBlocksInjectedScript proves the policy is what stops markup
// that escaping missed: a script, an event handler and a style attribute
// written into the page raw are refused (and reported), while the page's
// own script still runs.
func TestPolicyBlocksInjectedScript(t *testing.T) {
	ctx := chromiumtest.Browser(t)
	page := hostileReport(t, "sqlite")
	injected := `<script>window.pwned = "script"</script><img src="data:," onerror="window.pwned = 'handler'">` +
		`<p id="styled" style="color: rgb(255, 0, 0)" onclick="window.pwned = 'click'">styled</p>`
	page = strings.Replace(page, "</main>", injected+"</main>", 1)
	path := filepath.Join(t.TempDir(), "tampered.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	tctx, pl := openPage(t, ctx, path)
	chromiumtest.Eval[any](t, tctx, `document.getElementById("styled").click()`)
	// The image fails (its request broken, its error event fired).
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.querySelector('img[src="data:,"]').complete`)); err != nil {
		t.Fatalf("the injected image did not fail: %v", err)
	}
	checkNotPwned(t, tctx)
	if c := chromiumtest.Eval[string](t, tctx, `getComputedStyle(document.getElementById("styled")).color`); c == "rgb(255, 0, 0)" {
		t.Error("the injected style attribute was obeyed")
	}
	if n := chromiumtest.Eval[int](t, tctx, `document.querySelectorAll("section.view.active").length`); n != 1 {
		t.Errorf("%d views shown: the page's own script did not run", n)
	}
	// The refusals reach the log as events of their own: wait for three.
	refused := 0
	for deadline := time.Now().Add(30 * time.Second); refused < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, p := range pl.Take() {
			if strings.Contains(p, "Content Security Policy") {
				refused++
			}
		}
	}
	if refused < 3 {
		t.Errorf("%d CSP violations reported, want the script, the handlers and the style refused", refused)
	}
}

// hostileStrings returns every string of the hostile fixture.
func hostileStrings(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(hostileFixture)
	if err != nil {
		t.Fatal(err)
	}
	var sets []struct{ Tables map[string][]map[string]any }
	if err := json.Unmarshal(b, &sets); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, s := range sets {
		for _, rows := range s.Tables {
			for _, r := range rows {
				for _, v := range r {
					if s, ok := v.(string); ok {
						out[s] = true
					}
				}
			}
		}
	}
	return out
}

// openPage opens a file in a new tab, listening for what the page must
// not do (chromiumtest.Log), and waits until it is loaded.
func openPage(t *testing.T, ctx context.Context, path string) (context.Context, *chromiumtest.Log) {
	t.Helper()
	tctx, pl := openTab(t, ctx, path)
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	return tctx, pl
}

// checkNotPwned fails when an injected script ran or changed the title.
func checkNotPwned(t *testing.T, ctx context.Context) {
	t.Helper()
	if p := chromiumtest.Eval[string](t, ctx, `typeof window.pwned === "undefined" ? "" : String(window.pwned)`); p != "" {
		t.Errorf("an injected script ran: window.pwned = %q", p)
	}
	if title := chromiumtest.Eval[string](t, ctx, `document.title`); title != hostileTitle {
		t.Errorf("the title is %q, want %q", title, hostileTitle)
	}
}
