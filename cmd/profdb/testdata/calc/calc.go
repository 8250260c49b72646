package calc

// Add returns a + b.
func Add(a, b int) int {
	return a + b
}

// Div divides a by b; dividing by zero gives 0.
func Div(a, b int) int {
	if b == 0 {
		return 0
	}
	return a / b
}

// Abs is the absolute value of a.
func Abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
