// Real StarPU 1.3 traces (tests/starpu/fixtures, recorded by tests/starpu/record_fixtures.sh
// from tests/starpu/tiled_apps.c) imported as a user would, and checked against the manifest of
// what the program submitted: every task kept with its kind and accesses, every registration its
// own data with its own size, the dependencies StarPU's sequential semantics imply, lanes that
// never overlap (two MPI ranks included), measured times that respect the dependencies, flops
// where the trace gives none, and the transfers of the out-of-core runs.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "db/store.hpp"
#include "formats/starpu_import.hpp"
#include "model/kernels.hpp"
#include "schedulers/scheduler.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

const std::string kFixtures = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/";

struct SubmittedAccess {
  AccessMode mode;
  std::string matrix;  // "A", "B", or "token" (the handle of size 0)
  int i, j;
};
struct SubmittedTask {
  std::string kind;
  double flops;
  std::vector<SubmittedAccess> accesses;
};
struct Manifest {
  std::map<std::tuple<std::string, int, int>, std::uint64_t> bytes;  // per registration name (A, B) and tile
  std::vector<SubmittedTask> tasks;  // this rank's, in submission order
};

Manifest read_manifest(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  Manifest m;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string what;
    words >> what;
    if (what == "data") {
      std::string name;
      int i, j, owner;
      std::uint64_t bytes;
      words >> name >> i >> j >> bytes >> owner;
      m.bytes[{name, i, j}] = bytes;
    } else if (what == "task") {
      SubmittedTask t;
      std::size_t seq;
      words >> seq >> t.kind >> t.flops;
      std::string access;
      while (words >> access) {
        std::replace(access.begin(), access.end(), ':', ' ');
        std::istringstream parts(access);
        std::string mode, matrix;
        int i, j;
        parts >> mode >> matrix >> i >> j;
        t.accesses.push_back({mode == "R" ? AccessMode::Read : mode == "W" ? AccessMode::Write : AccessMode::ReadWrite, matrix, i, j});
      }
      m.tasks.push_back(std::move(t));
    }
  }
  return m;
}

StarpuExecution import_fixture(const std::string& name, std::optional<std::int64_t> rank = std::nullopt) {
  const std::string dir = kFixtures + name + "/";
  auto imported = import_starpu_files(dir + "tasks.rec", dir + "data.rec", dir + "paje.trace", {name, rank});
  INFO(name << ": " << (imported ? "" : imported.error().message));
  REQUIRE(imported.ok());
  return std::move(*imported);
}

// Whether `to` is reachable from `from` in the workload's DAG.
bool reaches(const Workload& w, TaskId from, TaskId to) {
  std::vector<char> seen(w.task_count(), 0);
  std::vector<TaskId> stack{from};
  while (!stack.empty()) {
    const TaskId t = stack.back();
    stack.pop_back();
    if (t == to) return true;
    for (TaskId s : w.successors(t)) {
      if (!seen[s]) {
        seen[s] = 1;
        stack.push_back(s);
      }
    }
  }
  return false;
}

