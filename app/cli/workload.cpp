// `tilelens workload generate|show|validate|list`: seed workloads and workload files.
#include <algorithm>
#include <ostream>

#include "app/cli/commands.hpp"
#include "core/exports.hpp"
#include "core/units.hpp"
#include "core/presets.hpp"

namespace tilelens::cli {

const CommandSpec kWorkloadGenerate{
    "tilelens workload generate SPEC [--output FILE]",
    "Generate a seed workload and write it in the tilelens workload format (docs/workload-format.md).",
    {{"output", "FILE", "write to FILE instead of standard output", ""}},
    "SPEC is NAME:key=value,... ; run 'tilelens workload list' for the generators and their parameters.\n"
    "example: tilelens workload generate matmul2d:N=20 --output m20.workload"};

const CommandSpec kWorkloadShow{"tilelens workload show SPEC|FILE",
                                "Print a summary of a workload: tasks per kind, data, dependencies, working set.",
                                {{"tasks", "COUNT", "also list the first COUNT tasks in submission order", "0"}},
                                ""};

const CommandSpec kWorkloadValidate{"tilelens workload validate FILE",
                                    "Read a workload file and check it; prints 'valid' or the first error with file:line.",
                                    {},
                                    ""};

const CommandSpec kWorkloadList{"tilelens workload list", "List the workload generators and their parameters.", {}, ""};

namespace {

Result<std::string> one_argument(const ParsedArgs& args, const CommandSpec& spec) {
  if (args.positional.size() != 1) return make_error("expected one argument; see --help:\n" + help_text(spec));
  return args.positional[0];
}

}  // namespace

int cmd_workload_generate(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  auto target = one_argument(args, kWorkloadGenerate);
  if (!target) return fail(err, describe(target.error()));
  auto workload = generate_workload(*target);
  if (!workload) return fail(err, describe(workload.error()));
  if (args.has("output")) {
    if (auto status = save_workload(*workload, args.get("output")); !status) return fail(err, describe(status.error()));
    err << "wrote " << args.get("output") << " (" << workload->task_count() << " tasks)\n";
  } else if (auto status = write_workload(*workload, out); !status) {
    return fail(err, describe(status.error()));
  }
  return 0;
}

int cmd_workload_show(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  auto target = one_argument(args, kWorkloadShow);
  if (!target) return fail(err, describe(target.error()));
  auto workload = resolve_workload(*target);
  if (!workload) return fail(err, describe(workload.error()));
  auto count = parse_integer(args.get("tasks"));
  if (!count || *count < 0) return fail(err, "--tasks must be a count of zero or more");
  const Workload& w = *workload;
  out << "workload      " << w.name() << (w.generator().spec.empty() ? "" : "  (" + w.generator().spec + ")") << "\n";
  out << "tasks         " << format_count(static_cast<double>(w.task_count())) << "\n";
  std::vector<std::size_t> per_kind(w.kinds().size(), 0);
  for (const Task& t : w.tasks()) ++per_kind[t.kind];
  for (std::size_t k = 0; k < per_kind.size(); ++k) {
    out << "  " << w.kinds()[k] << std::string(w.kinds()[k].size() < 12 ? 12 - w.kinds()[k].size() : 1, ' ')
        << format_count(static_cast<double>(per_kind[k])) << "\n";
  }
  out << "data          " << format_count(static_cast<double>(w.data_count())) << " (largest "
      << format_bytes(static_cast<double>(w.largest_data_bytes())) << ")\n";
  const auto homed = std::count_if(w.data().begin(), w.data().end(), [](const Data& d) { return d.home; });
  if (homed > 0) {
    out << "  with a home " << format_count(static_cast<double>(homed))
        << " first written, their host copy kept up to date (docs/workload-format.md)\n";
  }
  out << "dependencies  " << format_count(static_cast<double>(w.dependency_count())) << "\n";
  out << "working set   " << format_bytes(static_cast<double>(w.working_set_bytes())) << " ("
      << format_fixed(static_cast<double>(w.working_set_bytes()) / 1048576.0, 1) << " MiB)\n";
  out << "total work    " << format_fixed(w.total_flops() / 1e12, 3) << " TFlop\n";
  for (std::int64_t i = 0; i < *count && i < static_cast<std::int64_t>(w.task_count()); ++i) {
    const TaskId t = w.submission_order()[static_cast<std::size_t>(i)];
    out << "  " << w.task_label(t) << ":";
    for (const Access& a : w.accesses(t)) out << ' ' << to_string(a.mode) << ' ' << w.data()[a.data].name;
    out << "\n";
  }
  return 0;
}

int cmd_workload_validate(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  auto target = one_argument(args, kWorkloadValidate);
  if (!target) return fail(err, describe(target.error()));
  auto workload = load_workload(*target);
  if (!workload) {
    err << "invalid: " << describe(workload.error()) << "\n";
    return 1;
  }
  out << "valid: " << *target << " (" << workload->task_count() << " tasks, " << workload->data_count() << " data, "
      << workload->dependency_count() << " dependencies)\n";
  return 0;
}

int cmd_workload_list(const ParsedArgs&, std::ostream& out, std::ostream&) {
  out << list_generators();
  return 0;
}

}  // namespace tilelens::cli
