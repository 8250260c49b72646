package plantest_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/plantest"
)

// TestRecorder runs statements through a handle of Open on SQLite, as
// queries, executions and a prepared statement, inside and outside a
// transaction: each is recorded in order with its arguments. A handle that
// explains first holds the plan of each SELECT, WITH, INSERT, UPDATE and
// DELETE, and of nothing else, and runs each statement once; on one that
// only records, Explain reads the same plan.
func TestRecorder(t *testing.T) {
	for _, first := range []bool{false, true} {
		t.Run(map[bool]string{false: "record", true: "explain first"}[first], func(t *testing.T) {
			ctx := context.Background()
			db, d, rec := plantest.Open(t, dbtest.Fresh(t, "sqlite"), plantest.Options{ExplainFirst: first})
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			const (
				create = `CREATE TABLE "T" ("INST_ID" INTEGER NOT NULL, "ID" INTEGER NOT NULL)`
				index  = `CREATE INDEX "IX_T_ID" ON "T" ("INST_ID", "ID")`
				insert = `INSERT INTO "T" ("INST_ID", "ID") VALUES (?, ?)`
				read   = `SELECT t."ID" FROM "T" t WHERE t."INST_ID" = ?`
			)
			exec(create)
			exec(index)
			exec(insert, int64(7), int64(1))
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			ps, err := tx.PrepareContext(ctx, insert)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range [][2]int64{{7, 2}, {8, 1}} {
				if _, err := ps.ExecContext(ctx, id[0], id[1]); err != nil {
					t.Fatal(err)
				}
			}
			ps.Close()
			var ids []int64
			rows, err := tx.QueryContext(ctx, read, int64(7))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if !slices.Equal(ids, []int64{1, 2}) {
				t.Errorf("result set 7 holds IDs %v, want [1 2]: a statement ran twice or not at all", ids)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}

			got := rec.Take()
			want := []plantest.Statement{
				{Query: create, Args: []any{}}, {Query: index, Args: []any{}},
				{Query: insert, Args: []any{int64(7), int64(1)}}, {Query: insert, Args: []any{int64(7), int64(2)}},
				{Query: insert, Args: []any{int64(8), int64(1)}}, {Query: read, Args: []any{int64(7)}},
			}
			if len(got) != len(want) {
				t.Fatalf("recorded %d statements, want %d: %+v", len(got), len(want), got)
			}
			for i, st := range got {
				if st.Query != want[i].Query || !slices.Equal(st.Args, want[i].Args) {
					t.Errorf("statement %d: %s %v, want %s %v", i, st.Query, st.Args, want[i].Query, want[i].Args)
				}
				if st.PlanErr != nil {
					t.Errorf("%s: %v", st.Query, st.PlanErr)
				}
				if explained := first && i >= 2; st.Explained() != explained {
					t.Errorf("%s explained %v, want %v", st.Query, st.Explained(), explained)
				}
			}
			last := got[len(got)-1]
			plan := last.Plan
			if !first {
				p, err := plantest.Explain(ctx, db, d.Name(), last.Query, last.Args)
				if err != nil {
					t.Fatal(err)
				}
				plan = &p
			}
			wantScans := []plantest.Scan{{Table: "T", Alias: "t", Method: "SEARCH", Index: "IX_T_ID", Columns: []string{"INST_ID"}, Cond: "INST_ID=?"}}
			if plan == nil || !reflect.DeepEqual(plan.Scans, wantScans) {
				t.Errorf("plan of %s: %+v, want scans %v", read, plan, wantScans)
			}
			if rest := rec.Take(); first && len(rest) != 0 {
				t.Errorf("recorded after Take: %+v", rest)
			}
		})
	}
}

// TestExplainFirstInTransaction explains the statements of a PostgreSQL
// transaction that has turned sequential scans off: the plan reads a table
// of three rows through its index, where the server's settings, outside
// the transaction, read it whole.
func TestExplainFirstInTransaction(t *testing.T) {
	ctx := context.Background()
	db, _, rec := plantest.Open(t, dbtest.Fresh(t, "postgres"), plantest.Options{ExplainFirst: true})
	for _, q := range []string{
		`CREATE TABLE "t" ("inst_id" BIGINT NOT NULL, "id" BIGINT NOT NULL)`,
		`CREATE INDEX "ix_t" ON "t" ("inst_id", "id")`,
		`INSERT INTO "t" VALUES (1, 1), (2, 1), (3, 1)`,
		`ANALYZE "t"`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const read = `SELECT "id" FROM "t" WHERE "inst_id" = $1`
	scans := func(inTx bool) []plantest.Scan {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if inTx {
			if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
		}
		rec.Take()
		var id int64
		if err := tx.QueryRowContext(ctx, read, 2).Scan(&id); err != nil {
			t.Fatalf("%s: %v", read, err)
		}
		got := rec.Take()
		if len(got) != 1 || got[0].Plan == nil {
			t.Fatalf("recorded %+v, want %s with its plan", got, read)
		}
		return got[0].Plan.Scans
	}
	if s := scans(false); len(s) != 1 || !s[0].Full {
		t.Errorf("with the server's settings %v, want a scan of the whole table", s)
	}
	if s := scans(true); len(s) != 1 || s[0].Full || s[0].Index != "ix_t" {
		t.Errorf("with sequential scans off %v, want a scan of ix_t", s)
	}
}
