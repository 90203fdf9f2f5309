// The identities of what the store keeps once: a workload's content hash, a platform row's key,
// and the store's clock.
#include <chrono>
#include <ctime>
#include "db/store_internal.hpp"

namespace tilelens::db {
// Every field, as a run key without the run's own parts: two platforms differing in any field
// are two rows.
std::string platform_key(const Platform& p) { return run_key("", "", "", p, 0, RunMode::Replay); }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

Result<std::optional<std::int64_t>> find_id(Connection& c, const std::string& table, const std::string& column, const std::string& key) {
  auto find = c.prepare("SELECT id FROM " + table + " WHERE " + column + " = ?1");
  if (!find) return find.error();
  find->bind(1, key);
  auto found = find->step();
  if (!found) return found.error();
  if (!*found) return std::optional<std::int64_t>();
  return std::optional<std::int64_t>(find->integer(0));
}

}  // namespace tilelens::db
