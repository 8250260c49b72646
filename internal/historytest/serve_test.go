package historytest_test

// The serve benchmark (task bench:serve): profdb serve on a history of
// coverage result sets with function traces beside them, the history
// benchmark's database, loaded by concurrent clients. Opt-in:
//
//	go test -run '^$' -bench Serve -benchtime 1x -timeout 0 ./internal/historytest/ \
//	    -args -servesizes 500,5000 -beside 200 [-dbs sqlite,postgres] [-repeat 3] [-clients 32] [-requests 640]
//
// Each history is built as BenchmarkHistory builds it (build), then served
// by the profdb binary (profdb serve, a child process of its own), and each
// route is asked -requests times by -clients clients at once, -repeat
// times: the median and the 99th percentile of the latencies of each run,
// the median of the runs printed, and the server's peak RSS
// (/proc/PID/status VmHWM, Linux only) after each route's load. Nothing
// here is an assertion: the figures are printed, and docs/performance.md
// says what they were.

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/internal/dbtest"
)

var (
	serveSizes    = flag.String("servesizes", "", "BenchmarkServe: coverage result sets of the histories served, comma-separated (e.g. 500,5000); unset, the benchmark skips")
	serveClients  = flag.Int("clients", 32, "BenchmarkServe: clients asking at once")
	serveRequests = flag.Int("requests", 640, "BenchmarkServe: requests of each route in one run, shared by the clients")
	serveOn       = flag.String("serveon", "", "BenchmarkServe: serve these histories instead of building them, as SIZE=DSN,... (histories this benchmark built and kept with PROFDB_TEST_KEEP=1; one database in -dbs)")
)

// serveRoutes are the routes measured, as issue 41 names them.
var serveRoutes = []string{"/", "/runs/latest", "/compare/latest~1/latest", "/trend?branch=main&last=100"}

// serveSample is a route's figures on one history: the median of the
// runs' medians and of their 99th percentiles, in seconds, the server's
// peak RSS after its load in MiB, and the requests that did not answer 200.
type serveSample struct {
	median, p99, rss float64
	failed           int
}

// BenchmarkServe builds (or takes, -serveon) histories of -servesizes
// coverage sets with -beside function traces before them in each of -dbs,
// serves each with profdb serve and loads each route; it prints a line per
// route and run, then a table per database with the ratio of the largest
// history's figures to the smallest's.
func BenchmarkServe(b *testing.B) {
	sizes, err := parseSizes(*serveSizes)
	if err != nil {
		b.Fatalf("-servesizes: %v", err)
	}
	if len(sizes) == 0 {
		b.Skip("set -servesizes (e.g. -args -servesizes 500,5000 -beside 200) to run it")
	}
	if *serveClients < 1 || *serveRequests < *serveClients || *histRepeat < 1 {
		b.Fatalf("-clients %d, -requests %d, -repeat %d: want a client or more, as many requests at least, a run or more", *serveClients, *serveRequests, *histRepeat)
	}
	reuse, err := parseServeOn(*serveOn)
	if err != nil {
		b.Fatalf("-serveon: %v", err)
	}
	ctx := b.Context()
	cache := cacheDir()
	var k *kind
	if len(reuse) < len(sizes) {
		inputs, srcRoot, err := coverageInputs(ctx, cache)
		if err != nil {
			b.Fatal(err)
		}
		k = &kind{name: "coverage", profiler: "light-coverage", inputs: inputs, export: []string{"--source-root", srcRoot}, sizes: sizes}
		if *histBeside > 0 {
			traces, err := traceInputs(ctx, cache)
			if err != nil {
				b.Fatal(err)
			}
			k.before, k.beside = &kind{name: "trace", profiler: "function-trace", inputs: traces}, *histBeside
		}
	}
	bin, err := clitest.Build(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, dbName := range strings.Split(*histDBs, ",") {
		dbName = strings.TrimSpace(dbName)
		if len(reuse) == 0 && dbName != "sqlite" && os.Getenv(dbtest.EnvVar(dbName)) == "" {
			fmt.Printf("%s: %s is not set, skipped\n", dbName, dbtest.EnvVar(dbName))
			continue
		}
		results := map[string]map[int]serveSample{} // [route][size]
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/%d", dbName, n), func(b *testing.B) {
				dsn, ok := reuse[n]
				if !ok {
					h := &history{dsn: dbtest.Fresh(b, dbName), tmp: b.TempDir(), k: k, n: n}
					if dbName == "sqlite" && os.Getenv("PROFDB_TEST_KEEP") != "" {
						h.dsn = "sqlite:" + filepath.Join(os.TempDir(), fmt.Sprintf("profdb-serve-%d-%d.db", n, time.Now().UnixNano()))
						fmt.Printf("keeping %s\n", h.dsn)
					}
					build(b, bin, dbName, h, false)
					dsn = h.dsn
				}
				for b.Loop() {
					for route, s := range loadServer(b, bin, dbName, dsn, n) {
						if results[route] == nil {
							results[route] = map[int]serveSample{}
						}
						results[route][n] = s
						b.ReportMetric(s.median*1e3, strings.Trim(route, "/?")+"-ms")
					}
				}
			})
		}
		printServeTable(dbName, sizes, results)
	}
}

