// StarPU's suballocator of GPU memory as replay/chunk_allocator.hpp models it (malloc.c:640-960):
// data of at most 4 MiB take 16 KiB blocks in 32 MiB chunks counted whole against the memory,
// larger data their own size; and the StarPU memory manager replays with it.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "replay/chunk_allocator.hpp"

using namespace tilelens;
using tilelens::replay_detail::ChunkAllocator;

namespace {
constexpr double kMiB = 1024.0 * 1024;
constexpr double kTile = 960.0 * 960 * 4;  // 3.52 MiB: 225 blocks, nine to a chunk
}  // namespace

TEST_CASE("chunks: 119 MiB holds three chunks of nine 3.5 MiB tiles, 27 where the bytes would give 33", "[chunk-allocator]") {
  ChunkAllocator chunks;
  chunks.reset(1, 64, 119 * kMiB, kTile);
  int placed = 0;
  while (chunks.fits(0, kTile)) REQUIRE(chunks.allocate(0, static_cast<DataId>(placed++), kTile));
  CHECK(placed == 27);
  CHECK_FALSE(chunks.allocate(0, 40, kTile));
  // What is left: 23 blocks of each chunk. The 23 MiB short of a fourth chunk is no room: only a
  // chunk could hold a tile there.
  CHECK(chunks.free_bytes(0) == Approx(3 * 23 * ChunkAllocator::kBlockBytes));
  // Where a datum is larger than 4 MiB (allocated at its own size), the 23 MiB is room for it.
  ChunkAllocator mixed;
  mixed.reset(1, 64, 119 * kMiB, 8 * kMiB);
  for (DataId d = 0; d < 27; ++d) REQUIRE(mixed.allocate(0, d, kTile));
  CHECK(mixed.free_bytes(0) == Approx(3 * 23 * ChunkAllocator::kBlockBytes + 23 * kMiB));
  CHECK(mixed.fits(0, 8 * kMiB));
}

// StarPU's available_max (malloc.c:790-817, 911-929): a freed run that merges with no free
// neighbour does not raise the chunk's hint, so StarPU's search skips the chunk although the run
// would hold the datum; a merge raises it.
TEST_CASE("chunks: a run freed between taken ones stays unseen until a free neighbour merges with it", "[chunk-allocator]") {
  ChunkAllocator chunks;
  chunks.reset(1, 16, 32 * kMiB, kTile);  // one chunk: nine tiles, 23 blocks left at its end
  for (DataId d = 0; d < 9; ++d) REQUIRE(chunks.allocate(0, d, kTile));
  CHECK_FALSE(chunks.fits(0, kTile));  // the failed search sets the hint to the 23 blocks left
  chunks.release(0, 3, kTile);          // between tiles 2 and 4: merges with nothing
  CHECK(chunks.free_bytes(0) == Approx((225 + 23) * ChunkAllocator::kBlockBytes));
  CHECK_FALSE(chunks.fits(0, kTile));
  CHECK_FALSE(chunks.allocate(0, 3, kTile));
  chunks.release(0, 5, kTile);  // between 4 and 6: still nothing to merge with
  CHECK_FALSE(chunks.fits(0, kTile));
  chunks.release(0, 4, kTile);  // merges 3, 4 and 5 into one run: the hint rises
  CHECK(chunks.fits(0, kTile));
  CHECK(chunks.allocate(0, 3, kTile));
  CHECK(chunks.allocate(0, 4, kTile));
  CHECK(chunks.allocate(0, 5, kTile));
  CHECK_FALSE(chunks.fits(0, kTile));
}

// StarPU's reuse (memalloc.c:507-553, 851-920): a clean replica's memory goes to a datum of the
// same footprint as it is, without the suballocator, whose hint would have hidden it.
TEST_CASE("chunks: a released place armed for reuse goes to the next datum of its size, hint or not", "[chunk-allocator]") {
  ChunkAllocator chunks;
  chunks.reset(1, 16, 32 * kMiB, kTile);
  for (DataId d = 0; d < 9; ++d) REQUIRE(chunks.allocate(0, d, kTile));
  CHECK_FALSE(chunks.fits(0, kTile));
  chunks.reuse_next_release(0);
  chunks.release(0, 3, kTile);
  CHECK(chunks.free_bytes(0) == Approx(23 * ChunkAllocator::kBlockBytes));  // still taken, by no datum
  CHECK(chunks.fits(0, kTile));
  CHECK_FALSE(chunks.fits(0, 1 * kMiB));  // another size does not take it
  CHECK(chunks.allocate(0, 10, kTile));
  CHECK_FALSE(chunks.fits(0, kTile));
  // Not taken up by a datum of its size, it is freed as any run is, and that free merges with
  // nothing: the hint hides it from the 1 MiB datum too.
  chunks.reuse_next_release(0);
  chunks.release(0, 10, kTile);
  CHECK_FALSE(chunks.allocate(0, 11, 1 * kMiB));
  CHECK(chunks.free_bytes(0) == Approx((225 + 23) * ChunkAllocator::kBlockBytes));
}

