package figures

import (
	"os"
	"strconv"
	"testing"
	"time"

	ahash "example.com/figures/a/hash"
	bhash "example.com/figures/b/hash"
)

// TestWork grades FIGURES_N, then recurses and hashes for FIGURES_MS
// milliseconds.
func TestWork(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FIGURES_N"))
	Grade(n)
	ms, _ := strconv.Atoi(os.Getenv("FIGURES_MS"))
	sum := 0
	for end := time.Now().Add(time.Duration(ms) * time.Millisecond); time.Now().Before(end); {
		sum += Fib(18) + ping(40) + int(ahash.New(5000)%2) + int(bhash.New(5000)%2)
	}
	if sum < 0 {
		t.Fatal("overflow")
	}
}