// parseServeOn reads -serveon: SIZE=DSN, comma-separated.
func parseServeOn(s string) (map[int]string, error) {
	out := map[int]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		size, dsn, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(size)
		if !ok || err != nil || dsn == "" {
			return nil, fmt.Errorf("%q is not SIZE=DSN", part)
		}
		out[n] = dsn
	}
	return out, nil
}

// loadServer serves dsn with profdb serve and loads each route -repeat
// times; it returns each route's figures.
func loadServer(b *testing.B, bin, dbName, dsn string, n int) map[string]serveSample {
	srv := startServe(b, bin, dsn)
	defer srv.stop(b)
	firstAnswers(b, srv, dbName, n)
	out := map[string]serveSample{}
	for _, route := range serveRoutes {
		// A warm-up round: the server's connections opened, the
		// database's pages read once.
		if _, err := loadRound(b.Context(), srv.base+route, *serveClients, *serveClients); err != nil {
			b.Fatalf("%s: %v", route, err)
		}
		var medians, p99s []float64
		failed := 0
		for r := range *histRepeat {
			got, err := loadRound(b.Context(), srv.base+route, *serveClients, *serveRequests)
			if err != nil {
				b.Fatalf("%s: %v", route, err)
			}
			lat := got.latencies
			slices.Sort(lat)
			med, p99 := quantile(lat, 0.5), quantile(lat, 0.99)
			medians, p99s = append(medians, med), append(p99s, p99)
			failed += got.failed
			fmt.Printf("%-9s %5d sets: %-30s run %d: median %6.1f ms, p99 %6.1f ms, %4.0f requests/s, %d not 200%s\n",
				dbName, n, route, r+1, med*1e3, p99*1e3, float64(len(lat))/got.wall.Seconds(), got.failed, got.firstFailure)
		}
		s := serveSample{median: median(medians), p99: median(p99s), rss: srv.peakRSS(), failed: failed}
		fmt.Printf("%-9s %5d sets: %-30s median %6.1f ms, p99 %6.1f ms (medians of %d runs), server peak RSS %.0f MiB\n",
			dbName, n, route, s.median*1e3, s.p99*1e3, *histRepeat, s.rss)
		out[route] = s
	}
	return out
}

// firstAnswers prints how long the first answer of each route takes, one
// request at a time, before anything is kept (the server keeps figures
// and pages from request to request; serve's doc.go), then a second one;
// and so the runs page at page 10 and 100 (by ?before=, keyset paging),
// where the history has them.
func firstAnswers(b *testing.B, srv *served, dbName string, n int) {
	c := &http.Client{Timeout: time.Minute}
	var newest []struct {
		InstID int64 `json:"inst_id"`
	}
	routes := slices.Clone(serveRoutes)
	if err := getJSON(b.Context(), c, srv.base+"/api/v1/runs?last=1", &newest); err != nil || len(newest) != 1 {
		b.Fatalf("the newest run: %v (%d)", err, len(newest))
	}
	for _, page := range []int64{10, 100} {
		// Page p lists the runs below the first of page p-1's.
		if before := newest[0].InstID + 1 - 50*(page-1); before > 50 {
			routes = append(routes, "/?before="+strconv.FormatInt(before, 10))
		}
	}
	for _, route := range routes {
		var took [2]float64
		for i := range took {
			t0 := time.Now()
			code, err := get(b.Context(), c, srv.base+route)
			if err != nil || code != http.StatusOK {
				b.Fatalf("%s: %d %v", route, code, err)
			}
			took[i] = time.Since(t0).Seconds()
		}
		fmt.Printf("%-9s %5d sets: %-30s one client: first answer %6.1f ms, second %6.1f ms\n", dbName, n, route, took[0]*1e3, took[1]*1e3)
	}
}

