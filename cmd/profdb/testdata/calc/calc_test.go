package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestDiv(t *testing.T) {
	if got := Div(6, 3); got != 2 {
		t.Errorf("Div(6, 3) = %d, want 2", got)
	}
}

func TestDivByZero(t *testing.T) {
	if got := Div(1, 0); got != 0 {
		t.Errorf("Div(1, 0) = %d, want 0", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-2); got != 2 {
		t.Errorf("Abs(-2) = %d, want 2", got)
	}
}
