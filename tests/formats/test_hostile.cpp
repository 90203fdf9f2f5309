// Hostile and careless input (issue 16): what tilelens refuses, and the stale or duplicated
// results it no longer gives. The CLI-wide checks (every command's exit status, damaged
// databases, concurrent writers) are the shell tests under tests/cli and tests/store.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "formats/exports.hpp"
#include "formats/output_file.hpp"
#include "formats/workload_io.hpp"
#include "helpers.hpp"
#include "model/model.hpp"
#include "util/utf8.hpp"
#include "db/schema.hpp"
#include "db/sqlite.hpp"
#include "db/store.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

Result<Workload> read_text(const std::string& text) {
  std::istringstream in(text);
  return read_workload(in, "w.workload");
}

const std::string kHeader = "tilelens-workload 1\nname w\nkind K\n";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string file_text(const Workload& w) {
  std::ostringstream out;
  REQUIRE(write_workload(w, out));
  return out.str();
}

}  // namespace

TEST_CASE("workload files: sizes, flops, names and extra words that cannot be held are refused with the line", "[hostile][workload]") {
  auto huge = read_text(kHeader + "data 18446744073709551615 - 0 0 d0\ntask K 1 0 0 0 0 R:0\n");
  REQUIRE_FALSE(huge);
  CHECK_THAT(huge.error().message, Catch::Contains("w.workload:4") && Catch::Contains("2^62"));
  auto sum = read_text(kHeader + "data 4611686018427387904 - 0 0 d0\ndata 1 - 0 0 d1\ntask K 1 0 0 0 0 R:0 R:1\n");
  REQUIRE_FALSE(sum);
  CHECK_THAT(sum.error().message, Catch::Contains("w.workload:5"));
  auto flops = read_text(kHeader + "data 8 - 0 0 d0\ntask K 1e300 0 0 0 0 R:0\n");
  REQUIRE_FALSE(flops);
  CHECK_THAT(flops.error().message, Catch::Contains("w.workload:5") && Catch::Contains("flops"));
  auto extra = read_text(kHeader + "data 8 - 0 0 d0 trailing\ntask K 1 0 0 0 0 R:0\n");
  REQUIRE_FALSE(extra);
  CHECK_THAT(extra.error().message, Catch::Contains("w.workload:4") && Catch::Contains("trailing"));
  auto bytes = read_text("tilelens-workload 1\nname w\xc3\x28\nkind K\ndata 8 - 0 0 d0\ntask K 1 0 0 0 0 R:0\n");
  REQUIRE_FALSE(bytes);
  CHECK_THAT(bytes.error().message, Catch::Contains("w.workload:2") && Catch::Contains("UTF-8"));
  CHECK(read_text(kHeader + "data 8 - 0 0 d0\ntask K 1e21 0 0 0 0 R:0\n"));  // the limit itself is accepted
  // Kind ids are 16 bits: the 65536th kind is refused at its line (it once wrapped and hung).
  std::string kinds = "tilelens-workload 1\ndata 8 A 0 0 a\n";
  for (int k = 0; k <= 65535; ++k) kinds += "kind K" + std::to_string(k) + "\n";
  kinds += "task K65535 1 0 0 0 0 R:0\n";
  auto many = read_text(kinds);
  REQUIRE_FALSE(many);
  CHECK_THAT(many.error().message, Catch::Contains("w.workload:65538") && Catch::Contains("65535 kinds"));
}