// getJSON asks u and decodes its JSON answer into v.
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// served is a profdb serve process.
type served struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:PORT
	done chan error
}

// startServe starts profdb serve on dsn at a free loopback port and waits
// until it answers /healthz.
func startServe(b *testing.B, bin, dsn string) *served {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--db", dsn, "--addr", addr)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &served{cmd: cmd, base: "http://" + addr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-s.done:
			b.Fatalf("profdb serve ended: %v\n%s", err, scrub([]string{dsn}, stderr.String()))
		default:
		}
		if resp, err := http.Get(s.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Since(start) > 30*time.Second {
			cmd.Process.Kill()
			b.Fatalf("profdb serve did not answer /healthz in 30 s\n%s", scrub([]string{dsn}, stderr.String()))
		}
	}
}

// peakRSS is the server's peak RSS so far in MiB (VmHWM); 0 where the
// system does not say.
func (s *served) peakRSS() float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

// stop ends the server with SIGINT (as a person would) and waits for it.
func (s *served) stop(b *testing.B) {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		b.Errorf("profdb serve did not stop within 15 s of SIGINT")
	}
}

// round is what one load round measured.
type round struct {
	latencies    []float64 // seconds, of every request
	failed       int       // answers other than 200
	firstFailure string
	wall         time.Duration
}

// loadRound asks u total times, from clients goroutines at once, each
// asking again as soon as it has read an answer, and returns every
// request's latency (to the end of the body).
func loadRound(ctx context.Context, u string, clients, total int) (round, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	var mu sync.Mutex
	var r round
	var firstErr error
	next := make(chan struct{}, total)
	for range total {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range next {
				t0 := time.Now()
				code, err := get(ctx, c, u)
				d := time.Since(t0).Seconds()
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				case code != http.StatusOK:
					if r.failed == 0 {
						r.firstFailure = fmt.Sprintf(" (first: %d)", code)
					}
					r.failed++
					r.latencies = append(r.latencies, d)
				default:
					r.latencies = append(r.latencies, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.wall = time.Since(start)
	return r, firstErr
}

// get asks u and reads the whole answer.
func get(ctx context.Context, c *http.Client, u string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// quantile is the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// printServeTable prints route × size: median and p99 latency, peak RSS,
// and the ratio of the largest history's figures to the smallest's.
func printServeTable(dbName string, sizes []int, results map[string]map[int]serveSample) {
	if len(results) == 0 {
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s, profdb serve, %d clients at once: median / p99 latency, peak RSS (medians of %d runs)\n| route |", dbName, *serveClients, *histRepeat)
	for _, n := range sizes {
		fmt.Fprintf(&sb, " %d sets |", n)
	}
	fmt.Fprintf(&sb, " ratio (median, p99) |\n| --- |%s --- |\n", strings.Repeat(" ---: |", len(sizes)))
	for _, route := range serveRoutes {
		r := results[route]
		fmt.Fprintf(&sb, "| `%s` |", route)
		var got []int
		for _, n := range sizes {
			s, ok := r[n]
			if !ok {
				fmt.Fprintf(&sb, " — |")
				continue
			}
			bad := ""
			if s.failed > 0 {
				bad = fmt.Sprintf(", %d not 200", s.failed)
			}
			fmt.Fprintf(&sb, " %.0f / %.0f ms, %.0f MiB%s |", s.median*1e3, s.p99*1e3, s.rss, bad)
			got = append(got, n)
		}
		if len(got) >= 2 {
			lo, hi := r[got[0]], r[got[len(got)-1]]
			fmt.Fprintf(&sb, " ×%.2f, ×%.2f |\n", hi.median/lo.median, hi.p99/lo.p99)
		} else {
			fmt.Fprintf(&sb, " — |\n")
		}
	}
	fmt.Print(sb.String())
}
