// Building the example database: six replay requests stored through the core.
#include "app/gui/example.hpp"

#include <filesystem>

#include "core/replay_request.hpp"

namespace tilelens::gui {

Status ensure_example_database(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return Status::success();
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string partial = path + ".partial";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(partial + suffix, ec);
  const auto request = [](std::string workload, std::string scheduler, std::string eviction, std::uint32_t gpus, double mib) {
    core::ReplayRequest r;
    r.workload = std::move(workload);
    r.scheduler = std::move(scheduler);
    r.eviction = std::move(eviction);
    r.platform.gpus = gpus;
    r.platform.memory = SizeSpec{mib * 1048576.0, 0};
    return r;
  };
  const std::vector<core::ReplayRequest> runs = {
      request("matmul2d:N=20", "rcm", "lru", 1, 250),     request("matmul2d:N=20", "dmdar", "lru", 1, 250),
      request("matmul2d:N=20", "hfp", "belady", 1, 250),  request("matmul3d:N=8", "hfp", "belady", 1, 60),
      request("cholesky:N=16", "dmdas", "lru", 2, 120),   request("cholesky:N=16", "darts", "luf", 2, 120),
  };
  for (const auto& run : runs) {
    auto outcome = core::run_replay(run, core::stored_in(partial));
    if (!outcome || !outcome->error.empty()) {
      return make_error("building the example database failed: " + (!outcome ? outcome.error().message : outcome->error));
    }
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) return make_error("cannot create the example database '" + path + "': " + ec.message());
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(partial + suffix, ec);
  return Status::success();
}

}  // namespace tilelens::gui
