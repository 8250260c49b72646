// Package chromiumtest is a test kit: headless Chromium driven by chromedp
// for the tests that open profdb's pages in a real browser, the report's
// files (package report's tests) and the server's pages (cmd/profdb's
// TestServeInChromium).
//
// Browser starts Chromium with a fresh profile and without network
// services of its own (no background networking, component update or
// sync); without a Chromium binary on PATH the test skips, or fails under
// CI=true, which installs one (.ci/run). Tab opens a tab that listens for
// what a page must not do: a console error or warning, an uncaught
// exception, a browser log error or warning (a Content-Security-Policy
// violation, a failed load) and a request the test does not expect; Log
// collects them. Eval evaluates JavaScript in the page; NotBlank checks a
// screenshot shows something.
package chromiumtest
