// StarPU 1.3.10's suballocator of GPU memory (src/datawizard/malloc.c:640-960), which the
// StarPU memory manager uses when its model says so (starpu:suballocate): a datum of at most
// 4 MiB does not get memory of its own, but a run of 16 KiB blocks inside a 32 MiB chunk, and
// the memory limit counts whole chunks. A node thus holds fewer tiles than its bytes say: 119 MiB
// is three chunks, nine tiles of 3.5 MiB each, 27 tiles where the bytes would give 33. Larger
// data are allocated on their own, at their size. The search is StarPU's: chunks in list order
// (one with room for two more moves to the front when used, one that got room back moves to
// the front), first fit within a chunk, freed runs merged with their neighbours; an emptied
// chunk is kept while fewer than four are empty, and given back otherwise. Internal to replay/.
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

  void reset(std::uint32_t nodes, std::size_t data_count, double capacity);
  // Whether `bytes` more could be allocated on node n now.
  bool fits(std::uint32_t n, double bytes) const;
  // Takes the room for datum d (its size `bytes`) on n; false if it does not fit.
  bool allocate(std::uint32_t n, DataId d, double bytes);
  void release(std::uint32_t n, DataId d, double bytes);
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
    std::vector<Run> free{{0, kBlocks}};  // by start, merged
  };
  struct Node {
    std::list<Chunk> chunks;  // StarPU's search order
    std::vector<std::list<Chunk>::iterator> by_id;  // a chunk's place in that list (list iterators stay valid when moved)
    std::uint32_t empty_chunks = 0, next_id = 0;
    double committed = 0;         // bytes counted against the capacity: chunks and large data
    std::int64_t free_blocks = 0;  // in its chunks
    std::int32_t largest = 0;     // the longest free run of any chunk: fits() asks at every request
  };
  struct Place {
    std::uint32_t chunk = 0;
    std::int32_t start = -1;  // -1: a large datum, or none
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

  double capacity_ = 0;
  std::size_t data_count_ = 0;
  std::vector<Node> nodes_;
  std::vector<Place> place_;  // per (node, data)
  mutable double last_bytes_ = -1;
  mutable std::int32_t last_blocks_ = 0;
};

}  // namespace tilelens::replay_detail