TEST_CASE("the workload builder holds every producer to the file's rules", "[hostile][workload]") {
  const auto build = [](const std::string& kind, const std::string& data, std::uint64_t bytes, double flops) {
    WorkloadBuilder builder("w");
    const KindId k = builder.kind(kind);
    builder.add_data({data, bytes, 'A', 0, 0});
    const Access access{0, AccessMode::Read};
    builder.add_task(k, std::span<const Access>(&access, 1), flops);
    return std::move(builder).finish();
  };
  CHECK(build("GEMM", "A(0,0)", 8, 1));
  CHECK_FALSE(build("my kernel", "A(0,0)", 8, 1));  // a space: the file form could not be read back
  CHECK_FALSE(build("GEMM", "A#0", 8, 1));
  CHECK_FALSE(build("GEMM", "a\xff", 8, 1));
  CHECK_FALSE(build("GEMM", "", 8, 1));
  CHECK_FALSE(build("GEMM", "A", kMaxWorkloadBytes + 1, 1));
  CHECK_FALSE(build("GEMM", "A", 8, 2e21));
  CHECK(invalid_utf8_at("caf\xc3\xa9") == std::string::npos);
  CHECK(invalid_utf8_at("\xed\xa0\x80") == 0);  // a surrogate
  CHECK(invalid_utf8_at("ab\xc0\xaf") == 2);    // an overlong '/'
  // Skipping ASCII eight bytes at a time finds what a walk byte by byte finds, wherever the bad
  // byte or the multi-byte sequence lies against the eight-byte steps.
  const auto walked = [](std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
      const Utf8Step step = utf8_step(text, at);
      if (!step.valid) return at;
      at += step.length;
    }
    return std::string_view::npos;
  };
  for (const std::string inserted : {"\xc3\xa9", "\xed\xa0\x80", "\xc0\xaf", "\xf0\x9f\x98\x80", "\xe2\x82", "\xff"}) {
    for (std::size_t before = 0; before < 20; ++before) {
      for (std::size_t after = 0; after < 12; ++after) {
        const std::string text = std::string(before, 'a') + inserted + std::string(after, 'b');
        INFO(before << " " << after);
        CHECK(invalid_utf8_at(text) == walked(text));
      }
    }
  }
}

TEST_CASE("a generator line is trusted only when the file is what it generates", "[hostile][workload][bounds]") {
  const Workload generated_workload = generated("matmul2d:N=4,n=2");
  const std::string text = file_text(generated_workload);
  auto same = read_text(text);
  REQUIRE(same);
  CHECK(same->generator().N == 4);
  // N changed in the generator line only: its closed-form bound would be 0.028x the loads.
  std::string lying = text;
  lying.replace(lying.find(" N=4 "), 5, " N=40 ");
  auto refused = read_text(lying);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("generator line") && Catch::Contains("delete it"));
  // A task's flops edited: no longer the generator's workload either.
  std::string edited = text;
  const auto task = edited.find("task GEMM ");
  edited.replace(edited.find(' ', task + 10), 0, "7");
  CHECK_FALSE(read_text(edited));
  // Without the line, the same content reads, and its bound comes from its tasks.
  std::string plain = edited;
  const auto line = plain.find("generator ");
  plain.erase(line, plain.find('\n', line) - line + 1);
  auto file = read_text(plain);
  REQUIRE(file);
  CHECK(file->generator().name.empty());
  CHECK(workload_identity(*file).starts_with("content:"));
}

TEST_CASE("a generated file's digest spares generating its spec again, and only while it matches", "[hostile][workload]") {
  const Workload generated_workload = generated("cholesky:N=5");
  const std::string text = file_text(generated_workload);
  const auto word = text.find(" digest=");
  REQUIRE(word != std::string::npos);
  const auto end = text.find('\n', word);
  std::string undigested = text;
  undigested.erase(word, end - word);
  CHECK(text.substr(word + 8, end - word - 8) == workload_file_digest(undigested));
  auto read = read_text(text);
  REQUIRE(read);
  CHECK(workload_content_hash(*read) == workload_content_hash(generated_workload));
  // A wrong digest, or none (files of earlier versions): the file is generated again and compared.
  std::string wrong = text;
  wrong[word + 8] = wrong[word + 8] == '1' ? '2' : '1';
  CHECK(read_text(wrong));
  CHECK(read_text(undigested));
  // A task's flops edited, digest kept: refused, as without one.
  std::string edited = text;
  const auto task = edited.find("task GEMM ");
  edited.replace(edited.find(' ', task + 10), 0, "7");
  CHECK_FALSE(read_text(edited));
  // The digest is trusted, not a guard against forgery: an edit with its digest recomputed is
  // taken as the spec's (which shows that a matching digest skips the comparison).
  std::string forged = edited;
  forged.erase(word, end - word);
  const std::string digest = workload_file_digest(forged);
  forged.insert(word, " digest=" + digest);
  auto taken = read_text(forged);
  REQUIRE(taken);
  CHECK(workload_content_hash(*taken) != workload_content_hash(generated_workload));
}

