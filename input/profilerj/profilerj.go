package profilerj

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "profilerj"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Sniff reports whether head starts like a ProfilerJ snapshot: XML (after
// an optional byte-order mark, XML declaration and comments) whose root
// element is <doc>, or whose DOCTYPE declares the root element doc.
func Sniff(head []byte) bool {
	s := bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF"))
	for {
		s = bytes.TrimLeft(s, " \t\r\n")
		var end []byte
		switch {
		case bytes.HasPrefix(s, []byte("<?")):
			end = []byte("?>")
		case bytes.HasPrefix(s, []byte("<!--")):
			end = []byte("-->")
		case bytes.HasPrefix(s, []byte("<!DOCTYPE")):
			// The document type declaration names the root element
			// (XML 1.0, "Root Element Type"): that name decides, and
			// an internal subset after it, of any length and with any
			// '>' inside, need not be read (nor its entities expanded).
			return doctypeNames(s[len("<!DOCTYPE"):], "doc")
		case bytes.HasPrefix(s, []byte("<!")):
			end = []byte(">")
		default:
			if !bytes.HasPrefix(s, []byte("<doc")) {
				return false
			}
			if len(s) == 4 {
				return true
			}
			switch s[4] {
			case ' ', '\t', '\r', '\n', '>', '/':
				return true
			}
			return false
		}
		i := bytes.Index(s, end)
		if i < 0 {
			return false
		}
		s = s[i+len(end):]
	}
}

// doctypeNames reports whether the rest of a DOCTYPE declaration, after
// the keyword, starts with whitespace and then the name root.
func doctypeNames(rest []byte, root string) bool {
	name := bytes.TrimLeft(rest, " \t\r\n")
	if len(name) == len(rest) || !bytes.HasPrefix(name, []byte(root)) {
		return false
	}
	if len(name) == len(root) {
		return true // the head ends after the name
	}
	switch name[len(root)] {
	case ' ', '\t', '\r', '\n', '>', '[':
		return true
	}
	return false
}

// Read parses the snapshot in r, named name in messages and captions, and
// then writes one result set per section, in file order, each committed on
// its own, captioned "<base name of the file>: <section>" ("…: profile 2"
// for a second section of a kind).
//
// The whole file is parsed before the first result set begins: a
// malformed, cut-off or otherwise broken file writes nothing, and the error
// names the file and line. An error while writing rolls back the result set
// being written; those already committed stay.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	snap, err := parse(ctx, r, name, o.Warnf)
	defer snap.close()
	if err != nil {
		return nil, err
	}
	if len(snap.sections) == 0 && o.Warnf != nil {
		o.Warnf("%s: the snapshot has no profile, sampler, memory or coverage section", name)
	}
	base := filepath.Base(name)
	seen := map[string]int{}
	var results []resultset.Result
	for _, s := range snap.sections {
		seen[s.kind]++
		caption := base + ": " + s.kind
		if n := seen[s.kind]; n > 1 {
			caption += " " + strconv.Itoa(n)
		}
		res, err := resultset.Export(ctx, t, s.resultSet(caption))
		if err != nil {
			return results, fmt.Errorf("%s: writing the %s section: %w", name, s.kind, err)
		}
		results = append(results, res)
	}
	return results, nil
}
