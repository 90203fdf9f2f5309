// A tilelens workload, and optionally a run's schedule, as StarPU's own replay tool runs them:
// starpu_replay (tools/starpu_replay.c, built with StarPU in SimGrid mode) reads a task graph
// from a tasks.rec and runs it under any StarPU scheduler; a sched.rec (tools/starpu_replay_sched.c)
// imposes each task's worker and its place in that worker's order. So a tilelens schedule (HFP,
// DARTS, a run replayed with --fixed-order) runs inside StarPU, and the two memory managers can be
// compared under one schedule (docs/fidelity.md, "StarPU's replay tool").
//
// The folder holds what `export starpu-simgrid` writes (the machine, the environment, the
// workload file and the rates), and:
//   tasks.rec   one record per task: Name and Model (its kind), JobId (task id + 1), SubmitOrder
//               (its place in the submission order, from 1), DependsOn (its predecessors'
//               JobIds), Tag, Priority (its rank among the distinct priorities, as the native
//               reference program gives them), WorkerId (the worker a task ran on in the run, or
//               0: starpu_replay gives a codelet only to a task with one), with a run its
//               MemoryNode, StartTime and EndTime (so the file reads back with `tilelens import`),
//               Footprint, GFlop, Parameters, Handles, Modes and Sizes;
//   .starpu/sampling/codelets/45/KIND.tilelens   one history-based performance model per kind
//               (StarPU 1.3.10's format version 45), one entry per distinct task size of the kind
//               for every simulated GPU: FLOPS / the platform's rate, in microseconds, as the
//               native reference program's cost function says (at least 1 ns: starpu_replay
//               runs a task whose expected time is 0 nowhere);
//   sched.rec   with a run: per task its SubmitOrder, SpecificWorker and Workerorder (its place,
//               from 1, among the tasks its worker ran), so StarPU runs the run's mapping in the
//               run's order on every worker.
#pragma once

#include <filesystem>
#include <span>

#include "model/model.hpp"
#include "trace/trace.hpp"
#include "util/result.hpp"

namespace tilelens {

// `run_tasks` empty: no sched.rec. Otherwise every task of the workload exactly once, on a GPU
// worker of the platform (the records of a complete run).
Status write_starpu_replay(const Workload& workload, const Platform& platform, std::uint32_t buffer_depth,
                           const std::filesystem::path& folder, std::span<const TaskRecord> run_tasks = {});

}  // namespace tilelens
