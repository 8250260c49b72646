// Package shapes is a second package of the test module.
package shapes

// Square is the square of x.
func Square(x int) int { return x * x }

// Cube is never called.
func Cube(x int) int {
	return x * x * x
}
