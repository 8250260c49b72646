package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/store"
)

// TestListShowsWhereResultSetsCameFrom: list prints when, where, by which
// profdb and from what input each result set was exported, and --json has
// the same; a deleted INST_ID is not given out again.
func TestListShowsWhereResultSetsCameFrom(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/resource.json")
	mustRun(t, "delete", "--db", dsn, "--inst", "2")
	if out := mustRun(t, "export", "--db", dsn, "../../examples/resource.json"); !strings.HasPrefix(out, "INST_ID 3 ") {
		t.Fatalf("export after deleting INST_ID 2 says %q; want INST_ID 3", out)
	}
	abs, err := filepath.Abs("../../examples/resource.json")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "list", "--db", dsn)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "EXPORTED (UTC)") || !strings.Contains(lines[0], "INPUT") ||
		!strings.HasPrefix(lines[2], "3 ") || !strings.Contains(lines[2], abs) {
		t.Fatalf("list:\n%s", out)
	}
	var list []store.Listing
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("list --json: %d result sets, want 2: %+v", len(list), list)
	}
	for _, l := range list {
		when, err := time.Parse(store.TimeFormat, l.ExportedAt)
		if err != nil || time.Since(when) > time.Hour || l.Host == "" || l.Version == "" || !strings.HasSuffix(l.Input, ".json") {
			t.Errorf("list --json: INST_ID %d exported %q on %q by %q from %q", l.InstID, l.ExportedAt, l.Host, l.Version, l.Input)
		}
	}
}

// TestDeleteOlderThan ages one of three result sets by 40 days and deletes
// with --older-than 30d: only that one goes (and --dry-run says so first);
// a result set without an export time is left, and said so.
func TestDeleteOlderThan(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/resource.json", "../../examples/light-coverage.json")
	db, err := exporter.Open(context.Background(), dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-40 * 24 * time.Hour).UTC().Format(store.TimeFormat)
	if _, err := db.DB().SQL().Exec(`UPDATE "PROFDB_RESULT_SETS" SET "EXPORTED_AT" = ? WHERE "INST_ID" = 2`, old); err != nil {
		t.Fatal(err)
	}
	// INST_ID 3 as if exported before profdb recorded export times.
	if _, err := db.DB().SQL().Exec(`DELETE FROM "PROFDB_RESULT_SETS" WHERE "INST_ID" = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if out := mustRun(t, "delete", "--db", dsn, "--older-than", "30d", "--dry-run"); out != "would delete INST_ID 2 (28 rows)\n" {
		t.Errorf("--dry-run: %q", out)
	}
	out, stderr, code := runCLI(t, "delete", "--db", dsn, "--older-than", "30d")
	if code != 0 || out != "deleted INST_ID 2 (28 rows)\n" || !strings.Contains(stderr, "1 result set has no export time") {
		t.Errorf("delete --older-than 30d: exit %d, %q, %q", code, out, stderr)
	}
	var list []store.Listing
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].InstID != 1 || list[1].InstID != 3 {
		t.Errorf("left: %+v", list)
	}
	out, stderr, code = runCLI(t, "delete", "--db", dsn, "--older-than", "2w")
	if code != 0 || out != "" || !strings.Contains(stderr, "no result set exported before") {
		t.Errorf("nothing old enough: exit %d, %q, %q", code, out, stderr)
	}
	for _, bad := range []string{"soon", "-3d", "1.5d"} {
		if _, stderr, code := runCLI(t, "delete", "--db", dsn, "--older-than", bad); code == 0 || !strings.Contains(stderr, "is not an age") {
			t.Errorf("--older-than %s: exit %d, %q", bad, code, stderr)
		}
	}
}
