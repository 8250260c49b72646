// Package shapes is a second package of the test module.
package shapes

// Square is the square of x.
func Square(x int) int { return x * x }

// Cube is never called.
func Cube(x int) int {
	return x * x * x
}

// Size names the size of n: an else-if chain, of which the test runs only
// the first branch.
func Size(n int) string {
	if n < 10 {
		return "small"
	} else if n > 80 {
		return "large"
	}
	return "medium"
}