// Checks one rank's tasks (imported ids first..first+count) against its manifest; returns the
// registrations its tasks touched.
void check_rank(const StarpuExecution& e, const Manifest& m, TaskId first, std::int64_t rank, bool ranks_named) {
  const Workload& w = e.workload;
  REQUIRE(first + m.tasks.size() <= w.task_count());
  // The data of the previous registration with that name and tile: a write to it in manifest
  // order, and the readers since, give the dependencies StarPU's sequential consistency implies.
  std::map<std::tuple<std::string, int, int>, TaskId> last_writer;
  std::map<std::tuple<std::string, int, int>, std::vector<TaskId>> readers_since;
  std::map<std::tuple<std::string, int, int>, DataId> data_of;
  for (std::size_t s = 0; s < m.tasks.size(); ++s) {
    const SubmittedTask& submitted = m.tasks[s];
    const TaskId t = first + static_cast<TaskId>(s);
    INFO("rank " << rank << " task " << s << " (" << submitted.kind << ")");
    REQUIRE(w.kinds()[w.tasks()[t].kind] == submitted.kind);
    // Flops: the application's where it gave them (GFlop rounds to 1e-6), a kernel's count or the
    // measured-time equivalent where it did not; never none.
    if (submitted.flops > 0) {
      CHECK(w.tasks()[t].flops == Approx(submitted.flops).margin(501));
    } else if (auto counted = kernel_flops(submitted.kind, 128)) {
      if (submitted.accesses.back().matrix == "A") CHECK(w.tasks()[t].flops == Approx(*counted));
    }
    CHECK(w.tasks()[t].flops > 0);
    // Accesses: the token (size 0) is left out; each tile is the data of its registration.
    std::vector<SubmittedAccess> tiles;
    for (const auto& a : submitted.accesses) {
      if (a.matrix != "token") tiles.push_back(a);
    }
    const auto accesses = w.accesses(t);
    REQUIRE(accesses.size() == tiles.size());
    for (std::size_t a = 0; a < tiles.size(); ++a) {
      const Data& d = w.data()[accesses[a].data];
      const auto key = std::tuple{tiles[a].matrix, tiles[a].i, tiles[a].j};
      CHECK(accesses[a].mode == tiles[a].mode);
      CHECK(d.matrix == tiles[a].matrix[0]);
      CHECK(d.row == tiles[a].i);
      CHECK(d.col == tiles[a].j);
      CHECK(d.bytes == m.bytes.at(key));
      if (ranks_named) CHECK(d.name.rfind("r" + std::to_string(rank) + ".", 0) == 0);
      // One data per registration: the same tile of the same registration is always the same data.
      const auto [it, added] = data_of.emplace(key, accesses[a].data);
      CHECK(it->second == accesses[a].data);
      // The task's place is its output tile.
      if (tiles[a].mode != AccessMode::Read) {
        CHECK(w.tasks()[t].i == tiles[a].i);
        CHECK(w.tasks()[t].j == tiles[a].j);
      }
    }
    for (const auto& a : tiles) {
      const auto key = std::tuple{a.matrix, a.i, a.j};
      if (auto writer = last_writer.find(key); writer != last_writer.end()) CHECK(reaches(w, writer->second, t));
      if (a.mode != AccessMode::Read) {
        for (TaskId reader : readers_since[key]) CHECK(reaches(w, reader, t));
        last_writer[key] = t;
        readers_since[key].clear();
      } else {
        readers_since[key].push_back(t);
      }
    }
  }
  // Tiles registered again (then-lu: A, then B at the same addresses) are other data.
  std::set<DataId> distinct;
  for (const auto& [key, id] : data_of) distinct.insert(id);
  CHECK(distinct.size() == data_of.size());
}

void check_measured(const StarpuExecution& e) {
  const Workload& w = e.workload;
  // Every task ran once, on a lane of its own rank and worker, one task at a time per lane.
  REQUIRE(e.trace.tasks.size() == w.task_count());
  CHECK(e.unexecuted_tasks == 0);
  std::vector<std::int64_t> start(w.task_count(), -1), end(w.task_count(), -1);
  std::map<GpuId, std::vector<std::pair<std::int64_t, std::int64_t>>> per_lane;
  for (const TaskRecord& r : e.trace.tasks) {
    REQUIRE(r.gpu < e.lanes.size());
    CHECK(start[r.task] == -1);
    start[r.task] = r.start_ns;
    end[r.task] = r.end_ns;
    CHECK(r.end_ns > r.start_ns);
    per_lane[r.gpu].push_back({r.start_ns, r.end_ns});
  }
  for (auto& [lane, spans] : per_lane) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second);
  }
  // StarPU ran each task after its predecessors ended.
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (TaskId p : w.predecessors(t)) CHECK(end[p] <= start[t]);
  }
  CHECK(e.summary.makespan_ns == *std::max_element(end.begin(), end.end()));
  CHECK(e.gpus + e.cpus == e.lanes.size());
}

}  // namespace