TEST_CASE("chunks: StarPU limited to 63 MiB replays as at 32 MiB (one chunk either way)", "[chunk-allocator][memory-model]") {
  const Workload w = test::generated("cholesky:N=8");  // 3.5 MiB tiles, nine to a chunk
  const auto at = [&](double mib) { return test::run_replay(w, "eager", "lru", test::small_platform(mib * kMiB), 2).summary; };
  const ReplaySummary one_chunk = at(32), short_of_two = at(63), two_chunks = at(64);
  CHECK(short_of_two.loads == one_chunk.loads);
  CHECK(short_of_two.writebacks == one_chunk.writebacks);
  CHECK(short_of_two.makespan_ns == one_chunk.makespan_ns);
  CHECK(two_chunks.loads < one_chunk.loads);
}

TEST_CASE("chunks: freed runs merge, first fit takes the lowest run that is long enough", "[chunk-allocator]") {
  ChunkAllocator chunks;
  chunks.reset(1, 16, 32 * kMiB, 8 * kMiB);
  const double quarter = 8 * kMiB - ChunkAllocator::kBlockBytes;  // over 4 MiB: a datum of its own
  CHECK(chunks.allocate(0, 0, quarter));                          // not in a chunk: 8 MiB counted
  CHECK_FALSE(chunks.fits(0, 1 * kMiB));                          // 24 MiB left: no room for a whole chunk
  chunks.release(0, 0, quarter);
  for (DataId d = 0; d < 8; ++d) REQUIRE(chunks.allocate(0, d, 4 * kMiB));  // a chunk full of 4 MiB data
  CHECK_FALSE(chunks.fits(0, ChunkAllocator::kBlockBytes));
  chunks.release(0, 2, 4 * kMiB);
  chunks.release(0, 3, 4 * kMiB);
  CHECK(chunks.fits(0, 4 * kMiB));
  CHECK_FALSE(chunks.fits(0, 4 * kMiB + 1));  // two runs of 4 MiB merged: 8 MiB, but over the largest suballocated size
  CHECK(chunks.allocate(0, 2, 3 * kMiB));
  CHECK(chunks.allocate(0, 3, 3 * kMiB));  // the rest of the merged run
  CHECK(chunks.allocate(0, 9, 2 * kMiB));
  CHECK_FALSE(chunks.fits(0, ChunkAllocator::kBlockBytes));
}

TEST_CASE("chunks: an emptied chunk is kept while four or fewer are empty, then given back", "[chunk-allocator]") {
  ChunkAllocator chunks;
  chunks.reset(1, 64, 6 * ChunkAllocator::kChunkBytes, 8 * kMiB);
  for (DataId d = 0; d < 6; ++d) REQUIRE(chunks.allocate(0, d, 4 * kMiB));  // one chunk
  for (DataId d = 6; d < 6 + 5 * 8; ++d) REQUIRE(chunks.allocate(0, d, 4 * kMiB));
  CHECK_FALSE(chunks.fits(0, 5 * kMiB));  // six chunks committed: no room for a large datum
  for (DataId d = 6; d < 6 + 5 * 8; ++d) chunks.release(0, d, 4 * kMiB);
  // Five chunks emptied: four kept, the fifth given back, so 32 MiB of large data fit again.
  CHECK(chunks.fits(0, 5 * kMiB));
  CHECK_FALSE(chunks.fits(0, 33 * kMiB));
}

TEST_CASE("StarPU's manager suballocates GPU memory: fewer tiles resident, more loads, unless suballocate=0", "[memory-model][chunk-allocator]") {
  const Workload w = test::generated("cholesky:N=12");  // 3.5 MiB tiles
  const Platform p = test::small_platform(119 * kMiB);
  const auto chunked = test::run_replay(w, "eager", "lru", p, 2);
  const auto bytes = test::run_replay(w, "eager", "lru", p, 2, "starpu:suballocate=0");
  REQUIRE(test::check_invariants(w, p, chunked).empty());
  CHECK(chunked.summary.gpus[0].peak_bytes <= 27 * kTile);
  CHECK(bytes.summary.gpus[0].peak_bytes > 27 * kTile);
  CHECK(chunked.summary.loads > bytes.summary.loads);
  // A memory under one chunk counts bytes: the rule would leave no room for any tile.
  const Platform toy = test::small_platform(16 * kMiB);
  CHECK(test::run_replay(w, "eager", "lru", toy, 2).summary.loads == test::run_replay(w, "eager", "lru", toy, 2, "starpu:suballocate=0").summary.loads);
}
