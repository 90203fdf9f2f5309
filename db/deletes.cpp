// Deleting runs with everything recorded for them, and the workloads no run uses any more.
// The tables visited come from the schema: every table with a run_id (or a workload_id) column.
#include "db/store_internal.hpp"

namespace tilelens::db {

Status erase_run(Connection& c, std::int64_t run_id) {
  for (std::string_view table : run_tables()) {
    auto erase = c.prepare("DELETE FROM " + std::string(table) + " WHERE run_id = ?1");
    if (!erase) return erase.error();
    if (auto status = erase->bind(1, run_id).run(); !status) return status;
  }
  auto erase = c.prepare("DELETE FROM runs WHERE id = ?1");
  if (!erase) return erase.error();
  return erase->bind(1, run_id).run();
}

Status Store::delete_runs(const std::vector<std::int64_t>& run_ids) {
  Connection& c = impl_->connection;
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  for (std::int64_t id : run_ids) {
    auto exists = c.prepare("SELECT 1 FROM runs WHERE id = ?1");
    if (!exists) return exists.error();
    exists->bind(1, id);
    auto found = exists->step();
    if (!found) return found.error();
    if (!*found) return make_error(c.path() + ": no run " + std::to_string(id) + "; nothing was deleted");
    if (auto status = erase_run(c, id); !status) return status;
  }
  // Workloads no run refers to any more go too: they can be large and are easy to store again.
  for (std::string_view table : workload_tables()) {
    if (auto status = c.exec("DELETE FROM " + std::string(table) + " WHERE workload_id NOT IN (SELECT workload_id FROM runs)"); !status) {
      return status;
    }
  }
  if (auto status = c.exec("DELETE FROM workloads WHERE id NOT IN (SELECT workload_id FROM runs)"); !status) return status;
  return transaction->commit();
}

}  // namespace tilelens::db
