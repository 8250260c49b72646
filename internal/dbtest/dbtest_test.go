package dbtest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
)

// The tests' list of dialects is every registered dialect: a new dialect
// is tested everywhere the others are, and none is left out by one test.
func TestDialectsAreEveryRegisteredDialect(t *testing.T) {
	got := slices.Sorted(slices.Values(dbtest.Dialects()))
	if want := dialects.Names(); !slices.Equal(got, want) {
		t.Errorf("dbtest.Dialects() = %v, the registered dialects are %v", got, want)
	}
	if got, want := dbtest.Dialects("sqlserver"), dbtest.Dialects("sqlserver"); !slices.Equal(got, want) {
		t.Errorf(`Dialects("sqlserver") = %v, want %v`, got, want)
	}
	if got, want := dbtest.Servers("sqlserver"), []string{"postgres", "mysql"}; !slices.Equal(got, want) {
		t.Errorf(`Servers("sqlserver") = %v, want %v`, got, want)
	}
	// Each call gives a list of its own: a test that changes it changes no other's.
	dbtest.Dialects()[0] = "x"
	if dbtest.Dialects()[0] != "sqlite" {
		t.Error("Dialects shares its list between calls")
	}
}

// TestFreshDatabasesAtOnce: tests that make and drop namespaces at the
// same time all get theirs and leave none behind, Babelfish included,
// where CREATE and DROP DATABASE at once collide in PostgreSQL's catalogue.
func TestFreshDatabasesAtOnce(t *testing.T) {
	for _, dn := range dbtest.Servers() {
		t.Run(dn, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dsn := dbtest.DSN(t, dn)
			db := dbtest.Open(t, dsn)
			prefix := fmt.Sprintf("profdb_t_atonce_%d", time.Now().UnixNano()%1e9)
			var wg sync.WaitGroup
			for g := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 3 {
						name := fmt.Sprintf("%s_%d_%d", prefix, g, i)
						create, drop, err := dbtest.Namespace(ctx, db, dsn, name)
						if err != nil {
							t.Error(err)
							return
						}
						for _, st := range append(create, drop...) {
							if err := dbtest.ExecCatalogue(ctx, db, st); err != nil {
								t.Errorf("%s: %v", st, err)
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
