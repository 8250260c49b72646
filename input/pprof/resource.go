package pprof

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

// counter returns the counter of a Function Trace result set measured
// with the sample type at index i: named after the type, described with
// type, unit and sampling period, with the frequency the unit implies.
func counter(p *profile.Profile, i int) *resultset.Counter {
	t := p.SampleType[i]
	desc := t.Type + " (" + t.Unit + ")"
	if p.PeriodType != nil && p.Period > 0 {
		desc += fmt.Sprintf(", sampled every %d %s of %s", p.Period, p.PeriodType.Unit, p.PeriodType.Type)
	}
	c := &resultset.Counter{Name: t.Type, Description: desc}
	switch strings.ToLower(t.Unit) {
	case "nanoseconds":
		c.Frequency = int64(1000000000)
	case "microseconds":
		c.Frequency = int64(1000000)
	case "milliseconds":
		c.Frequency = int64(1000)
	case "seconds":
		c.Frequency = int64(1)
	}
	return c
}

// resourceSet is a heap or allocation profile folded into its builder.
type resourceSet struct{ b *resource.Builder }

func (s resourceSet) export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	return s.b.Export(ctx, t, caption)
}

// buildResource maps a heap or allocation profile to a Resource builder:
// one class per allocation site (the function at the top of a sample's
// stack) with the allocated and in-use figures, and one object per sample
// with objects in use, with its creation call stack.
func buildResource(ctx context.Context, d *decoded) (*resource.Builder, error) {
	p := d.head
	allocObjects := typeIndex(p, "alloc_objects", "count")
	allocSpace := typeIndex(p, "alloc_space", "bytes")
	inuseObjects := typeIndex(p, "inuse_objects", "count")
	inuseSpace := typeIndex(p, "inuse_space", "bytes")
	var known resource.Figures
	for _, f := range []struct {
		idx int
		fig resource.Figures
	}{{allocObjects, resource.TotalCreated}, {allocSpace, resource.TotalSize},
		{inuseObjects, resource.LiveCount}, {inuseSpace, resource.LiveSize}} {
		if f.idx >= 0 {
			known |= f.fig
		}
	}
	val := func(s *profile.Sample, i int) int64 {
		if i < 0 {
			return 0
		}
		return s.Value[i]
	}
	st := newSymtab(p)
	b := resource.NewBuilder()
	routines := make([]*resource.Routine, len(st.fns))
	for i, f := range st.fns {
		routines[i] = b.AddRoutine(resource.RoutineInfo{
			Name: f.name, Class: f.class, Namespace: f.namespace, Module: f.module,
			SourceFile: f.file, SourceLine: f.start, CodeType: CodeType, SymbolMoniker: f.full,
		})
	}
	classes := make([]*resource.Class, len(st.fns))
	var buf []frame
	var objects int64
	err := d.eachChunk(ctx, func(p *profile.Profile, first int) error {
		for i, smp := range p.Sample {
			var err error
			if buf, err = st.stack(buf, smp, first+i+1); err != nil {
				return err
			}
			if len(buf) == 0 {
				continue // CheckValid lets a sample have no location; it has no site
			}
			site := buf[0].fn
			c := classes[site]
			if c == nil {
				f := st.fns[site]
				c = b.Class(f.full, f.module)
				c.SetSymbolMoniker(f.full)
				classes[site] = c
			}
			c.Add(resource.ClassStats{
				TotalCreated: val(smp, allocObjects), TotalSize: val(smp, allocSpace),
				LiveCount: val(smp, inuseObjects), LiveSize: val(smp, inuseSpace), Known: known,
			})
			live, size := val(smp, inuseObjects), val(smp, inuseSpace)
			if live == 0 && size == 0 {
				continue
			}
			objects++
			o := b.AddObject(resource.ObjectInfo{Class: c, Number: objects, Size: size})
			for _, f := range buf {
				o.AddCreationFrame(resource.Frame{Routine: routines[f.fn], SourceLine: f.line, HitCount: live})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}
