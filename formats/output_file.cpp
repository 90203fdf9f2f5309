// Checked file output; see output_file.hpp.
#include "formats/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tilelens {

Status write_output_file(const std::string& path, const std::function<Status(std::ostream&)>& write) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  const bool in_place = type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::regular;
  if (type == std::filesystem::file_type::directory) return make_error(path + ": is a directory");
  const std::string target = in_place ? path : path + ".partial";
  std::ofstream file(target, std::ios::binary);
  if (!file) return make_error(path + ": cannot write: " + std::strerror(errno));
  Status status = write(file);
  file.flush();
  const bool written = static_cast<bool>(file);
  file.close();
  if (status && (!written || file.fail())) status = make_error(path + ": writing failed (disk full?)");
  if (!status) {
    if (!in_place) std::filesystem::remove(target, ec);
    return status;
  }
  if (!in_place) {
    std::filesystem::rename(target, path, ec);
    if (ec) {
      std::filesystem::remove(target, ec);
      return make_error(path + ": cannot move the finished file into place: " + ec.message());
    }
  }
  return Status::success();
}

Status write_output_file(const std::string& path, const std::string& text) {
  return write_output_file(path, [&](std::ostream& out) {
    out << text;
    return Status::success();
  });
}

}  // namespace tilelens