TEST_CASE("an edited workload file is a new workload to a sweep, not a run already stored", "[hostile][sweep]") {
  TempFile database("edited.db");
  TempFile workload("edited.workload");
  const std::string text = kHeader + "data 1000 - 0 0 d0\ndata 1000 - 1 0 d1\ntask K 1000 0 0 0 0 R:0\ntask K 1000 0 1 0 0 R:1\n";
  write_text(workload.path, text);
  const std::vector<std::string> sweep = {"sweep", "--db", database.path, "--workload", workload.path, "--memory", "2items", "--quiet"};
  auto first = cli(sweep);
  REQUIRE(first.code == 0);
  CHECK_THAT(first.out, Catch::Contains("1 stored"));
  CHECK_THAT(cli(sweep).out, Catch::Contains("0 stored, 1 skipped"));
  std::string edited = text;
  edited.replace(edited.find("task K 1000"), 11, "task K 5000");
  write_text(workload.path, edited);
  auto again = cli(sweep);
  REQUIRE(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("1 stored, 0 skipped"));
}

TEST_CASE("a resumed sweep keeps one failed run per key, and a grid naming a run twice runs it once", "[hostile][sweep][db]") {
  TempFile database("failing.db");
  // Belady needs a scheduler that knows its future order: dmdar/belady always fails.
  const std::vector<std::string> sweep = {"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--scheduler",
                                          "dmdar/belady,eager,eager", "--memory", "6items", "--quiet"};
  for (int resume = 0; resume < 3; ++resume) CHECK(cli(sweep).code == 1);
  auto connection = db::Connection::open(database.path, db::Connection::Access::ReadOnly);
  REQUIRE(connection);
  CHECK(*connection->query_integer("SELECT count(*) FROM runs WHERE status = 'failed'") == 1);
  CHECK(*connection->query_integer("SELECT count(*) FROM runs WHERE status = 'complete'") == 1);
  CHECK(*connection->query_integer("SELECT count(*) FROM run_claims") == 0);
}

TEST_CASE("a version-5 file with a key twice in a sweep is upgraded keeping every run", "[hostile][db]") {
  TempFile database("v5-duplicates.db");
  REQUIRE(cli({"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--scheduler", "eager,dmdar", "--memory", "6items",
               "--quiet"})
              .code == 0);
  {
    auto connection = db::Connection::open(database.path, db::Connection::Access::ReadWrite);
    REQUIRE(connection);
    // What two sweeps at once left in a version-5 file: the first run's key stored twice.
    REQUIRE(connection->exec("DROP INDEX runs_one_per_sweep_key; DROP TABLE run_claims; "
                             "ALTER TABLE runs DROP COLUMN scheduling_cost; ALTER TABLE metrics DROP COLUMN push_decisions; "
                             "ALTER TABLE metrics DROP COLUMN push_scanned; ALTER TABLE metrics DROP COLUMN push_base_ns; "
                             "ALTER TABLE metrics DROP COLUMN push_per_task_ns; ALTER TABLE metrics DROP COLUMN pop_decisions; "
                             "ALTER TABLE metrics DROP COLUMN pop_scanned; ALTER TABLE metrics DROP COLUMN pop_base_ns; "
                             "ALTER TABLE metrics DROP COLUMN pop_per_task_ns; ALTER TABLE metrics DROP COLUMN decisions_charged_ns; "
                             "ALTER TABLE runs DROP COLUMN memory_model; DELETE FROM writeback_causes WHERE id = 3; "
                             "ALTER TABLE platforms DROP COLUMN copy_engines; ALTER TABLE platforms DROP COLUMN half_duplex; "
                             "INSERT INTO runs SELECT 100, workload_id, platform_id, scheduler, eviction, buffer_depth, mode, seed, "
                             "tilelens_version, started_at, finished_at, status, error, host, gpu_name, transfers_recorded, sweep_id, "
                             "run_key FROM runs WHERE id = 1; "
                             "INSERT INTO metrics SELECT 100, tasks, loads, fetches, prefetches, unused_loads, loads_from_host, "
                             "loads_from_gpu, bytes_loaded, bytes_from_host, bytes_gpu_to_gpu, bytes_fetched, bytes_prefetched, "
                             "evictions, invalidations, allocations, writebacks, bytes_written_back, makespan_ns, flush_end_ns, "
                             "total_flops, gflops, idle_ns, scheduling_ns, eviction_ns, events, lower_bound_bytes, lower_bound, "
                             "ratio_to_lower_bound, bus_limit_bytes, ideal_compute_ns, prepare_ns, charged_ns FROM metrics WHERE run_id = 1; "
                             "DROP TABLE scheduler_counters; ALTER TABLE measurements DROP COLUMN cupti_apis; "
                             "ALTER TABLE measurements DROP COLUMN kernels; ALTER TABLE measurements DROP COLUMN launch_ahead; DROP TABLE import_notes; DROP TABLE import_records; ALTER TABLE data DROP COLUMN home; ALTER TABLE platforms DROP COLUMN worker_speeds; PRAGMA user_version = 5")
                .ok());
  }
  auto store = db::Store::open(database.path);
  REQUIRE(store);
  auto connection = db::Connection::open(database.path, db::Connection::Access::ReadOnly);
  REQUIRE(connection);
  CHECK(*connection->query_integer("PRAGMA user_version") == db::kSchemaVersion);
  CHECK(*connection->query_integer("SELECT count(*) FROM runs") == 3);  // nothing deleted
  CHECK(*connection->query_integer("SELECT count(*) FROM runs WHERE sweep_id = 1") == 2);
  CHECK(*connection->query_integer("SELECT sweep_id IS NULL FROM runs WHERE id = 100") == 1);  // the later copy left the sweep
}

