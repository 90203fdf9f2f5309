// StarPU's suballocator of GPU memory; see chunk_allocator.hpp. Line numbers are those of
// StarPU 1.3.10's src/datawizard/malloc.c.
#include "replay/chunk_allocator.hpp"

#include <algorithm>
#include <cmath>

namespace tilelens::replay_detail {

void ChunkAllocator::reset(std::uint32_t nodes, std::size_t data_count, double capacity, double largest) {
  capacity_ = capacity;
  small_data_only_ = largest <= kLargestSuballocated;
  data_count_ = data_count;
  nodes_.assign(nodes, {});
  place_.assign(nodes * data_count, {});
}

// Whole blocks, at least one (:773-776).
std::int32_t ChunkAllocator::count_blocks(double bytes) {
  return std::max<std::int32_t>(1, static_cast<std::int32_t>(std::ceil(bytes / kBlockBytes)));
}

void ChunkAllocator::measure(Chunk& chunk) {
  chunk.largest = 0;
  for (const Run& run : chunk.free) chunk.largest = std::max(chunk.largest, run.length);
}

void ChunkAllocator::measure(Node& node) {
  node.largest = 0;
  for (const Chunk& chunk : node.chunks) node.largest = std::max(node.largest, chunk.largest);
}

const ChunkAllocator::Run* ChunkAllocator::first_fit(const Chunk& chunk, std::int32_t blocks) {
  if (chunk.available < blocks) return nullptr;
  for (const Run& run : chunk.free) {
    if (run.length >= blocks) return &run;
  }
  return nullptr;
}

// StarPU's search without taking the run: chunks in list order, each skipped while its hint is
// short, searched otherwise (a failed search leaves the hint at the chunk's longest run).
bool ChunkAllocator::fits(std::uint32_t n, double bytes) const {
  const Node& node = nodes_[n];
  if (bytes > kLargestSuballocated) return node.committed + bytes <= capacity_;
  const std::int32_t blocks = blocks_of(bytes);
  if (node.reusable.start >= 0 && node.reusable_blocks == blocks) return true;
  if (node.largest >= blocks || node.hints_above_largest) {
    for (const Chunk& chunk : node.chunks) {
      if (chunk.hint < blocks) continue;
      if (chunk.largest >= blocks) return true;
      chunk.hint = chunk.largest;
    }
    if (node.largest < blocks) node.hints_above_largest = false;  // every hint is now at most its chunk's longest run
  }
  return node.committed + kChunkBytes <= capacity_;
}

bool ChunkAllocator::allocate(std::uint32_t n, DataId d, double bytes) {
  Node& node = nodes_[n];
  Place& place = place_[n * data_count_ + d];
  if (bytes > kLargestSuballocated) {  // allocated on its own (:770-771)
    if (node.committed + bytes > capacity_) return false;
    node.committed += bytes;
    place = {};
    return true;
  }
  const std::int32_t blocks = blocks_of(bytes);
  if (node.reusable.start >= 0) {
    const Place reusable = node.reusable;
    node.reusable = {};
    if (node.reusable_blocks == blocks) {
      place = reusable;
      return true;
    }
    free_run(node, reusable, node.reusable_blocks);  // not taken up: an ordinary free after all
  }
  auto chunk = node.chunks.begin();
  const Run* run = nullptr;
  for (; chunk != node.chunks.end(); ++chunk) {
    if (chunk->hint < blocks) continue;  // StarPU does not look (:790-791)
    if ((run = first_fit(*chunk, blocks))) break;
    chunk->hint = chunk->largest;  // a failed search: the longest run seen (:815-817)
  }
  if (!run) {  // a new chunk, at the front (:821-836)
    if (node.committed + kChunkBytes > capacity_) return false;
    node.committed += kChunkBytes;
    node.free_blocks += kBlocks;
    node.chunks.push_front(Chunk{.id = node.next_id++});
    node.hints_above_largest = true;
    node.by_id.push_back(node.chunks.begin());
    node.largest = kBlocks;
    chunk = node.chunks.begin();
    run = &chunk->free.front();
  } else {
    if (chunk->available == kBlocks) --node.empty_chunks;
    if (run->length >= 2 * blocks && chunk != node.chunks.begin()) {  // room for more: to the front (:803-811)
      const std::size_t index = static_cast<std::size_t>(run - chunk->free.data());
      node.chunks.splice(node.chunks.begin(), node.chunks, chunk);
      chunk = node.chunks.begin();
      run = &chunk->free[index];
    }
  }
  place = {chunk->id, run->start};
  auto at = chunk->free.begin() + (run - chunk->free.data());
  if (at->length == blocks) {
    chunk->free.erase(at);
  } else {
    at->start += blocks;
    at->length -= blocks;
  }
  chunk->available -= blocks;
  node.free_blocks -= blocks;
  node.hints_above_largest = true;  // the hint stays where it was (:840-860)
  const std::int32_t before = chunk->largest;
  measure(*chunk);
  if (before == node.largest && chunk->largest < before) measure(node);  // it may have held the node's longest run
  return true;
}

void ChunkAllocator::release(std::uint32_t n, DataId d, double bytes) {
  Node& node = nodes_[n];
  Place& place = place_[n * data_count_ + d];
  if (place.start < 0) {
    node.committed -= bytes;
    return;
  }
  const std::int32_t blocks = blocks_of(bytes);
  if (node.reuse_armed) {
    node.reuse_armed = false;
    if (node.reusable.start >= 0) free_run(node, node.reusable, node.reusable_blocks);
    node.reusable = place;
    node.reusable_blocks = blocks;
    place = {};
    return;
  }
  free_run(node, place, blocks);
  place = {};
}

void ChunkAllocator::free_run(Node& node, const Place& place, std::int32_t blocks) {
  const auto chunk = node.by_id[place.chunk];
  // The freed run, merged with the free runs just before and after it (:907-935).
  auto next = std::lower_bound(chunk->free.begin(), chunk->free.end(), place.start, [](const Run& r, std::int32_t s) { return r.start < s; });
  auto at = chunk->free.insert(next, Run{place.start, blocks});
  // Only a merge raises the chunk's hint (:913-929).
  if (std::next(at) != chunk->free.end() && at->start + at->length == std::next(at)->start) {
    at->length += std::next(at)->length;
    chunk->free.erase(std::next(at));
    chunk->hint = std::max(chunk->hint, at->length);
  }
  if (at != chunk->free.begin() && std::prev(at)->start + std::prev(at)->length == at->start) {
    std::prev(at)->length += at->length;
    chunk->hint = std::max(chunk->hint, std::prev(at)->length);
    chunk->free.erase(at);
  }
  // A merge raises the hint to a run's length, never past the chunk's longest run: no hint
  // rises above it here (hints_above_largest is left as it was).
  chunk->available += blocks;
  node.free_blocks += blocks;
  measure(*chunk);
  node.largest = std::max(node.largest, chunk->largest);
  if (chunk->available == kBlocks) {  // empty: kept unless four are kept already (:937-948)
    if (node.empty_chunks >= 4) {
      node.committed -= kChunkBytes;
      node.free_blocks -= kBlocks;
      node.chunks.erase(chunk);
      measure(node);
    } else {
      ++node.empty_chunks;
    }
  } else {  // it has room again: to the front (:950-954)
    node.chunks.splice(node.chunks.begin(), node.chunks, chunk);
  }
}

double ChunkAllocator::free_bytes(std::uint32_t n) const {
  const Node& node = nodes_[n];
  double uncommitted = capacity_ - node.committed;
  if (small_data_only_) uncommitted = std::floor(uncommitted / kChunkBytes) * kChunkBytes;
  return uncommitted + static_cast<double>(node.free_blocks) * kBlockBytes;
}

}  // namespace tilelens::replay_detail
