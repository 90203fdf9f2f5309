// What runs refer to, each stored once: workloads (by content hash), platforms (by every field)
// and sweeps (by their grid), and a workload read back whole.
#include <algorithm>
#include <functional>
#include <optional>

#include "formats/workload_io.hpp"
#include "db/store_internal.hpp"

namespace tilelens::db {

namespace {

// The id of the row whose unique `column` holds `key`, made by `insert` when there is none.
// The common case, a row stored before, is found without the write lock; a new row is looked
// up again under it, since another process may have stored it while this one waited.
Result<std::int64_t> find_or_insert(Connection& c, const std::string& table, const std::string& column, const std::string& key,
                                    const std::function<Result<std::int64_t>()>& insert) {
  auto found = find_id(c, table, column, key);
  if (!found) return found.error();
  if (*found) return **found;
  std::optional<Transaction> transaction;  // none when the caller holds one
  if (!c.in_transaction()) {
    auto begun = Transaction::begin(c);
    if (!begun) return begun.error();
    transaction.emplace(std::move(*begun));
    found = find_id(c, table, column, key);
    if (!found) return found.error();
    if (*found) return **found;
  }
  auto id = insert();
  if (!id) return id.error();
  if (transaction) {
    if (auto status = transaction->commit(); !status) return status.error();
  }
  return id;
}

// A workload's rows: its own, its kinds, data, tasks with their accesses, and dependencies.
Result<std::int64_t> insert_workload(Connection& c, const Workload& w, const std::string& source, const std::string& hash) {
  const GeneratorInfo& g = w.generator();
  const bool generated = !g.name.empty();
  auto insert = prepare_insert(c, "workloads");
  if (!insert) return insert.error();
  auto when = [&](std::int64_t value) { return generated ? std::optional<std::int64_t>(value) : std::nullopt; };
  insert->bind("name", w.name())
      .bind("generator", generated ? std::optional<std::string_view>(g.name) : std::nullopt)
      .bind("spec", generated ? std::optional<std::string_view>(g.spec) : std::nullopt)
      .bind("source", source)
      .bind("content_hash", hash)
      .bind("task_count", to_int(w.task_count()))
      .bind("data_count", to_int(w.data_count()))
      .bind("dependency_count", to_int(w.dependency_count()))
      .bind("working_set_bytes", to_int(w.working_set_bytes()))
      .bind("total_flops", w.total_flops())
      .bind("N_tiles", when(g.N))
      .bind("n_inner", when(g.n))
      .bind("tile_size", when(g.b))
      .bind("element_bytes", when(g.elem))
      .bind("density", generated ? std::optional<double>(g.density) : std::nullopt)
      .bind("seed", when(static_cast<std::int64_t>(g.seed)));
  if (auto status = insert->run(); !status) return status.error();
  const std::int64_t id = c.last_insert_id();

  auto kinds = prepare_insert(c, "kinds");
  auto data = prepare_insert(c, "data");
  auto tasks = prepare_insert(c, "tasks");
  auto accesses = prepare_insert(c, "accesses");
  auto dependencies = prepare_insert(c, "dependencies");
  for (auto* s : {&kinds, &data, &tasks, &accesses, &dependencies}) {
    if (!*s) return s->error();
  }
  for (std::size_t k = 0; k < w.kinds().size(); ++k) {
    if (auto status = kinds->bind("workload_id", id).bind("id", to_int(k)).bind("name", w.kinds()[k]).run(); !status) {
      return status.error();
    }
  }
  for (DataId d = 0; d < w.data_count(); ++d) {
    const Data& item = w.data()[d];
    if (auto status = data->bind("workload_id", id)
                          .bind("id", std::int64_t{d})
                          .bind("name", item.name)
                          .bind("bytes", to_int(item.bytes))
                          .bind("matrix", std::string_view(&item.matrix, 1))
                          .bind("row", std::int64_t{item.row})
                          .bind("col", std::int64_t{item.col})
                          .bind("home", std::int64_t{item.home ? 1 : 0})
                          .run();
        !status) {
      return status.error();
    }
  }
  std::vector<std::int64_t> position(w.task_count());
  for (std::size_t p = 0; p < w.submission_order().size(); ++p) position[w.submission_order()[p]] = to_int(p);
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    if (auto status = tasks->bind("workload_id", id)
                          .bind("id", std::int64_t{t})
                          .bind("kind_id", std::int64_t{task.kind})
                          .bind("flops", task.flops)
                          .bind("priority", task.priority)
                          .bind("i", std::int64_t{task.i})
                          .bind("j", std::int64_t{task.j})
                          .bind("k", std::int64_t{task.k})
                          .bind("submit_order", position[t])
                          .run();
        !status) {
      return status.error();
    }
    std::int64_t slot = 0;
    for (const Access& a : w.accesses(t)) {
      if (auto status = accesses->bind("workload_id", id)
                            .bind("task_id", std::int64_t{t})
                            .bind("position", slot++)
                            .bind("data_id", std::int64_t{a.data})
                            .bind("mode", std::int64_t{static_cast<int>(a.mode)})
                            .run();
          !status) {
        return status.error();
      }
    }
    for (TaskId before : w.predecessors(t)) {
      if (auto status = dependencies->bind("workload_id", id).bind("before_task", std::int64_t{before}).bind("after_task", std::int64_t{t}).run();
          !status) {
        return status.error();
      }
    }
  }
  return id;
}

}  // namespace

