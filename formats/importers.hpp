// The importers of real runtimes' traces, and the files each one recognises by their content,
// so that `tilelens import FILE...` needs no format named: each file is given to the importer
// that recognises it, in the role it plays there (StarPU's tasks.rec, data.rec, paje.trace).
// A new importer is one more entry in importer_registry() (importers.cpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace tilelens {

struct ImporterInfo {
  std::string name;     // "starpu": also the verb of `tilelens import NAME`
  std::string summary;  // what it imports
  // Its files' roles in the order a user gives them ("tasks", "data", "paje"); the first is required.
  std::vector<std::string> roles;
  // The role of a file that begins with `head` (its first bytes), or "" when it is none of this importer's files.
  std::function<std::string(std::string_view head)> recognise;
};

const std::vector<ImporterInfo>& importer_registry();

// Files sorted by what they are: one importer, and each role's file.
struct RecognisedFiles {
  std::string importer;
  std::map<std::string, std::string> files;  // role -> path
};
// Reads the start of each file and gives it to the importer that recognises it. Errors name
// the file: one that cannot be read, that no importer recognises, that repeats a role, or
// files of two importers; or the importer's required file when it is missing.
Result<RecognisedFiles> recognise_import_files(const std::vector<std::string>& paths);

}  // namespace tilelens