TEST_CASE("real StarPU traces import every task, registration and dependency the program submitted", "[starpu][fixtures]") {
  for (const std::string name : {"cholesky", "cholesky-out-of-core", "lu", "lu-out-of-core", "cholesky-then-lu"}) {
    INFO(name);
    const StarpuExecution e = import_fixture(name);
    const Manifest m = read_manifest(kFixtures + name + "/manifest.txt");
    REQUIRE(e.workload.task_count() == m.tasks.size());
    check_rank(e, m, 0, 0, false);
    check_measured(e);
    // CPU workers sharing the RAM: one bounded memory of every worker.
    CHECK(e.cpus == 0);
    CHECK(e.workers_per_memory == e.gpus);
    CHECK(e.transfers_recorded);
  }
}

TEST_CASE("a reused handle address is a new data with its own size", "[starpu][fixtures]") {
  const StarpuExecution e = import_fixture("cholesky-then-lu");
  const Manifest m = read_manifest(kFixtures + "cholesky-then-lu/manifest.txt");
  // The program registers A (6 x 6 tiles of 128 KiB) then B (of 72 KiB) at StarPU's reused addresses.
  std::map<char, std::pair<std::size_t, std::set<std::uint64_t>>> by_matrix;
  for (const Data& d : e.workload.data()) {
    ++by_matrix[d.matrix].first;
    by_matrix[d.matrix].second.insert(d.bytes);
  }
  CHECK(by_matrix['A'].first == 36);
  CHECK(by_matrix['B'].first == 36);
  CHECK(by_matrix['A'].second == std::set<std::uint64_t>{m.bytes.at({"A", 0, 0})});
  CHECK(by_matrix['B'].second == std::set<std::uint64_t>{m.bytes.at({"B", 0, 0})});
  for (const auto& warning : e.report.warnings) CHECK(warning.find("Sizes") == std::string::npos);  // no disagreement left
}

TEST_CASE("two MPI ranks import on lanes of their own, or one rank alone", "[starpu][fixtures]") {
  const StarpuExecution both = import_fixture("cholesky-2-ranks");
  const Manifest rank0 = read_manifest(kFixtures + "cholesky-2-ranks/manifest.txt.0");
  const Manifest rank1 = read_manifest(kFixtures + "cholesky-2-ranks/manifest.txt.1");
  REQUIRE(both.workload.task_count() == rank0.tasks.size() + rank1.tasks.size());
  check_rank(both, rank0, 0, 0, true);
  check_rank(both, rank1, static_cast<TaskId>(rank0.tasks.size()), 1, true);
  check_measured(both);
  std::set<std::int64_t> ranks;
  for (const StarpuLane& lane : both.lanes) ranks.insert(lane.rank);
  CHECK(ranks == std::set<std::int64_t>{0, 1});
  CHECK(both.lanes.size() == 4);
  CHECK(both.workers_per_memory == 2);  // each rank's two workers share its RAM

  const StarpuExecution one = import_fixture("cholesky-2-ranks", 1);
  REQUIRE(one.workload.task_count() == rank1.tasks.size());
  check_rank(one, rank1, 0, 1, false);
  check_measured(one);
  CHECK(one.lanes.size() == 2);
}

TEST_CASE("two ranks merged into one (no MPIRank) are refused, naming the overlapping tasks", "[starpu][fixtures]") {
  // What an importer keyed on WorkerId alone sees: rank 1's tasks on rank 0's workers.
  std::ifstream in(kFixtures + "cholesky-2-ranks/tasks.rec");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at = text.find("MPIRank: 1"); at != std::string::npos; at = text.find("MPIRank: 1", at)) text.replace(at, 10, "MPIRank: 0");
  std::istringstream tasks(text);
  StarpuSources sources;
  sources.tasks = &tasks;
  auto merged = import_starpu(sources, {"merged", std::nullopt});
  REQUIRE_FALSE(merged.ok());
  CHECK_THAT(merged.error().message, Catch::Contains("tasks.rec:") && Catch::Contains("JobId") && Catch::Contains("a worker runs one task at a time"));
}

