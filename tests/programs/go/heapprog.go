// heapprog - a Go program of heapfs's own that allocates under known
// function names and writes its heap profile (runtime/pprof's gzipped
// profile.proto) to the file given as its argument.  With
// runtime.MemProfileRate = 1 every allocation is recorded, so the profile
// holds exactly: keepBig 8 x 1 MiB, keepSmall 1000 x 1000 B (both kept
// live), churn 200 x 5000 B (allocated, then garbage), and, when a count
// N follows the file name, keepMore N x 2000 B (kept live) so that two runs
// differ by a known amount (otherwise two runs may record the same heap).
// Built by tests/mount/t_gopprof.sh with `go build` (standard library only).
package main

import (
	"os"
	"strconv"
	"runtime"
	"runtime/pprof"
)

var big [][]byte
var small [][]byte
var more [][]byte
var sink []byte

//go:noinline
func keepBig() {
	for i := 0; i < 8; i++ {
		big = append(big, make([]byte, 1<<20))
	}
}

//go:noinline
func keepSmall() {
	for i := 0; i < 1000; i++ {
		small = append(small, make([]byte, 1000))
	}
}

//go:noinline
func keepMore(n int) {
	for i := 0; i < n; i++ {
		more = append(more, make([]byte, 2000))
	}
}

//go:noinline
func churn() {
	for i := 0; i < 200; i++ {
		sink = make([]byte, 5000)
	}
	sink = nil
}

func main() {
	runtime.MemProfileRate = 1
	big = make([][]byte, 0, 8)
	small = make([][]byte, 0, 1000)
	keepBig()
	keepSmall()
	if len(os.Args) > 2 {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil {
			panic(err)
		}
		more = make([][]byte, 0, n)
		keepMore(n)
	}
	churn()
	runtime.GC()
	runtime.GC()
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		panic(err)
	}
	f.Close()
	runtime.KeepAlive(big)
	runtime.KeepAlive(small)
	runtime.KeepAlive(more)
}
