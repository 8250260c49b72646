package profilerj_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/profilerj"
)

// FuzzRead: no input panics or hangs the reader; an input that fails writes
// nothing; one that succeeds writes one result set per section.
func FuzzRead(f *testing.F) {
	for _, pattern := range []string{"../../examples/profilerj/*.xml", "testdata/*.xml"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed snapshots %s: %v", pattern, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range []string{
		"",
		"<doc/>",
		"<doc><profile><thread><profile name=\"a.B.c()\" count=\"1\"><profile/></profile></thread></profile></doc>",
		"<doc><sampler><thread><profile hits=\"3\" elapsed=\"4\" cumulated=\"5\"/></thread></sampler></doc>",
		"<doc><memory><thread><memory class=\"a.B\" count=\"1\" max=\"2\"/></thread></memory></doc>",
		"<doc><coverage><class name=\"a.B\" source=\"B.java\"><method name=\"m\" firstline=\"3\" count=\"1\"><footprints>1 -1 0</footprints></method></class></coverage></doc>",
		"<doc><coverage><class class=\"B\"><method><footprints>1<x/>2</footprints></method></class></coverage></doc>",
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><doc><coverage><class name=\"\xe9\"/></coverage></doc>",
		"<doc><profile><thread><profile><profile><profile></profile></thread></profile></doc>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var rec recorder
		res, err := profilerj.Read(ctx, strings.NewReader(string(data)), "fuzz.xml", &rec, input.Options{})
		if ctx.Err() != nil {
			t.Fatalf("took longer than 10s on %d bytes", len(data))
		}
		if err != nil {
			if rec.begun != 0 || len(res) != 0 {
				t.Fatalf("error %v after %d result sets begun", err, rec.begun)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.xml:") {
				t.Fatalf("error without FILE:LINE: %v", err)
			}
			return
		}
		if len(res) != rec.begun || len(rec.committed) != rec.begun || rec.rolledBack != 0 {
			t.Fatalf("%d results, %d begun, %d committed, %d rolled back", len(res), rec.begun, len(rec.committed), rec.rolledBack)
		}
	})
}
