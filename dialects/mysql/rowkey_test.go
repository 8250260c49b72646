package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
)

func TestInvisibleColumns(t *testing.T) {
	for v, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true, "10.3.0-MariaDB": true, "10.2.44-MariaDB-log": false,
		"11.4.2-MariaDB": true, "8.0.23": true, "8.0.22": false, "8.4.3": true, "5.7.44-log": false,
		"9.1.0": true, "": false, "garbage": false,
	} {
		if got := InvisibleColumns(v); got != want {
			t.Errorf("InvisibleColumns(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestRowKey: profiler tables made with CreateTableWithRowKey carry
// PROFDB_ROW_ID as their primary key, which Columns reports as filled by
// the server (so the exporter leaves it alone); the shared tables keep
// their own keys. The shared server demands no key.
func TestRowKey(t *testing.T) {
	d := Dialect{}
	db, _ := open(t)
	ctx := context.Background()
	demanded, invisible, err := d.RowKeyDemanded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if demanded || invisible != InvisibleColumns(version) {
		t.Errorf("RowKeyDemanded = %v, %v on %s", demanded, invisible, version)
	}
	for _, inv := range []bool{true, false} {
		for _, tab := range dialecttest.AllTables(t) {
			stmts := d.CreateTableWithRowKey("", tab, inv)
			if tab.Key != "" {
				if strings.Join(stmts, ";") != strings.Join(d.CreateTableIn("", tab), ";") {
					t.Errorf("%s: a table with a key of its own changed: %q", tab.Name, stmts)
				}
				continue
			}
			if got := strings.Contains(stmts[0], "INVISIBLE"); got != inv {
				t.Errorf("%s: INVISIBLE %v, want %v: %s", tab.Name, got, inv, stmts[0])
			}
			if inv {
				for _, st := range stmts {
					if _, err := db.ExecContext(ctx, st); err != nil {
						t.Fatalf("%s: %v", st, err)
					}
				}
				cols, err := d.Columns(ctx, db, "", tab.Name)
				if err != nil {
					t.Fatal(err)
				}
				last := cols[len(cols)-1]
				if len(cols) != len(tab.Columns)+1 || last.Name != dialects.RowKeyColumn || last.Nullable || !last.HasDefault {
					t.Errorf("%s: columns %+v", tab.Name, cols)
				}
			}
		}
	}
}
