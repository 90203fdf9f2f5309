// solve_optimum_ilp: loads the CBC module (cbc/cbc_module.hpp) on first use and hands it the
// instance, or says in the result why it cannot.
#include "schedulers/optimum_ilp.hpp"

#include "schedulers/cbc/cbc_module.hpp"

namespace tilelens {
namespace {

Result<const CbcModule*> load() {
  ModuleSearch search{.file = kCbcModuleFile,
                      .env_variable = "TILELENS_CBC_MODULE",
#ifdef TILELENS_CBC_MODULE_BUILD_DIR
                      .build_folder = TILELENS_CBC_MODULE_BUILD_DIR,
#endif
                      .what = "CBC module",
                      .needs = "CBC's libraries (coinor-libcbc3) must be installed",
                      .absent_because = "it was built without CBC",
                      .entry = kCbcModuleEntry};
  return load_module_table<CbcModule>(search, kCbcModuleVersion, kCbcModuleLayout);
}

}  // namespace

OptimumIlpResult solve_optimum_ilp(const OptimumProblem& problem, double seconds) {
  static const Result<const CbcModule*> loaded = load();  // once per process, good or bad
  if (!loaded) {
    OptimumIlpResult result;
    result.error = loaded.error().message;
    return result;
  }
  return (*loaded)->solve(problem, seconds);
}

}  // namespace tilelens
