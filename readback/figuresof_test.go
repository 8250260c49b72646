package readback_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// TestFiguresOf checks that the figures and headlines read for many result
// sets at once are those read for each alone, on every dialect: the
// examples of every profiler exported twice, read by the grouped queries
// (each set must have its row there) and by FiguresOf and Headlines.
func TestFiguresOf(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.Fresh(t, dn)
			exportExamples(t, dsn)
			exportExamples(t, dsn)
			r, err := readback.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ls, err := r.Select(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != 8 {
				t.Fatalf("%d result sets, want 8", len(ls))
			}
			var ins []readback.Instance
			byProfiler := map[string][]readback.Instance{}
			for _, l := range ls {
				in := readback.InstanceOf(l)
				ins = append(ins, in)
				byProfiler[in.Profiler] = append(byProfiler[in.Profiler], in)
			}
			all, err := r.FiguresOf(ctx, ins)
			if err != nil {
				t.Fatal(err)
			}
			heads, err := r.Headlines(ctx, ls)
			if err != nil {
				t.Fatal(err)
			}
			// Through a cache: read, then taken from it by another reader.
			cache := readback.NewFigureCache(100)
			r.UseCache(cache)
			if _, err := r.FiguresOf(ctx, ins); err != nil {
				t.Fatal(err)
			}
			r2, err := readback.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			r2.UseCache(cache)
			cached, err := r2.FiguresOf(ctx, ins)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cached, all) {
				t.Errorf("figures through the cache differ from those read")
			}
			for p, pins := range byProfiler {
				grouped, err := r.GroupedFigures(ctx, p, pins)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				for _, in := range pins {
					one, err := r.Figures(ctx, in)
					if err != nil {
						t.Fatalf("%s %d: %v", p, in.InstID, err)
					}
					if !reflect.DeepEqual(grouped[in.InstID], one) {
						t.Errorf("%s %d: grouped figures %+v, want %+v", p, in.InstID, grouped[in.InstID], one)
					}
					if !reflect.DeepEqual(all[in.InstID], one) {
						t.Errorf("%s %d: FiguresOf %+v, want %+v", p, in.InstID, all[in.InstID], one)
					}
					s, err := r.Summarize(ctx, in.InstID, readback.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if heads[in.InstID] != s.Headline() || s.Headline() == "" {
						t.Errorf("%s %d: headline %q, show's %q", p, in.InstID, heads[in.InstID], s.Headline())
					}
				}
			}
		})
	}
}
