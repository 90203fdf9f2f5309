// See heap_pages.hpp.
#include "app/cli/heap_pages.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tilelens::cli {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TILELENS_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TILELENS_OWN_ALLOCATOR 1
#endif
#endif

void prefer_huge_heap_pages() {
#if defined(__linux__) && defined(__GLIBC__) && !defined(TILELENS_OWN_ALLOCATOR)
  constexpr std::size_t kHeapPad = std::size_t{32} << 20;
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  // The heap grows by the pad at once; blocks up to 4 MiB (a workload file of 40,000 lines read
  // whole) come from it rather than from an mmap each, faulted in afresh 4 KiB at a time; and
  // the top goes back to the kernel only past twice the pad (room given back and taken again
  // would come without huge pages). Larger blocks keep glibc's mmap: a run of a million tasks
  // then peaks where it did (bench replay: 143 MB streamed, 310 MB with the trace kept), where a
  // 64 MiB threshold kept freed blocks on the heap and peaked 10% higher.
  if (mallopt(M_MMAP_THRESHOLD, 4 << 20) == 0) return;
  mallopt(M_TOP_PAD, static_cast<int>(kHeapPad));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kHeapPad));
  // A probe from the top of the heap makes it grow by the pad behind the probe.
  void* probe = std::malloc(std::size_t{256} << 10);
  if (probe == nullptr) return;
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  const std::uintptr_t begin = (at + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  std::free(probe);  // back into the top of the heap, which it borders
  if (end <= begin + kHugePage) return;
  // The room below the first whole huge page would take 4 KiB pages: a block kept for the
  // process's life (never touched, so it costs no memory) fills it, and what comes next starts
  // on huge pages (the workload file read whole, the largest block of a short command).
  if (begin - at > (std::uintptr_t{64} << 10)) {
    static void* volatile room_below_huge_pages = std::malloc(begin - at - 64);
    (void)room_below_huge_pages;
  }
  // A kernel without THP refuses, and 4 KiB pages stay.
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

}  // namespace tilelens::cli