TEST_CASE("platforms that would stall or overflow the clock are refused, naming what", "[hostile][replay]") {
  const Workload w = generated("matmul2d:N=4");
  Platform slow = small_platform(1e9);
  slow.bus_bandwidth = 1e-291;
  auto refused = check_platform(slow, w);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("bus bandwidth") && Catch::Contains("1 B/s"));
  Platform rate = small_platform(1e9);
  rate.default_gflops = 1e-300;
  CHECK_FALSE(check_platform(rate, w));
  // One data that alone takes longer than the clock's 146 years to load.
  Platform trickle = small_platform(1e9);
  trickle.bus_bandwidth = 1;
  WorkloadBuilder builder("big");
  builder.add_data({"huge", std::uint64_t{1} << 60, 'A', 0, 0});
  const Access access{0, AccessMode::Read};
  builder.add_task(builder.kind("K"), std::span<const Access>(&access, 1), 1);
  auto big = std::move(builder).finish();
  REQUIRE(big);
  trickle.memory_bytes = 2.0 * static_cast<double>(std::uint64_t{1} << 60);
  auto horizon = check_platform(trickle, *big);
  REQUIRE_FALSE(horizon);
  CHECK_THAT(horizon.error().message, Catch::Contains("huge") && Catch::Contains("146 years"));
  // A run that passes the check but is slowed past the horizon stops, naming the event.
  const auto stopped = cli({"replay", "--workload", "matmul2d:N=30", "--memory", "2items", "--bandwidth", "1B/s"});
  CHECK(stopped.code == 2);
  CHECK_THAT(stopped.err, Catch::Contains("past the replay clock") && Catch::Contains("data"));
}

TEST_CASE("outputs: a full device is an error, a file is replaced only once complete, CSV names are quoted", "[hostile][exports]") {
  auto full = write_output_file("/dev/full", [](std::ostream& out) {
    out << std::string(1 << 16, 'x');
    return Status::success();
  });
  REQUIRE_FALSE(full);
  CHECK_THAT(full.error().message, Catch::Contains("/dev/full"));
  TempFile file("output.txt");
  write_text(file.path, "before");
  auto failed = write_output_file(file.path, [](std::ostream& out) {
    out << "half";
    return Status(make_error("stopped"));
  });
  CHECK_FALSE(failed);
  std::ifstream kept(file.path);
  std::string content;
  std::getline(kept, content);
  CHECK(content == "before");
  CHECK(csv_field("GEMM") == "GEMM");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}