TEST_CASE("the out-of-core runs' transfers are loads into the RAM and write-backs to the disk", "[starpu][fixtures]") {
  for (const std::string name : {"cholesky-out-of-core", "lu-out-of-core"}) {
    INFO(name);
    const StarpuExecution e = import_fixture(name);
    const Workload& w = e.workload;
    std::size_t links = 0;
    {
      std::ifstream paje(kFixtures + name + "/paje.trace");
      std::string line;
      while (std::getline(paje, line)) links += line.rfind("18\t", 0) == 0 && line.find("com_") != std::string::npos;
    }
    REQUIRE(links > 0);
    // Every transfer is one or the other: the disk has no workers.
    CHECK(e.trace.loads.size() + e.trace.writebacks.size() == links);
    CHECK(e.summary.loads == e.trace.loads.size());
    CHECK(e.trace.loads.size() > 0);
    std::map<TaskId, std::int64_t> start;
    std::map<TaskId, GpuId> lane;
    for (const TaskRecord& r : e.trace.tasks) {
      start[r.task] = r.start_ns;
      lane[r.task] = r.gpu;
    }
    for (const LoadRecord& l : e.trace.loads) {
      CHECK(l.source == kFromHost);
      CHECK(l.bytes == w.data()[l.data].bytes);
      CHECK(l.end_ns >= l.issue_ns);
      if (l.task == kNoId) {
        CHECK(l.kind == LoadKind::Unused);
        continue;
      }
      // The task it served reads the data, on the memory it arrived in, after it arrived.
      const auto accesses = w.accesses(l.task);
      CHECK(std::any_of(accesses.begin(), accesses.end(), [&](const Access& a) { return a.data == l.data && a.mode != AccessMode::Write; }));
      CHECK(start[l.task] >= l.end_ns);
    }
    for (const WritebackRecord& b : e.trace.writebacks) CHECK(b.bytes == w.data()[b.data].bytes);
  }
}

TEST_CASE("an imported run calibrates, replays on its calibration and passes through fidelity", "[starpu][fixtures][cli]") {
  TempFile database("fixture.db");
  TempFile platform("fixture-platform.json");
  TempFile workload("fixture.workload");
  const std::string dir = kFixtures + "lu-out-of-core/";
  const auto imported = cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--paje", dir + "paje.trace", "--scheduler",
                             "dmdar", "--memory", "2MiB", "--db", database.path, "--workload-out", workload.path});
  INFO(imported.out << imported.err);
  REQUIRE(imported.code == 0);
  CHECK_THAT(imported.out, Catch::Contains("replays as dmdar") && Catch::Contains("loads ("));
  {
    // The import's notes and warnings are stored with the run: runs show prints every one.
    const auto shown = cli({"runs", "show", "1", "--db", database.path});
    REQUIRE(shown.code == 0);
    std::istringstream lines(imported.out + imported.err);
    std::size_t said = 0;
    for (std::string line; std::getline(lines, line);) {
      std::string text;
      if (line.rfind("note         ", 0) == 0) text = line.substr(13);
      if (line.rfind("tilelens: warning: ", 0) == 0) text = line.substr(19);
      if (text.empty()) continue;
      ++said;
      CHECK_THAT(shown.out, Catch::Contains(text));
    }
    CHECK(said > 0);
    auto store = db::Store::open(database.path);
    REQUIRE(store);
    auto run = store->load_run(1);
    REQUIRE(run);
    CHECK(run->import_report.notes.size() + run->import_report.warnings.size() == said);
  }
  const auto calibrated = cli({"calibrate", "--run", "1", "--db", database.path, "--output", platform.path});
  INFO(calibrated.err);
  REQUIRE(calibrated.code == 0);
  // The calibrated platform has the measured layout: 2 workers sharing one memory.
  std::ifstream file(platform.path);
  const std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK_THAT(json, Catch::Contains("\"gpus\": 2") && Catch::Contains("\"workers_per_memory\": 2"));
  const auto replayed = cli({"replay", "--workload", workload.path, "--platform", platform.path, "--scheduler", "dmdar"});
  INFO(replayed.out << replayed.err);
  CHECK(replayed.code == 0);
  const auto fidelity = cli({"fidelity", "--run", "1", "--db", database.path, "--store"});
  INFO(fidelity.out << fidelity.err);
  REQUIRE(fidelity.code == 0);
  CHECK_THAT(fidelity.out, Catch::Contains("measured") && Catch::Contains("replayed") && Catch::Contains("loads"));
  // StarPU's transfers next to the replay's.
  const auto compare = cli({"runs", "compare", "1", "2", "--db", database.path});
  INFO(compare.err);
  REQUIRE(compare.code == 0);
  CHECK_THAT(compare.out, Catch::Contains("starpu") && Catch::Contains("replay") && Catch::Contains("data loaded"));
}

