package shapes

import "testing"

func TestSquare(t *testing.T) {
	if Square(3) != 9 {
		t.Fatal("Square")
	}
	if Size(3) != "small" {
		t.Fatal("Size")
	}
}
