// Building the example database through the CLI's replay (the same code path as
// `tilelens replay --db`).
#include "app/gui/example.hpp"

#include <filesystem>
#include <sstream>

#include "app/cli/commands.hpp"

namespace tilelens::gui {

Status ensure_example_database(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return Status::success();
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string partial = path + ".partial";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(partial + suffix, ec);
  const std::vector<std::vector<std::string>> runs = {
      {"--workload", "matmul2d:N=20", "--scheduler", "rcm", "--eviction", "lru", "--memory", "250MiB"},
      {"--workload", "matmul2d:N=20", "--scheduler", "dmdar", "--eviction", "lru", "--memory", "250MiB"},
      {"--workload", "matmul2d:N=20", "--scheduler", "hfp", "--eviction", "belady", "--memory", "250MiB"},
      {"--workload", "matmul3d:N=8", "--scheduler", "hfp", "--eviction", "belady", "--memory", "60MiB"},
      {"--workload", "cholesky:N=16", "--scheduler", "dmdas", "--eviction", "lru", "--gpus", "2", "--memory", "120MiB"},
      {"--workload", "cholesky:N=16", "--scheduler", "darts", "--eviction", "luf", "--gpus", "2", "--memory", "120MiB"},
  };
  for (const auto& options : runs) {
    std::vector<std::string> args = {"replay"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--db", partial});
    std::ostringstream out, err;
    if (cli::run_cli(args, out, err) != 0) return make_error("building the example database failed: " + err.str());
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) return make_error("cannot create the example database '" + path + "': " + ec.message());
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(partial + suffix, ec);
  return Status::success();
}

}  // namespace tilelens::gui