Result<std::int64_t> Store::put_workload(const Workload& w, const std::string& source) {
  Connection& c = impl_->connection;
  const std::string hash = workload_content_hash(w);
  return find_or_insert(c, "workloads", "content_hash", hash, [&]() -> Result<std::int64_t> { return insert_workload(c, w, source, hash); });
}

Result<std::int64_t> Store::put_platform(const Platform& p) {
  Connection& c = impl_->connection;
  const std::string description = platform_key(p);
  return find_or_insert(c, "platforms", "description", description, [&]() -> Result<std::int64_t> {
    auto insert = prepare_insert(c, "platforms");
    if (!insert) return insert.error();
    insert->bind("name", p.name)
        .bind("gpus", std::int64_t{p.gpus})
        .bind("memory_bytes", p.memory_bytes)
        .bind("bus_bandwidth", p.bus_bandwidth)
        .bind("gpu_link_bandwidth", p.gpu_link_bandwidth)
        .bind("latency_ns", p.latency_ns)
        .bind("default_gflops", p.default_gflops)
        .bind("kind_gflops", format_kind_rates(p.kind_gflops))
        .bind("description", description)
        .bind("gpu_bus_bandwidth", p.gpu_bus_bandwidth)
        .bind("gpus_per_switch", std::int64_t{p.gpus_per_switch})
        .bind("copy_engines", std::int64_t{p.copy_engines})
        .bind("half_duplex", std::int64_t{p.half_duplex ? 1 : 0})
        .bind("switch_bandwidth", p.switch_bandwidth)
        .bind("workers_per_memory", std::int64_t{p.workers_per_memory})
        .bind("cpus", std::int64_t{p.cpus})
        .bind("cpu_default_gflops", p.cpu_default_gflops)
        .bind("cpu_kind_gflops", format_kind_rates(p.cpu_kind_gflops))
        .bind("worker_speeds", format_worker_speeds(p.worker_speeds));
    if (auto status = insert->run(); !status) return status.error();
    return c.last_insert_id();
  });
}

Result<std::int64_t> Store::put_sweep(const std::string& spec) {
  Connection& c = impl_->connection;
  return find_or_insert(c, "sweeps", "spec", spec, [&]() -> Result<std::int64_t> {
    auto insert = prepare_insert(c, "sweeps");
    if (!insert) return insert.error();
    if (auto status = insert->bind("spec", spec).bind("created_at", utc_now()).run(); !status) return status.error();
    return c.last_insert_id();
  });
}

Result<std::vector<Store::SweepInfo>> Store::list_sweeps() {
  std::vector<SweepInfo> sweeps;
  Status status = for_each_row(impl_->connection, "SELECT " + select_columns(schema_table("sweeps"), "s") + " FROM sweeps s WHERE id > ?1 ORDER BY id", 0,
                               [&](const Statement& row) {
                                 sweeps.push_back({row.integer("sweeps.id"), row.text("sweeps.spec"), row.text("sweeps.created_at")});
                               });
  if (!status) return status.error();
  return sweeps;
}

