// Claims on the runs of a sweep, so that two processes sweeping one grid into one file share
// the work instead of replaying and storing every run twice; see store.hpp.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>

#include "db/store_internal.hpp"

namespace tilelens::db {
namespace {

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// Whether the process that made a claim may still be running. On this host the kernel knows;
// a claim from another host (a database on a shared file system) is trusted.
bool claimant_alive(const std::string& host, std::int64_t pid) {
  if (host != host_name()) return true;
  if (pid <= 0 || pid > INT_MAX) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::string Store::new_claim_owner() {
  static std::atomic<std::uint64_t> next{0};
  return host_name() + ":" + std::to_string(getpid()) + ":" + std::to_string(next++);
}

Result<Store::Claim> Store::claim_run(std::int64_t sweep_id, const std::string& run_key, const std::string& owner) {
  Connection& c = impl_->connection;
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  auto stored = c.prepare("SELECT 1 FROM runs WHERE sweep_id = ?1 AND run_key = ?2 AND status = 'complete'");
  if (!stored) return stored.error();
  stored->bind(1, sweep_id).bind(2, run_key);
  auto is_stored = stored->step();
  if (!is_stored) return is_stored.error();
  if (*is_stored) return Claim{Claim::Outcome::Stored, ""};

  auto held = c.prepare("SELECT owner, host, pid FROM run_claims WHERE sweep_id = ?1 AND run_key = ?2");
  if (!held) return held.error();
  held->bind(1, sweep_id).bind(2, run_key);
  auto is_held = held->step();
  if (!is_held) return is_held.error();
  if (*is_held && held->text(0) == owner) return Claim{Claim::Outcome::Duplicate, ""};
  if (*is_held && claimant_alive(held->text(1), held->integer(2))) {
    return Claim{Claim::Outcome::Running, "process " + std::to_string(held->integer(2)) + " on " + held->text(1)};
  }
  auto insert = c.prepare("INSERT OR REPLACE INTO run_claims (sweep_id, run_key, owner, host, pid, claimed_at) "
                          "VALUES (:sweep_id, :run_key, :owner, :host, :pid, :claimed_at)");
  if (!insert) return insert.error();
  if (auto status = insert->bind("sweep_id", sweep_id)
                        .bind("run_key", run_key)
                        .bind("owner", owner)
                        .bind("host", host_name())
                        .bind("pid", static_cast<std::int64_t>(getpid()))
                        .bind("claimed_at", utc_now())
                        .run();
      !status) {
    return status.error();
  }
  if (auto status = transaction->commit(); !status) return status.error();
  return Claim{Claim::Outcome::Claimed, ""};
}

Status Store::release_claims(std::int64_t sweep_id, const std::string& owner) {
  auto release = impl_->connection.prepare("DELETE FROM run_claims WHERE sweep_id = ?1 AND owner = ?2");
  if (!release) return release.error();
  return release->bind(1, sweep_id).bind(2, owner).run();
}

Result<Store> Store::reopen(int busy_ms) const {
  auto connection = Connection::open(path(), Connection::Access::ReadWrite, busy_ms);
  if (!connection) return connection.error();
  auto impl = std::make_unique<Impl>();
  impl->connection = std::move(*connection);
  return Store(std::move(impl));
}

}  // namespace tilelens::db
