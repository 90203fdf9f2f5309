// The importers' registry and the recognition of their files; see importers.hpp.
#include "formats/importers.hpp"

#include <fstream>

namespace tilelens {
namespace {

// Whether some line of `head` starts with `prefix` (a record's field, a trace's header).
bool has_line_starting(std::string_view head, std::string_view prefix) {
  std::size_t at = 0;
  while (at < head.size()) {
    if (head.substr(at).starts_with(prefix)) return true;
    const std::size_t end = head.find('\n', at);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return false;
}

// starpu_fxt_tool's files: tasks.rec records carry JobId, data.rec records a Handle and no
// JobId, and a Paje trace opens with its event definitions.
std::string recognise_starpu(std::string_view head) {
  if (has_line_starting(head, "%EventDef")) return "paje";
  if (has_line_starting(head, "JobId:")) return "tasks";
  if (has_line_starting(head, "Handle:")) return "data";
  return "";
}

constexpr std::size_t kHeadBytes = 1 << 16;  // enough for several records, or a Paje header

}  // namespace

const std::vector<ImporterInfo>& importer_registry() {
  static const std::vector<ImporterInfo> importers = {
      {"starpu", "a StarPU execution written by starpu_fxt_tool (tasks.rec, data.rec, paje.trace)", {"tasks", "data", "paje"},
       recognise_starpu},
  };
  return importers;
}

Result<RecognisedFiles> recognise_import_files(const std::vector<std::string>& paths) {
  if (paths.empty()) return make_error("no file to import");
  RecognisedFiles out;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(path + ": cannot open");
    std::string head(kHeadBytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    std::string importer, role;
    for (const ImporterInfo& info : importer_registry()) {
      role = info.recognise(head);
      if (!role.empty()) {
        importer = info.name;
        break;
      }
    }
    if (role.empty()) {
      std::string known;
      for (const ImporterInfo& info : importer_registry()) known += (known.empty() ? "" : "; ") + info.summary;
      return make_error(path + ": not a file tilelens can import (it knows " + known + ")");
    }
    if (!out.importer.empty() && out.importer != importer) {
      return make_error(path + ": a " + importer + " file, and the files before it are " + out.importer + "'s: import them separately");
    }
    out.importer = importer;
    if (const auto [it, added] = out.files.emplace(role, path); !added) {
      return make_error(path + ": a second " + role + " file (" + it->second + " is one already)");
    }
  }
  for (const ImporterInfo& info : importer_registry()) {
    if (info.name == out.importer && !out.files.count(info.roles.front())) {
      return make_error("no " + info.roles.front() + " file among the " + std::to_string(paths.size()) + " given: " + info.name +
                        " needs one (" + info.summary + ")");
    }
  }
  return out;
}

}  // namespace tilelens
