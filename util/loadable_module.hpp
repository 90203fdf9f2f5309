// Finding and opening a module that tilelens loads only when a command needs it (dlopen): the
// CUDA executor (instrument/) and the CBC solver (schedulers/). A library linked at start-up
// costs every process its loading, even `tilelens --help`; CBC's seven alone made each start
// about 6 ms slower. Users link ${CMAKE_DL_LIBS}.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace tilelens {

// What a module's table is checked against, besides its version: FNV-1a over the sizes and
// field offsets of the types that cross the boundary.
constexpr std::uint64_t layout_fingerprint(std::initializer_list<std::size_t> numbers) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const std::size_t n : numbers) {
    hash ^= static_cast<std::uint64_t>(n);
    hash *= 1099511628211ull;
  }
  return hash;
}

struct ModuleSearch {
  std::string file;           // libtilelens_cuda.so
  std::string env_variable;   // a path that overrides the search: TILELENS_CUDA_MODULE
  std::string build_folder;   // where the build put it ("" for none)
  std::string what;           // for messages: "CUDA module"
  std::string needs;          // why a module found may not load: "the CUDA 13 runtime ... must be installed"
  std::string absent_because; // why it may be absent: "it was built without the CUDA toolkit"
  std::string entry;          // the C function it exports
};

struct OpenedModule {
  std::string path;
  void* entry = nullptr;  // the address of search.entry
};

// Where the module may be, in the order tried: the environment variable, beside the running
// program, in ../lib/tilelens from it (an installed layout), in the build folder, then the
// dynamic linker's own search path.
inline std::vector<std::string> module_candidates(const ModuleSearch& search) {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv(search.env_variable.c_str()); path && *path) candidates.emplace_back(path);
  char self[PATH_MAX] = {};
  if (const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1); length > 0) {
    const std::filesystem::path folder = std::filesystem::path(std::string(self, static_cast<std::size_t>(length))).parent_path();
    candidates.push_back((folder / search.file).string());
    candidates.push_back((folder / ".." / "lib" / "tilelens" / search.file).string());
  }
  if (!search.build_folder.empty()) candidates.push_back(search.build_folder + "/" + search.file);
  candidates.push_back(search.file);
  return candidates;
}

// The first candidate that exists is the module: if it cannot load, or lacks the entry, that is
// the answer (a module is not silently replaced by another one further down the list).
inline Result<OpenedModule> open_module(const ModuleSearch& search) {
  std::string tried;
  for (const std::string& candidate : module_candidates(search)) {
    const bool by_path = candidate.find('/') != std::string::npos;
    std::error_code ec;
    if (by_path && !std::filesystem::exists(candidate, ec)) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      if (!by_path) {
        // Absent from the library path, or there but missing a library it needs: dlerror says which.
        tried += (tried.empty() ? "" : ", ") + candidate + " on the library path (" + (why ? why : "not found") + ")";
        continue;
      }
      return make_error("the " + search.what + " " + candidate + " cannot be loaded: " + (why ? why : "unknown error") + " (" + search.needs + ")");
    }
    void* entry = dlsym(handle, search.entry.c_str());
    if (!entry) return make_error(candidate + " is not a tilelens " + search.what + " (no " + search.entry + ")");
    return OpenedModule{candidate, entry};
  }
  return make_error("this tilelens has no " + search.what + " (" + search.file + " is not in " + tried + "): " +
                    search.absent_because + ", or the module was moved; set " + search.env_variable + " to its path");
}

// A module whose entry returns its table (a struct whose first members are `version` and
// `layout`): the table, once checked to come from this build; a module of another version or
// layout is refused with the reason instead of being called.
template <class Table>
Result<const Table*> load_module_table(const ModuleSearch& search, std::uint32_t version, std::uint64_t layout) {
  auto opened = open_module(search);
  if (!opened) return opened.error();
  using Entry = const Table* (*)();
  const Table* table = reinterpret_cast<Entry>(opened->entry)();
  if (!table) return make_error(opened->path + " is not a tilelens " + search.what + " (" + search.entry + " gave nothing)");
  if (table->version != version || table->layout != layout) {
    const std::string why = table->version != version
                                ? "module version " + std::to_string(table->version) + ", this tilelens expects " + std::to_string(version)
                                : "the types it shares with this tilelens are laid out differently";
    return make_error("the " + search.what + " " + opened->path + " comes from another build of tilelens (" + why + "): rebuild it, or point " +
                      search.env_variable + " at the right one");
  }
  return table;
}

}  // namespace tilelens
