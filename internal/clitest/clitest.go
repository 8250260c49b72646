package clitest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Module is the path of the module whose cmd/profdb Build builds.
const Module = "github.com/profdb/profdb"

// Build builds cmd/profdb into dir and returns the binary's path. It
// builds in the profdb module's own folder, with its go.mod and go.sum,
// from wherever the caller runs: a test of the module or of a module that
// requires it (the integration module, through its replace directive).
func Build(ctx context.Context, dir string) (string, error) {
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", Module).Output()
	if err != nil {
		return "", fmt.Errorf("clitest: find module %s: %w%s", Module, err, stderrOf(err))
	}
	bin := filepath.Join(dir, "profdb")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.CommandContext(ctx, "go", "build", "-C", strings.TrimSpace(string(root)), "-o", bin, "./cmd/profdb").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("clitest: go build ./cmd/profdb: %w\n%s", err, out)
	}
	return bin, nil
}

func stderrOf(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}
