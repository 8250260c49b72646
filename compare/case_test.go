package compare_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// Names that differ only in case are different items, on SQL Server too,
// whose default collations compare text ignoring case.
func TestNamesMatchExactly(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.Fresh(t, dn)
			e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"Foo", "foo"} {
				rb := resource.NewBuilder()
				rb.Class(n, "m").Add(resource.ClassStats{LiveCount: 1})
				if _, err := rb.Export(ctx, e, n); err != nil {
					t.Fatal(err)
				}
				lb := lightcoverage.NewBuilder()
				lb.AddRoutine(lightcoverage.RoutineInfo{Name: n, SourceFile: n + ".go"}).AddLine(1, 1)
				if _, err := lb.Export(ctx, e, n); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := readback.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cd, err := compare.Classes(ctx, r, 1, 3, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if cd.Classes.Total != 2 || cd.OnlyA != 1 || cd.OnlyB != 1 {
				t.Errorf("classes Foo and foo: %d classes, %d only in A, %d only in B; want 2, 1, 1", cd.Classes.Total, cd.OnlyA, cd.OnlyB)
			}
			cov, err := compare.Coverage(ctx, r, 2, 4, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if cov.Files.Total != 0 || cov.FilesOnlyA.Total != 1 || cov.FilesOnlyB.Total != 1 || cov.RoutinesOnlyA.Total != 1 ||
				cov.LinesOnlyA != 1 || cov.LinesOnlyB != 1 {
				t.Errorf("files Foo.go and foo.go: %+v", cov)
			}
		})
	}
}
