// The C library's allocator, set once at the start of each program's main
// (the CLI, redscope-call, the test runner, the fuzz and differential
// harnesses, the benchmark), before any thread starts.
//
// glibc's malloc gives back the top of a heap past M_TRIM_THRESHOLD (128 KiB)
// and serves a block past M_MMAP_THRESHOLD (128 KiB, raised as such blocks
// are freed, to 32 MiB at most) with mmap. Z3 and the fuzz harness build and
// drop megabytes per test, so by default a process faults the same pages in
// again and again, at about 25 us a fault on this project's 2-core VM
// (docs/performance.md "CI time, round 6": `run --engine z3 -j 2` over
// litmus/classic 17,900 -> 9,600 faults, 714 -> 592 ms of CPU; the fuzz
// harness's whole-pipeline inputs 11 -> 18 a CPU second; `run` over litmus/
// with the default engine unchanged).
#pragma once

namespace redscope {

// Blocks under 32 MiB come from the heap, which keeps up to 64 MiB of free
// top: after a peak a process may stay more resident than under glibc's
// defaults, and --max-memory (core/budget.hpp) counts what is resident
// (cli.budget's bounds hold). No effect with another C library (emscripten's).
void tune_allocator();

}  // namespace redscope
