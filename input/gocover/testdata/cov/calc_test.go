package cov

import "testing"

func TestCov(t *testing.T) {
	if Sum([]int{1, 2, 3, 4}) != 10 {
		t.Fatal("Sum")
	}
	var a Acc
	a.Add(2)
	a.Add(3)
	a.Add(-1)
	if a.Value() != 5 {
		t.Fatal("Acc")
	}
	var s Stack[string]
	s.Push("x")
	if (Pair[string, int]{k: "k"}).Key() != "k" {
		t.Fatal("Pair")
	}
	if got := Apply([]int{1, 2, 3}, double); len(got) != 3 || got[2] != 6 {
		t.Fatal("Apply")
	}
	Empty()
}
