// How the command-line process takes its heap memory. Most tilelens commands run for tens of
// milliseconds, and on virtual machines a page fault costs 10-15 us (measured on the project's
// 2-core VM: 1,500 faults took 21 ms, docs/replay.md "Where the time goes"): a replay of a
// Cholesky of N = 40 spent half its CPU time faulting in the 6 MB it touches, 4 KiB at a time.
#pragma once

namespace tilelens::cli {

// Asks for transparent huge pages on the first 32 MiB of the heap, where blocks up to 4 MiB
// come from, so a short command faults in 2 MiB at a time. Linux with glibc only, and only where THP is "madvise" or "always";
// elsewhere (and under the sanitizers, whose allocator is their own) it does nothing. Call it
// first in main, before the heap is much used.
void prefer_huge_heap_pages();

}  // namespace tilelens::cli