TEST_CASE("every scheduler replays an imported run with its compute-only tasks", "[starpu][fixtures]") {
  const StarpuExecution e = import_fixture("cholesky-2-ranks");
  const Workload& w = e.workload;
  REQUIRE(std::any_of(w.tasks().begin(), w.tasks().end(), [&](const Task& t) { return t.access_count == 0; }));
  const Platform platform = small_platform(6.0 * 128 * 128 * 8, 2);
  for (const SchedulerInfo& info : scheduler_registry()) {
    if (info.name == "optimum") continue;  // searches small instances on one GPU only (tests/schedulers/test_optimum.cpp)
    if (info.name == "fixed") continue;    // replays a schedule file (tests/schedulers/test_fixed_order.cpp)
    INFO(info.name);
    const Run run = run_replay(w, info.name, "lru", platform);
    CHECK(check_invariants(w, platform, run).empty());
    CHECK(run.summary.tasks == w.task_count());
  }
}

TEST_CASE("fidelity on a run imported without its scheduler says how to give it", "[starpu][fixtures][cli]") {
  TempFile database("fixture-noscheduler.db");
  const std::string dir = kFixtures + "cholesky/";
  const auto imported = cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--db", database.path});
  REQUIRE(imported.code == 0);
  CHECK_THAT(imported.out, Catch::Contains("transfers    not recorded") && Catch::Contains("scheduler    not given"));
  const auto fidelity = cli({"fidelity", "--run", "1", "--db", database.path});
  CHECK(fidelity.code != 0);
  CHECK_THAT(fidelity.err, Catch::Contains("--scheduler NAME"));
  const auto unknown = cli({"import", "starpu", dir + "tasks.rec", "--scheduler", "nosuch"});
  CHECK(unknown.code != 0);
  CHECK_THAT(unknown.err, Catch::Contains("dmdar") && Catch::Contains("'nosuch'"));
}

