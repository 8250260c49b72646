package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/profdb/profdb/internal/termtext"
)

// progressFlags adds --quiet and --progress to a long-running command.
func progressFlags(cmd *cobra.Command, quiet *bool, mode *string) {
	f := cmd.Flags()
	f.BoolVarP(quiet, "quiet", "q", false, "no progress (--progress=off)")
	f.StringVar(mode, "progress", "auto",
		"progress on standard error: auto (a bar on a terminal, else nothing), bar, plain (a line every 10 seconds, for CI logs) or off")
}

// plainInterval is how often --progress=plain prints a line.
const plainInterval = 10 * time.Second

// progress shows how far a long command is: a bar with %, rows per second
// and the time left on a terminal, or a plain line now and then. Its unit
// is what the total counts: input bytes (export) or rows (copy).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      *progressbar.ProgressBar // bar mode
	plain    bool                     // plain mode
	bytes    bool                     // the unit is input bytes, not rows
	total    int64                    // in the unit; -1 when unknown
	pos      int64                    // in the unit
	base     int64                    // rows of the result sets already finished
	rows     int64                    // rows written, base included
	phase    string
	start    time.Time
	last     time.Time // of the last plain line
	interval time.Duration
	now      func() time.Time
}

// newProgress returns the progress of a command printing to stderr: mode
// is the --progress value; quiet (--quiet) turns it off. A bar needs a
// terminal. total counts input bytes when bytes is set, else rows; -1 when
// unknown.
func newProgress(stderr io.Writer, mode string, quiet bool, bytes bool, total int64) (*progress, error) {
	p := &progress{w: stderr, bytes: bytes, total: total, phase: "writing",
		interval: plainInterval, now: time.Now}
	p.start = p.now()
	p.last = p.start
	if quiet {
		mode = "off"
	}
	switch mode {
	case "off":
	case "plain":
		p.plain = true
	case "auto", "bar":
		if !showsProgress(stderr, mode, false) {
			return p, nil
		}
		opts := []progressbar.Option{
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(p.phase),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100 * time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionFullWidth(),
		}
		if bytes {
			opts = append(opts, progressbar.OptionShowBytes(true))
		} else {
			opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString("rows"))
		}
		p.bar = progressbar.NewOptions64(total, opts...)
	default:
		return nil, usageErrorf("--progress %q: want auto, bar, plain or off", mode)
	}
	return p, nil
}

// showsProgress reports whether a progress of these settings shows
// anything: plain lines, or a bar on a terminal. A command that would
// count rows only for the total skips the count when it does not.
func showsProgress(stderr io.Writer, mode string, quiet bool) bool {
	switch {
	case quiet:
		return false
	case mode == "plain":
		return true
	case mode == "auto" || mode == "bar":
		f, ok := stderr.(*os.File)
		return ok && term.IsTerminal(int(f.Fd()))
	}
	return false
}

// set records the rows written so far in the current result set.
func (p *progress) set(rows int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows = p.base + rows
	if !p.bytes {
		p.pos = p.rows
	}
	p.update()
}

// read records n more input bytes read.
func (p *progress) read(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes {
		p.pos += int64(n)
		p.update()
	}
}

// setPhase records the phase writing a result set is in (after its rows
// are loaded: building indexes, checking, committing).
func (p *progress) setPhase(phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase = phase
	if p.plain {
		p.line()
		return
	}
	p.update()
}

// done records a finished result set of rows rows.
func (p *progress) done(rows int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.base += rows
	p.rows = p.base
	if !p.bytes {
		p.pos = p.rows
	}
	p.phase = "writing"
}

// update shows the state: the bar, or a plain line when one is due.
func (p *progress) update() {
	switch {
	case p.bar != nil:
		desc := p.phase
		if p.bytes {
			desc = fmt.Sprintf("%s: %s rows, %s rows/s", p.phase, humanize.Comma(p.rows), humanize.Comma(int64(p.rate())))
		}
		p.bar.Describe(desc)
		p.bar.Set64(p.pos)
	case p.plain && p.now().Sub(p.last) >= p.interval:
		p.line()
	}
}

// rate is the rows written per second since the start.
func (p *progress) rate() float64 {
	secs := p.now().Sub(p.start).Seconds()
	if secs <= 0 {
		return 0
	}
	return float64(p.rows) / secs
}

// line prints the plain progress line.
func (p *progress) line() {
	p.last = p.now()
	msg := fmt.Sprintf("profdb: progress: %s, %s rows, %s rows/s",
		p.phase, humanize.Comma(p.rows), humanize.Comma(int64(p.rate())))
	if p.total > 0 {
		elapsed := p.now().Sub(p.start)
		msg += fmt.Sprintf(", %d%%", p.pos*100/p.total)
		if p.bytes {
			msg += fmt.Sprintf(" of %s read", humanize.Bytes(uint64(p.total)))
		} else {
			msg += fmt.Sprintf(" of %s rows", humanize.Comma(p.total))
		}
		if p.pos > 0 && p.pos < p.total {
			left := time.Duration(float64(elapsed) * float64(p.total-p.pos) / float64(p.pos))
			msg += ", about " + left.Round(time.Second).String() + " left"
		}
	}
	fmt.Fprintln(p.w, msg)
}

// clear removes the bar from the terminal before other output.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
}

// log prints a message to w, clearing the bar first. The message is one
// line, its control characters escaped (termtext.Line): the formats are
// profdb's own, the arguments may be names from data.
func (p *progress) log(w io.Writer, format string, args ...any) {
	p.clear()
	fmt.Fprintf(w, "profdb: %s\n", termtext.Line(fmt.Sprintf(format, args...)))
}

// finish ends the bar.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// countingReader reports the bytes read through it to a progress.
type countingReader struct {
	r io.Reader
	p *progress
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.read(n)
	return n, err
}
