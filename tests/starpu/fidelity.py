#!/usr/bin/env python3
"""The fidelity matrix (docs/fidelity.md): the same workload on the same machine, replayed by
tilelens and run by StarPU 1.3.10 in SimGrid mode (StarPU's own schedulers and memory manager,
deterministic), with loads, write-backs and makespan side by side and their ratios.

usage: fidelity.py TILELENS [--workloads W,...: generator specs or workload files] [--schedulers S,... or S;...] [--gpus 1,2,4]
                   [--fractions 1,0.5,0.25,0.125] [--bandwidth 12GB/s] [--buffer 2] [--copy-engines 1] [--check TOL]
                   [--measures loads,writebacks,makespan_ns] [--folder DIR] [--fixed-order] [--ensemble K]
With --fixed-order each cell gets a second line: StarPU-SimGrid's own order and mapping of the
tasks replayed as they ran (the `fixed` scheduler), so that what is left there is the memory
manager's and the clock's part of the difference, and the rest the policy's.
With --ensemble K each cell also runs K - 1 more times on both sides, every kernel rate scaled by
the same factor on both (evenly spread over 1 +- --ensemble-spread, 0.1% by default), and a third
line compares the means of the K answers, with each side's own spread (largest minus smallest,
over the mean): on several GPUs both simulators are chaotic, a rate 0.1% off moving StarPU-SimGrid's
answer by up to 18% (docs/fidelity.md, twelfth pass), so one run is one sample of each side.
Each memory is a fraction of the workload's working set, rounded down to whole MiB (StarPU
limits memory in MiB) and kept above the largest task's footprint and one 32 MiB chunk (StarPU's
suballocator can place nothing in less). A StarPU-SimGrid run that takes more than 900 s stops
the matrix, naming its command. With --check, exits 1 when a
cell's ratio is off by more than TOL (0.05: 5%) and lists those cells; exit 77 when StarPU-SimGrid
cannot be built here (CTest's skip); with --ensemble the means are checked too.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1024 * 1024


def cpu_seconds():
    """CPU time (user + system) of the child processes waited for so far: both sides are
    single-threaded and CPU-bound, and unlike wall time it leaves out this script's own cost of
    starting a process and the load of a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


STARPU_CHUNK_MIB = 32  # StarPU 1.3.10's suballocator hands GPU memory out in chunks of 32 MiB (malloc.c:640-960)
STARPU_TIMEOUT_S = 900  # one StarPU-SimGrid run; Cholesky N = 40 takes about a minute on 2 cores


def run(command, timeout=None, **kwargs):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        sys.exit("fidelity: %s did not finish in %d s" % (" ".join(command), timeout))
    if done.returncode == 77:
        print("fidelity: skipped: " + done.stderr.strip(), file=sys.stderr)
        sys.exit(77)
    if done.returncode != 0:
        sys.exit("fidelity: %s failed (%d): %s" % (" ".join(command), done.returncode, done.stderr.strip()))
    return done.stdout


def sizes(tilelens, workload, folder):
    """The working set (data some task reads) and the largest task footprint, in bytes."""
    path = workload  # a workload file as it is (an import, tests/starpu/ooc_cholesky.c's DAG)
    if not os.path.isfile(workload):
        path = os.path.join(folder, "sizes.workload")
        run([tilelens, "workload", "generate", workload, "--output", path])
    data, read, largest = [], set(), 0
    with open(path) as f:
        for line in f:
            fields = line.split("#")[0].split()
            if fields and fields[0] == "data":
                data.append(int(fields[1]))
            elif fields and fields[0] == "task":
                accesses = [a.split(":") for a in fields[7:]]
                largest = max(largest, sum(data[int(d)] for _, d in accesses))
                read.update(int(d) for mode, d in accesses if "R" in mode)
    return sum(data[d] for d in read), largest


MEASURES = ("loads", "writebacks", "makespan_ns")
LABELS = {"policy": "the policies' replays", "fixed order": "StarPU's own orders replayed",
          "ensemble": "the policies' ensemble means"}


