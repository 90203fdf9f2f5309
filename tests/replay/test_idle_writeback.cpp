// StarPU's memchunk tidy as replay/idle_writeback.hpp models it (memalloc.c:1096-1245): new
// replicas count untidy until visited, the walk starts at the dirty head and queues every
// write-back it decides at once, a skipped replica holds the head back.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "replay/idle_writeback.hpp"

using namespace tilelens;
using tilelens::replay_detail::IdleWriteback;
using Visit = IdleWriteback::Visit;

namespace {

// Drains node 0's queue: the write-backs in the order the node would start them.
std::vector<DataId> drain(IdleWriteback& tidy) {
  std::vector<DataId> out;
  const auto always = [](DataId) { return true; };
  while (const auto d = tidy.next_writeback(0, always)) out.push_back(*d);
  return out;
}

}  // namespace

TEST_CASE("idle write-back: the walk from the dirty head queues write-backs until the target", "[idle-writeback]") {
  // 40 replicas: the walk starts below 5% clean (2) and stops at 10% (4).
  IdleWriteback tidy(5, 10);
  tidy.reset(1, 64);
  for (DataId d = 0; d < 40; ++d) tidy.reserved(0, d);
  std::map<DataId, Visit> kind;  // what each replica is when visited; the rest: home holds it
  kind[0] = Visit::WriteBack;
  kind[1] = Visit::WriteBack;
  kind[2] = Visit::Skip;
  kind[3] = Visit::WriteBack;
  const auto visit = [&](DataId d) { return kind.count(d) ? kind[d] : Visit::CountClean; };
  tidy.tidy(0, 40, visit);
  // 0 and 1 are written back, 2 skipped, 3 written back, 4 counted clean: four clean.
  CHECK(drain(tidy) == std::vector<DataId>{0, 1, 3});
  // Nothing is below 5% now: no walk.
  tidy.tidy(0, 40, visit);
  CHECK(drain(tidy).empty());
  // Three clean replicas are written by tasks: one of 40 stays clean, below 2.
  tidy.written(0, 0, true);
  tidy.written(0, 1, true);
  tidy.written(0, 3, true);
  kind[2] = Visit::WriteBack;
  tidy.tidy(0, 40, visit);
  // The skipped replica held the head at 2: the walk starts there again and writes back 2 and
  // 3 (dirty again, after the head), not 0 and 1, dirty but behind the head, where StarPU's
  // walk never looks back.
  CHECK(drain(tidy) == std::vector<DataId>{2, 3});
}

TEST_CASE("idle write-back: data without a home stay clean once visited, and left replicas are dropped", "[idle-writeback]") {
  IdleWriteback tidy(5, 10);
  tidy.reset(1, 64);
  for (DataId d = 0; d < 20; ++d) tidy.reserved(0, d);
  const auto write_all = [](DataId) { return Visit::WriteBack; };
  tidy.tidy(0, 20, write_all);  // 20 replicas: start below 1 clean, stop at 2
  tidy.written(0, 0, false);    // without a home: StarPU does not mark it dirty again
  const auto only_1 = [](DataId d) { return d == 1; };
  std::vector<DataId> started;
  while (const auto d = tidy.next_writeback(0, only_1)) started.push_back(*d);
  CHECK(started == std::vector<DataId>{1});  // 0 was no longer needed: dropped
  tidy.tidy(0, 20, write_all);
  CHECK(drain(tidy).empty());  // 0 still counts clean: two clean, nothing to do
}
