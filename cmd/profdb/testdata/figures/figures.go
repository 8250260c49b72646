// Package figures is test data for profdb's agreement with go tool cover
// and go tool pprof (cmd/profdb/figures_test.go): recursion, direct and
// through two functions, and an else-if chain.
package figures

// Fib recurses directly.
func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

// ping and pong recurse through each other.
func ping(n int) int {
	if n == 0 {
		return 0
	}
	return pong(n-1) + Fib(n%16)
}

func pong(n int) int {
	if n == 0 {
		return 1
	}
	return ping(n-1) + 1
}

// Grade classifies n through an else-if chain.
func Grade(n int) string {
	if n < 10 {
		return "small"
	} else if n < 20 {
		return "medium"
	} else if n < 30 {
		return "large"
	}
	return "huge"
}

// Never is not called.
func Never() int {
	return 42
}
