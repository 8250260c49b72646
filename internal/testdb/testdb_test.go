package testdb_test

import (
	"slices"
	"testing"

	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/testdb"
)

// The tests' list of dialects is every registered dialect: a new dialect
// is tested everywhere the others are, and none is left out by one test.
func TestDialectsAreEveryRegisteredDialect(t *testing.T) {
	got := slices.Sorted(slices.Values(testdb.Dialects()))
	if want := dialects.Names(); !slices.Equal(got, want) {
		t.Errorf("testdb.Dialects() = %v, the registered dialects are %v", got, want)
	}
	if got, want := testdb.Dialects("sqlserver"), testdb.Dialects("sqlserver"); !slices.Equal(got, want) {
		t.Errorf(`Dialects("sqlserver") = %v, want %v`, got, want)
	}
	if got, want := testdb.Servers("sqlserver"), []string{"postgres", "mysql"}; !slices.Equal(got, want) {
		t.Errorf(`Servers("sqlserver") = %v, want %v`, got, want)
	}
	// Each call gives a list of its own: a test that changes it changes no other's.
	testdb.Dialects()[0] = "x"
	if testdb.Dialects()[0] != "sqlite" {
		t.Error("Dialects shares its list between calls")
	}
}
