package lightcoverage_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// fill adds the same routines and lines to b, lines of each routine out of
// order and repeated, with routines in several modules and files and one in
// none.
func fill(b *lightcoverage.Builder) {
	for i := range 300 {
		mod, file := "", ""
		if i%7 != 0 {
			mod = "mod" + itoa(i%5)
			file = mod + "/f" + itoa(i%11) + ".c"
		}
		r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "r" + itoa(i), Class: "C" + itoa(i%3), Namespace: "ns",
			Module: mod, SourceFile: file, SourceLine: int64(i * 10), CodeType: "x64", Count: int64(i % 4),
			LineLevel: i%2 == 0, Address: 1<<63 + uint64(i), Token: int64(i), UnitName: "u", SymbolMoniker: "s", AnalysisResult: "a"})
		for l := range i % 9 {
			r.AddLine(int64(i*10+8-l), int64((i+l)%3))
			if l%3 == 0 {
				r.AddLine(int64(i*10+8-l), 5)
			}
		}
	}
}

// TestSpoolSameTables builds the same result set with and without a spool
// (one that moves to a file after 256 bytes): every table is equal, row for
// row, and reading it twice gives the same rows.
func TestSpoolSameTables(t *testing.T) {
	mem := lightcoverage.NewBuilder()
	fill(mem)
	dir := t.TempDir()
	sp := lightcoverage.NewBuilder()
	sp.SetSpool(256, dir)
	fill(sp)
	want := export(t, mem)
	got := export(t, sp)
	if files, _ := os.ReadDir(dir); len(files) == 0 {
		t.Error("the spool made no file in its folder")
	}
	if !reflect.DeepEqual(got, want) {
		for name, tb := range want.Tables {
			if !reflect.DeepEqual(got.Tables[name], tb) {
				t.Errorf("table %s differs:\n got %v\nwant %v", name, got.Tables[name], tb)
			}
		}
		t.Fatalf("headers %+v / %+v", got.Header, want.Header)
	}
	if again := export(t, sp); !reflect.DeepEqual(again, want) {
		t.Error("second export of the spooled builder differs")
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("Close left %d files", len(files))
	}
}

// TestSpoolLateLine: with a spool, a line added to a routine after the next
// routine fails the export.
func TestSpoolLateLine(t *testing.T) {
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, t.TempDir())
	defer b.Close()
	r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "a"})
	b.AddRoutine(lightcoverage.RoutineInfo{Name: "b"})
	r.AddLine(3, 1)
	var m resultset.Memory
	_, err := b.Export(context.Background(), &m, "c")
	if err == nil || !strings.Contains(err.Error(), "after the next routine") {
		t.Fatalf("err %v", err)
	}
	if len(m.Sets) != 0 {
		t.Errorf("%d sets committed", len(m.Sets))
	}
}
