// StarPU 1.3.10's suballocator of GPU memory (src/datawizard/malloc.c:640-960), which the
// StarPU memory manager uses when its model says so (starpu:suballocate): a datum of at most
// 4 MiB does not get memory of its own, but a run of 16 KiB blocks inside a 32 MiB chunk, and
// the memory limit counts whole chunks. A node thus holds fewer tiles than its bytes say: 119 MiB
// is three chunks, nine tiles of 3.5 MiB each, 27 tiles where the bytes would give 33. Larger
// data are allocated on their own, at their size. The search is StarPU's: chunks in list order
// (one with room for two more moves to the front when used, one that got room back moves to
// the front), first fit within a chunk, freed runs merged with their neighbours; an emptied
// chunk is kept while fewer than four are empty, and given back otherwise. Its search trusts a
// per-chunk hint that hides runs freed between taken ones (Chunk::hint), a clean replica of the
// same size hands its place to the next datum as it is (reuse_next_release), and capacity short
// of a whole chunk is no room for suballocated data (free_bytes). Internal to replay/.
#pragma once

#include <cstdint>
#include <list>
#include <vector>

#include "model/model.hpp"

namespace tilelens::replay_detail {

class ChunkAllocator {
 public:
  static constexpr double kChunkBytes = 32.0 * 1024 * 1024;
  static constexpr double kLargestSuballocated = kChunkBytes / 8;
  static constexpr double kBlockBytes = 16.0 * 1024;

  // `largest` is the largest datum's size: when every datum is suballocated, capacity short of
  // a whole chunk can hold none of them and is no room at all (free_bytes).
  void reset(std::uint32_t nodes, std::size_t data_count, double capacity, double largest);
  // Whether `bytes` more could be allocated on node n now.
  bool fits(std::uint32_t n, double bytes) const;
  // Takes the room for datum d (its size `bytes`) on n; false if it does not fit.
  bool allocate(std::uint32_t n, DataId d, double bytes);
  void release(std::uint32_t n, DataId d, double bytes);
  // StarPU's reuse of a clean replica's memory for a datum of the same footprint
  // (try_to_reuse_potentially_in_use_mc and reuse_mem_chunk, memalloc.c:507-553, 851-920): the
  // next datum released on n leaves its place, as it is, to the next allocation of as many
  // blocks there; the suballocator (its runs, its hints, its chunk order) never sees it.
  void reuse_next_release(std::uint32_t n) { nodes_[n].reuse_armed = true; }
  // The room n could still give, in bytes: capacity not yet taken by chunks or large data, in
  // whole chunks, plus the free blocks of its chunks (some of which may be too short for a datum).
  double free_bytes(std::uint32_t n) const;

 private:
  static constexpr std::int32_t kBlocks = static_cast<std::int32_t>(kChunkBytes / kBlockBytes);
  struct Run {
    std::int32_t start, length;  // in blocks
  };
  struct Chunk {
    std::uint32_t id = 0;
    std::int32_t available = kBlocks;
    std::int32_t largest = kBlocks;       // its longest free run
    // StarPU's available_max (malloc.c:790-819, 911-929): a hint its search trusts to skip the
    // chunk, set to the longest run only when a search through the chunk fails, and raised by a
    // freed run only when it merges with a free neighbour. A run freed between two taken ones
    // thus stays invisible until something else lowers or raises the hint: StarPU then fails
    // an allocation that the chunk has room for, and reclaims again. A failed search in fits()
    // lowers it too (StarPU's failed allocation does), hence mutable.
    mutable std::int32_t hint = kBlocks;
    std::vector<Run> free{{0, kBlocks}};  // by start, merged
  };
  struct Place {
    std::uint32_t chunk = 0;
    std::int32_t start = -1;  // -1: a large datum, or none
  };
  struct Node {
    std::list<Chunk> chunks;  // StarPU's search order
    std::vector<std::list<Chunk>::iterator> by_id;  // a chunk's place in that list (list iterators stay valid when moved)
    std::uint32_t empty_chunks = 0, next_id = 0;
    double committed = 0;         // bytes counted against the capacity: chunks and large data
    std::int64_t free_blocks = 0;  // in its chunks
    std::int32_t largest = 0;     // the longest free run of any chunk: fits() asks at every request
    // Whether some chunk's hint may exceed its longest run (a taken run or a freed one since a
    // failed search): while none does and no run is long enough, fits() need not look.
    mutable bool hints_above_largest = false;
    // StarPU's reuse: armed by reuse_next_release, the place the next release gives up, kept
    // taken for the next allocation of as many blocks.
    bool reuse_armed = false;
    Place reusable;
    std::int32_t reusable_blocks = 0;
  };

  // Whole blocks for `bytes`, remembered for the last size asked: most workloads have one
  // tile size, and fits() asks at every request.
  std::int32_t blocks_of(double bytes) const {
    if (bytes != last_bytes_) {
      last_bytes_ = bytes;
      last_blocks_ = count_blocks(bytes);
    }
    return last_blocks_;
  }
  static std::int32_t count_blocks(double bytes);
  static void measure(Chunk& chunk);
  static void measure(Node& node);
  static const Run* first_fit(const Chunk& chunk, std::int32_t blocks);
  // Gives a taken run back to its chunk's free runs (malloc.c:866-957).
  void free_run(Node& node, const Place& place, std::int32_t blocks);

  double capacity_ = 0;
  bool small_data_only_ = false;  // every datum suballocated: only whole chunks of capacity count as room
  std::size_t data_count_ = 0;
  std::vector<Node> nodes_;
  std::vector<Place> place_;  // per (node, data)
  mutable double last_bytes_ = -1;
  mutable std::int32_t last_blocks_ = 0;
};

}  // namespace tilelens::replay_detail