// A tasks.rec cut anywhere inside its last records, as a copy of a file still being written
// would be: refused naming the cut record, or with --lenient imported without it, saying so;
// never imported in silence with a task less.
TEST_CASE("a tasks.rec cut inside a record is refused, or left out with --lenient, never imported in silence", "[starpu][fixtures]") {
  const std::string whole = file_text(kFixtures + "lu/tasks.rec");
  const std::string data = file_text(kFixtures + "lu/data.rec");
  const auto import_text = [&](const std::string& tasks, bool lenient) {
    std::istringstream tasks_in(tasks), data_in(data);
    StarpuSources sources;
    sources.tasks = &tasks_in;
    sources.data = &data_in;
    StarpuImportOptions options;
    options.lenient = lenient;
    return import_starpu(sources, options);
  };
  const auto complete = import_text(whole, false);
  REQUIRE(complete.ok());
  // Every cut within the last 60 lines: at a line's end, and in the middle of a line.
  std::vector<std::size_t> line_ends;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (whole[i] == '\n') line_ends.push_back(i + 1);
  }
  REQUIRE(line_ends.size() > 60);
  std::size_t refused = 0, at_boundary = 0;
  for (std::size_t k = line_ends.size() - 60; k + 1 < line_ends.size(); ++k) {
    for (const std::size_t cut : {line_ends[k], line_ends[k] - 3}) {
      const std::string part = whole.substr(0, cut);
      INFO("cut at byte " << cut);
      const bool after_blank = part.size() >= 2 && part.compare(part.size() - 2, 2, "\n\n") == 0;
      auto strict = import_text(part, false);
      if (after_blank) {  // a whole number of records: nothing tells it from a shorter run
        ++at_boundary;
        REQUIRE(strict.ok());
        continue;
      }
      // A cut right after a record's last field cannot be told either; anything else can.
      if (strict.ok()) {
        CHECK(part.back() == '\n');
        continue;
      }
      ++refused;
      CHECK_THAT(strict.error().message, Catch::Contains("the last record is cut") && Catch::Contains("--lenient"));
      auto lenient = import_text(part, true);
      REQUIRE(lenient.ok());
      bool said = false;
      for (const auto& warning : lenient->report.warnings) said = said || warning.find("left out the last record") != std::string::npos;
      CHECK(said);
      CHECK(lenient->workload.task_count() <= complete->workload.task_count());  // the last records may be StarPU's own
      // The cut record is accounted for, last, as left out.
      REQUIRE_FALSE(lenient->report.records.empty());
      CHECK(lenient->report.records.back().fate == "left out");
      CHECK_THAT(lenient->report.records.back().reason, Catch::Contains("the file ends inside it"));
    }
  }
  CHECK(at_boundary >= 2);
  CHECK(refused >= 60);
}

// Every record of a tasks file is in the import report, one by one, in the file's order: each
// JobId once, as many kept as the workload has tasks, and every skipped one with its reason;
// stored with the run and listed again by `runs show --records`.
TEST_CASE("the import report accounts for every record of tasks.rec, and the store keeps it", "[starpu][fixtures][cli]") {
  for (const std::string name : {"lu", "lu-out-of-core", "cholesky-2-ranks", "cholesky-then-lu"}) {
    INFO(name);
    const StarpuExecution e = import_fixture(name);
    const std::string text = file_text(kFixtures + name + "/tasks.rec");
    // Records: blocks of field lines between blank lines.
    std::size_t records = 0;
    bool inside = false;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      const bool field = !line.empty() && line[0] != '#';
      records += field && !inside ? 1 : 0;
      inside = field || (inside && !line.empty());
    }
    REQUIRE(e.report.records.size() == records);
    std::size_t kept = 0, previous_line = 0;
    std::set<std::string> places;
    for (const ImportReport::Record& r : e.report.records) {
      const std::size_t line = std::stoul(r.where.substr(r.where.rfind(':') + 1));
      CHECK(line > previous_line);  // in the file's order
      previous_line = line;
      CHECK(r.where.find("tasks.rec:") != std::string::npos);
      CHECK_FALSE(r.reason.empty());
      CHECK(places.insert(r.where).second);  // each record once (JobIds repeat across MPI ranks)
      kept += r.fate == "kept" ? 1 : 0;
      if (r.fate == "skipped") CHECK_THAT(r.reason, Catch::Contains("StarPU") || Catch::Contains("MPI rank"));
    }
    CHECK(kept == e.workload.task_count());
  }
  // The ghost records of a two-rank run are skipped, each with why; the store gives them back.
  TempFile database("fixture-records.db");
  const std::string dir = kFixtures + "cholesky-2-ranks/";
  const auto imported = cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--db", database.path});
  REQUIRE(imported.code == 0);
  CHECK_THAT(imported.out, Catch::Contains("records      ") && Catch::Contains("kept as tasks"));
  const auto shown = cli({"runs", "show", "1", "--db", database.path, "--records"});
  REQUIRE(shown.code == 0);
  const StarpuExecution e = import_fixture("cholesky-2-ranks");
  std::size_t listed = 0;
  for (const ImportReport::Record& r : e.report.records) {
    listed += shown.out.find("record       " + record_line(r) + "\n") != std::string::npos ? 1 : 0;
  }
  CHECK(listed == e.report.records.size());
  auto store = db::Store::open(database.path, db::Store::OpenMode::ReadOnly);
  REQUIRE(store.ok());
  auto run = store->load_run(1);
  REQUIRE(run.ok());
  REQUIRE(run->import_report.records.size() == e.report.records.size());
  CHECK(run->import_report.records.front().where == e.report.records.front().where);
}