Result<Workload> Store::load_workload(std::int64_t workload_id) {
  Connection& c = impl_->connection;
  auto head = c.prepare("SELECT " + select_columns(schema_table("workloads"), "w") + " FROM workloads w WHERE id = ?1");
  if (!head) return head.error();
  head->bind(1, workload_id);
  auto found = head->step();
  if (!found) return found.error();
  if (!*found) return make_error(c.path() + ": no workload " + std::to_string(workload_id));
  WorkloadBuilder builder(head->text("workloads.name"));
  if (!head->is_null("workloads.generator")) {
    GeneratorInfo g;
    g.name = head->text("workloads.generator");
    g.spec = head->text("workloads.spec");
    g.N = head->integer("workloads.N_tiles");
    g.n = head->integer("workloads.n_inner");
    g.b = head->integer("workloads.tile_size");
    g.elem = head->integer("workloads.element_bytes");
    g.density = head->real("workloads.density");
    g.seed = static_cast<std::uint64_t>(head->integer("workloads.seed"));
    builder.set_generator(std::move(g));
  }
  const auto select = [](std::string_view table, std::string_view order) {
    return "SELECT " + select_columns(schema_table(table), "t") + " FROM " + std::string(table) + " t WHERE workload_id = ?1 ORDER BY " +
           std::string(order);
  };
  auto for_rows = [&](const std::string& sql, auto&& read) { return for_each_row(c, sql, workload_id, read); };
  std::vector<KindId> kinds;
  Status status = for_rows(select("kinds", "id"), [&](const Statement& s) { kinds.push_back(builder.kind(s.text("kinds.name"))); });
  if (!status) return status.error();
  status = for_rows(select("data", "id"), [&](const Statement& s) {
    const std::string matrix = s.text("data.matrix");
    builder.add_data({s.text("data.name"), static_cast<std::uint64_t>(s.integer("data.bytes")), matrix.empty() ? '-' : matrix[0],
                      static_cast<std::int32_t>(s.integer("data.row")), static_cast<std::int32_t>(s.integer("data.col")),
                      s.integer("data.home") != 0});
  });
  if (!status) return status.error();
  // Tasks and their accesses in one ordered pass over both tables.
  auto access_query = c.prepare(select("accesses", "task_id, position"));
  if (!access_query) return access_query.error();
  access_query->bind(1, workload_id);
  auto access_row = access_query->step();
  if (!access_row) return access_row.error();
  bool more_accesses = *access_row;
  std::vector<Access> accesses;
  std::vector<std::pair<std::int64_t, TaskId>> order;
  Error read_error;
  bool failed = false;
  status = for_rows(select("tasks", "id"), [&](const Statement& s) {
    const std::int64_t id = s.integer("tasks.id");
    accesses.clear();
    while (more_accesses && access_query->integer("accesses.task_id") == id) {
      const std::int64_t mode = access_query->integer("accesses.mode");
      if ((mode < 0 || mode > 2) && !failed) {
        failed = true;
        read_error = make_error(c.path() + ": task " + std::to_string(id) + " of workload " + std::to_string(workload_id) +
                                " has access mode " + std::to_string(mode) + " (valid: 0, 1, 2)");
      }
      accesses.push_back({static_cast<DataId>(access_query->integer("accesses.data_id")),
                          static_cast<AccessMode>(std::clamp<std::int64_t>(mode, 0, 2))});
      auto next = access_query->step();
      if (!next) {
        failed = true;
        read_error = next.error();
        more_accesses = false;
        break;
      }
      more_accesses = *next;
    }
    const auto kind = static_cast<std::size_t>(s.integer("tasks.kind_id"));
    if (kind >= kinds.size()) {
      // Every such task is left out, not only the first: the rows after it read no kind either.
      if (!failed) {
        failed = true;
        read_error = make_error(c.path() + ": task " + std::to_string(id) + " of workload " + std::to_string(workload_id) + " has kind " +
                                std::to_string(kind) + ", not in its kinds table");
      }
      return;
    }
    const TaskId task = builder.add_task(kinds[kind], accesses, s.real("tasks.flops"), static_cast<std::int32_t>(s.integer("tasks.i")),
                                         static_cast<std::int32_t>(s.integer("tasks.j")), static_cast<std::int32_t>(s.integer("tasks.k")),
                                         s.integer("tasks.priority"));
    order.emplace_back(s.integer("tasks.submit_order"), task);
  });
  if (!status) return status.error();
  if (failed) return read_error;
  status = for_rows(select("dependencies", "after_task, before_task"), [&](const Statement& s) {
    builder.add_dependency(static_cast<TaskId>(s.integer("dependencies.before_task")), static_cast<TaskId>(s.integer("dependencies.after_task")));
  });
  if (!status) return status.error();
  std::sort(order.begin(), order.end());
  std::vector<TaskId> submission;
  submission.reserve(order.size());
  for (const auto& entry : order) submission.push_back(entry.second);
  builder.set_submission_order(std::move(submission));
  auto workload = std::move(builder).finish();
  if (!workload) return make_error(c.path() + ": workload " + std::to_string(workload_id) + " is inconsistent: " + workload.error().message);
  return workload;
}

}  // namespace tilelens::db
