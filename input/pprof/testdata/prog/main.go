// Command prog profiles itself for the tests of input/pprof: it writes a
// CPU profile of some busy functions (a method, a closure, an inlined
// helper, recursion) to the first argument and a heap profile of the
// memory it keeps to the second.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

type hasher struct{ state uint64 }

func (h *hasher) mix(n int) uint64 {
	for i := 0; i < n; i++ {
		h.state = h.state*6364136223846793005 + uint64(i)
	}
	return h.state
}

func square(x uint64) uint64 { return x * x } // inlined

func spin(d time.Duration) (s uint64) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 10000; i++ {
			s += square(uint64(i))
		}
	}
	return s
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

var sink []any

func keep(n, size int) {
	for i := 0; i < n; i++ {
		sink = append(sink, make([]byte, size))
	}
}

func churn(n int) {
	for i := 0; i < n; i++ {
		b := make([]byte, 4096)
		b[0] = byte(i)
		runtime.KeepAlive(b)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: prog CPU-PROFILE HEAP-PROFILE")
		os.Exit(2)
	}
	runtime.MemProfileRate = 512
	cpu, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	var total uint64
	h := &hasher{}
	work := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			total += h.mix(100000)
		}
	}
	work(400 * time.Millisecond)
	total += spin(400 * time.Millisecond)
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); {
		total += uint64(fib(25))
	}
	pprof.StopCPUProfile()
	if err := cpu.Close(); err != nil {
		panic(err)
	}
	keep(2000, 1000)
	churn(5000)
	keep(300, 70000)
	runtime.GC()
	heap, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup("heap").WriteTo(heap, 0); err != nil {
		panic(err)
	}
	if err := heap.Close(); err != nil {
		panic(err)
	}
	fmt.Println(total, len(sink))
}