TEST_CASE("calibrate and fidelity say what a run without transfers did not record, never 0", "[starpu][fixtures][cli]") {
  TempFile database("fixture-notransfers.db");
  const std::string dir = kFixtures + "lu/";
  REQUIRE(cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--scheduler", "dmdar", "--db", database.path}).code == 0);
  const auto calibrated = cli({"calibrate", "--run", "1", "--db", database.path});
  REQUIRE(calibrated.code == 0);
  CHECK_THAT(calibrated.err, Catch::Contains("loads from the host: not recorded") && Catch::Contains("from platform 'starpu'"));
  CHECK_THAT(calibrated.err, !Catch::Contains("schema version 8"));
  const auto fidelity = cli({"fidelity", "--run", "1", "--db", database.path});
  REQUIRE(fidelity.code == 0);
  CHECK_THAT(fidelity.out, Catch::Contains("not recorded") && Catch::Contains("cannot be compared") && Catch::Contains("calibrated-run-1"));
  CHECK_THAT(fidelity.out, !Catch::Contains("the loads differ") && !Catch::Contains("measured on ?"));
  const auto json = cli({"fidelity", "--run", "1", "--db", database.path, "--json"});
  REQUIRE(json.code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"loads\":{\"measured\":null"));
}

TEST_CASE("tilelens import FILE... recognises StarPU's files by their content, in any order", "[starpu][fixtures]") {
  const std::string dir = kFixtures + "lu/";
  const TempFile role_file("import-by-role.workload"), content_file("import-by-content.workload");
  const std::string& by_role = role_file.path;
  const std::string& by_content = content_file.path;
  const auto named = cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--paje", dir + "paje.trace",
                                "--workload-out", by_role});
  REQUIRE(named.code == 0);
  const auto sniffed = cli({"import", dir + "paje.trace", dir + "data.rec", dir + "tasks.rec", "--workload-out", by_content});
  INFO(sniffed.err);
  REQUIRE(sniffed.code == 0);
  // The same report but for the workload file's name.
  CHECK(named.out.substr(0, named.out.find("workload     written")) == sniffed.out.substr(0, sniffed.out.find("workload     written")));
  CHECK(!file_text(by_role).empty());
  CHECK(file_text(by_role) == file_text(by_content));
  // What is not a StarPU file, a role given twice and a missing tasks.rec are refused, naming the file.
  const auto readme = cli({"import", std::string(TILELENS_SOURCE_DIR) + "/README.md"});
  CHECK(readme.code == 2);
  CHECK_THAT(readme.err, Catch::Contains("README.md: not a file tilelens can import"));
  const auto twice = cli({"import", dir + "tasks.rec", kFixtures + "cholesky/tasks.rec"});
  CHECK(twice.code == 2);
  CHECK_THAT(twice.err, Catch::Contains("cholesky/tasks.rec: a second tasks file"));
  const auto no_tasks = cli({"import", dir + "data.rec"});
  CHECK(no_tasks.code == 2);
  CHECK_THAT(no_tasks.err, Catch::Contains("no tasks file"));
  const auto absent = cli({"import", dir + "absent.rec"});
  CHECK(absent.code == 2);
  CHECK_THAT(absent.err, Catch::Contains("absent.rec: cannot open"));
}