def mean_summary(summaries):
    """The mean of each measure over an ensemble's summaries."""
    return {name: sum(s[name] for s in summaries) / len(summaries) for name in MEASURES}


def spreads(summaries):
    """Each measure's spread over an ensemble: (largest - smallest) / mean."""
    mean = mean_summary(summaries)
    return [(max(s[name] for s in summaries) - min(s[name] for s in summaries)) / mean[name] if mean[name] else 0.0
            for name in MEASURES]


def ensemble_factors(runs, spread):
    """The rate factors of an ensemble, evenly spread over 1 +- spread; 1 (the cell itself) first."""
    if runs <= 1:
        return [1.0]
    steps = [1 + spread * (2.0 * i / (runs - 1) - 1) for i in range(runs)]
    return [1.0] + [f for f in steps if abs(f - 1) > 1e-12][:runs - 1]


def read_rates(machine):
    """The kernel rates StarPU's side reads (KIND GFLOPS per line of the machine's rates file)."""
    with open(os.path.join(machine, "rates")) as f:
        return [(kind, float(rate)) for kind, rate in (line.split() for line in f if line.strip())]


def scaled_machine(machine, factor):
    """A copy of `machine` whose kernel rates are `factor` times its own (kept for --reuse)."""
    if factor == 1.0:
        return machine
    copy = "%s-rates%.6f" % (machine, factor)
    if not os.path.isdir(copy):
        shutil.copytree(machine, copy, ignore=shutil.ignore_patterns("starpu-*"))
        with open(os.path.join(copy, "rates"), "w") as f:
            for kind, rate in read_rates(machine):
                f.write("%s %.6f\n" % (kind, rate * factor))
    return copy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tilelens")
    parser.add_argument("--workloads", default="cholesky:N=16,lu:N=12,matmul2d-random-order:N=12")
    # The tilelens schedulers that decide as StarPU 1.3.10's of the same name: starpu-random is
    # StarPU's random policy (tilelens's random shuffles the submission order), lws:starpu=1 is
    # StarPU's lws built without hwloc (its ws), and the dmda family weighs workers with
    # StarPU's estimate and its Ready without a tie-break (docs/schedulers.md).
    parser.add_argument("--schedulers", default="eager;starpu-random;ws;lws:starpu=1;dmda:estimate=starpu;"
                                                "dmdar:estimate=starpu,loading_tiebreak=0;dmdas:estimate=starpu,loading_tiebreak=0",
                        help="comma-separated; with ';' instead, each may be a tilelens spec with parameters (dmdar:estimate=starpu,loading_tiebreak=0)")
    parser.add_argument("--gpus", default="1,2")
    parser.add_argument("--fractions", default="1,0.5,0.25,0.125")
    parser.add_argument("--bandwidth", default="12GB/s")
    parser.add_argument("--buffer", default="2", help="the task buffer: StarPU's CUDA pipeline (its default, 2)")
    parser.add_argument("--copy-engines", default="1",
                        help="1: one transfer at a time per direction and node, as StarPU-SimGrid moves them; 0: fluid sharing")
    parser.add_argument("--replay-args", default="",
                        help="more options for tilelens replay, e.g. \"--memory-model starpu:sync_reclaim=0\" (to try a rule)")
    parser.add_argument("--speed", action="store_true",
                        help="time each replay as the fastest of three batches of five processes, each batch averaged, "
                             "for the speed ratio to StarPU-SimGrid")
    parser.add_argument("--fixed-order", action="store_true",
                        help="also replay StarPU-SimGrid's own order and mapping (scheduler fixed), a second line per cell")
    parser.add_argument("--check", type=float, default=None)
    parser.add_argument("--measures", default="loads,writebacks,makespan_ns", help="the measures --check compares")
    parser.add_argument("--folder", default=None)
    parser.add_argument("--ensemble", type=int, default=1,
                        help="K runs per side and cell, the rates scaled alike on both sides; compare their means (K >= 3)")
    parser.add_argument("--ensemble-spread", type=float, default=0.001,
                        help="with --ensemble, the largest relative change of the rates (0.001: +-0.1%%)")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse StarPU-SimGrid's answer stored in --folder by an earlier run of the same matrix "
                             "(it is deterministic), to iterate on the replay side")
    args = parser.parse_args()
    if args.ensemble != 1 and args.ensemble < 3:
        parser.error("--ensemble: at least 3 runs per side (1: none)")
    factors = ensemble_factors(args.ensemble, args.ensemble_spread)

    folder = args.folder or tempfile.mkdtemp(prefix="tilelens-fidelity-")
    os.makedirs(folder, exist_ok=True)
    outside = []
    within = {"policy": [0, 0], "fixed order": [0, 0], "ensemble": [0, 0]}  # cells within 5%, cells
    simgrid_s = replay_s = 0.0
    print("%-28s %-40s %4s %9s | %7s %7s %6s | %7s %7s %6s | %9s %9s %6s" % (
        "workload", "sched", "gpus", "memory", "loads", "starpu", "ratio", "wbacks", "starpu", "ratio", "ms", "starpu", "ratio"))
    for workload in args.workloads.split(","):
        working_set, largest = sizes(args.tilelens, workload, folder)
        for gpus in [int(g) for g in args.gpus.split(",")]:
            for fraction in [float(f) for f in args.fractions.split(",")]:
                # At least one chunk: below it StarPU can place no datum of at most 4 MiB, and
                # it retries its reclaim for ever (seen at 31 MiB: a livelock, not an error).
                memory = max(int(working_set * fraction) // MIB, -(-largest // MIB), STARPU_CHUNK_MIB)
                name = os.path.basename(workload) if os.path.isfile(workload) else workload
                machine = os.path.join(folder, "%s-%dgpu-%dMiB" % (name.replace(":", "_").replace(",", "_"), gpus, memory))
                platform = ["--gpus", str(gpus), "--memory", "%dMiB" % memory, "--bandwidth", args.bandwidth, "--latency", "0",
                            "--copy-engines", args.copy_engines]
                run([args.tilelens, "export", "starpu-simgrid", "--workload", workload, *platform, "--buffer", args.buffer,
                     "--out", machine])

                def replay_summary(spec, factor=1.0):
                    """tilelens's replay of this machine's workload under scheduler `spec`, its JSON summary,
                    with every kernel rate `factor` times the machine's."""
                    rates = []
                    if factor != 1.0:
                        rates = ["--rate", ",".join("%s=%.6fGFlop/s" % (kind, rate * factor) for kind, rate in read_rates(machine))]
                    return json.loads(run([args.tilelens, "replay", "--workload", os.path.join(machine, "workload"),
                                           "--scheduler", spec, *platform, "--buffer", args.buffer, "--json", *rates,
                                           *args.replay_args.split()]))

                def starpu_answer(where, starpu_scheduler, with_order):
                    """StarPU-SimGrid's JSON summary for the machine in folder `where`, run once and kept there."""
                    nonlocal simgrid_s
                    answer = os.path.join(where, "starpu-%s.json" % starpu_scheduler)
                    seconds = answer[:-len(".json")] + ".seconds"  # how long StarPU-SimGrid took, kept for --reuse
                    order = answer[:-len(".json")] + ".order.csv"  # StarPU's tasks as they ended, with --fixed-order
                    if args.reuse and os.path.exists(answer) and (os.path.exists(order) or not with_order):
                        with open(answer) as f:
                            starpu = json.load(f)
                        if os.path.exists(seconds):
                            with open(seconds) as f:
                                simgrid_s += float(f.read())
                        return starpu
                    environment = dict(os.environ, TILELENS_ORDER_OUT=order) if with_order else None
                    begin = cpu_seconds()
                    text = run([os.path.join(HERE, "simgrid_run.sh"), where, starpu_scheduler], timeout=STARPU_TIMEOUT_S,
                               env=environment)
                    took = cpu_seconds() - begin
                    simgrid_s += took
                    with open(answer, "w") as f:
                        f.write(text)
                    with open(seconds, "w") as f:
                        f.write("%.3f\n" % took)
                    return json.loads(text)

                for scheduler in args.schedulers.split(";" if ";" in args.schedulers else ","):
                    # A tilelens spec (lws:steal_head=1) runs against StarPU's scheduler of that name,
                    # starpu-NAME (tilelens's model of a StarPU policy) against StarPU's NAME.
                    starpu_scheduler = scheduler.split(":")[0]
                    if starpu_scheduler.startswith("starpu-"):
                        starpu_scheduler = starpu_scheduler[len("starpu-"):]
                    starpu = starpu_answer(machine, starpu_scheduler, args.fixed_order)
                    order = os.path.join(machine, "starpu-%s.order.csv" % starpu_scheduler)
                    # With --speed, the fastest of three batches (this machine is shared) of five processes
                    # averaged: the kernel counts a process's CPU time in ticks of several ms, as much
                    # as a third of one replay, so a single process's figure is too coarse.
                    batches, per_batch = (3, 5) if args.speed else (1, 1)
                    fastest = None
                    for _ in range(batches):
                        begin = cpu_seconds()
                        for _ in range(per_batch):
                            replay = replay_summary(scheduler)
                        took = (cpu_seconds() - begin) / per_batch
                        fastest = took if fastest is None else min(fastest, took)
                    replay_s += fastest
                    rows = [("policy", scheduler, replay, starpu, None)]
                    if args.fixed_order:
                        # The dmda family tells StarPU's memory manager its choice at push, which prefetches there.
                        prefetch = "1" if starpu_scheduler.startswith("dmda") else "0"
                        fixed = replay_summary("fixed:file=%s,prefetch=%s" % (order, prefetch))
                        rows.append(("fixed order", "  StarPU's order (fixed)", fixed, starpu, None))
                    if len(factors) > 1:
                        replays, answers = [replay], [starpu]
                        for factor in factors[1:]:
                            replays.append(replay_summary(scheduler, factor))
                            answers.append(starpu_answer(scaled_machine(machine, factor), starpu_scheduler, False))
                        rows.append(("ensemble", "  mean of %d, rates +-%g%%" % (len(factors), args.ensemble_spread * 100),
                                     mean_summary(replays), mean_summary(answers), (spreads(replays), spreads(answers))))
                    for kind, label, replayed, reference, spread in rows:
                        cells = []
                        for name in MEASURES:  # both sides print the same keys
                            a, b = replayed[name], reference[name]
                            ratio = (a / b) if b else (1.0 if a == 0 else float("inf"))
                            cells.append((a, b, ratio, name))
                            within[kind][0] += abs(ratio - 1) <= 0.05
                            within[kind][1] += 1
                        line = "%-28s %-40s %4d %6d MiB | %7d %7d %5.2fx | %7d %7d %5.2fx | %9.1f %9.1f %5.2fx" % (
                            workload, label, gpus, memory, cells[0][0], cells[0][1], cells[0][2], cells[1][0], cells[1][1],
                            cells[1][2], cells[2][0] / 1e6, cells[2][1] / 1e6, cells[2][2])
                        if spread:
                            line += " | spread: tilelens %s, StarPU %s" % tuple(
                                "/".join("%.0f%%" % (100 * x) for x in side) for side in spread)
                        print(line, flush=True)
                        for a, b, ratio, name in cells:
                            if (kind in ("policy", "ensemble") and args.check is not None and name in args.measures.split(",")
                                    and abs(ratio - 1) > args.check):
                                outside.append("%s %s %d GPU %d MiB: %s %.2fx%s" % (workload, scheduler, gpus, memory, name, ratio,
                                                                                   " (ensemble means)" if kind == "ensemble" else ""))
    for kind, (good, cells) in within.items():
        if cells:
            print("%s: %d of %d cells within 5%%" % (LABELS[kind], good, cells))
    if simgrid_s:
        print("CPU time: StarPU-SimGrid %.1f s, tilelens replay %.3f s (whole processes): tilelens %.0fx faster" % (
            simgrid_s, replay_s, simgrid_s / replay_s if replay_s else 0))
    if outside:
        print("%d cells outside %.0f%%:" % (len(outside), args.check * 100))
        for cell in outside:
            print("  " + cell)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
