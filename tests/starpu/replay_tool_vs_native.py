#!/usr/bin/env python3
"""StarPU's replay tool against the native reference program, both in StarPU-SimGrid
(docs/fidelity.md, "StarPU's replay tool"): the same DAG, priorities and machine, exported by
`tilelens export starpu-replay`, run by starpu_replay (tasks.rec) and by simgrid_dag.c as it is
and as each of the tool's three departures makes it (TILELENS_LIKE_REPLAY_TOOL: sync, anywhere,
first_use; all three). Prints loads, write-backs and makespan of each variant, with the ratios of
the replay tool to the native program as it is.

With --check, fails (exit 1) unless the replay tool and the native program with all three
departures agree exactly on loads and write-backs, and within 0.01% on makespan, in every cell.
Exit 77 (CTest's skip) when StarPU-SimGrid is not built.

usage: replay_tool_vs_native.py TILELENS [--workloads cholesky:N=16,lu:N=16] [--memories 250MiB,125MiB]
                                [--gpus 1] [--schedulers eager,dmdar] [--variants all,none] [--check] [--folder DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode == 77:
        print(result.stderr.strip(), file=sys.stderr)
        sys.exit(77)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tilelens")
    parser.add_argument("--workloads", default="cholesky:N=16")
    parser.add_argument("--memories", default="250MiB")
    parser.add_argument("--gpus", default="1")
    parser.add_argument("--schedulers", default="eager,dmdar")
    parser.add_argument("--variants", default="all,none", help="native runs: all, none, or one departure (sync, anywhere, first_use)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--folder", default=None)
    args = parser.parse_args()
    base = args.folder or tempfile.mkdtemp(prefix="replay-tool-")
    variants = args.variants.split(",")
    if args.check and "all" not in variants:
        variants.insert(0, "all")
    failures = []
    header = f"{'workload':<16} {'gpus':>4} {'memory':>8} {'scheduler':<8} | {'tool: loads wb ms':>22}"
    for variant in variants:
        header += f" | {'native ' + variant:>22}"
    print(header + (" | tool/native loads wb ms" if "none" in variants else ""))
    for workload in args.workloads.split(","):
        for gpus in args.gpus.split(","):
            for memory in args.memories.split(","):
                folder = os.path.join(base, f"{workload.replace(':', '_').replace(',', '_')}-{gpus}-{memory}")
                subprocess.run([args.tilelens, "export", "starpu-replay", "--workload", workload, "--gpus", gpus, "--memory", memory,
                                "--copy-engines", "1", "--out", folder], check=True, capture_output=True)
                for scheduler in args.schedulers.split(","):
                    tool = run([os.path.join(HERE, "starpu_replay_run.sh"), folder, scheduler])
                    measures = lambda r: (r["loads"] + r["gpu_to_gpu_loads"], r["writebacks"], r["makespan_ns"] / 1e6)
                    cell = lambda m: f"{m[0]:>6} {m[1]:>6} {m[2]:>8.2f}"
                    t = measures(tool)
                    line = f"{workload:<16} {gpus:>4} {memory:>8} {scheduler:<8} | {cell(t)}"
                    native = {}
                    for variant in variants:
                        env = dict(os.environ, TILELENS_LIKE_REPLAY_TOOL="" if variant == "none" else variant)
                        result = run([os.path.join(HERE, "simgrid_run.sh"), folder, scheduler], env)
                        native[variant] = measures(result)
                        line += f" | {cell(native[variant])}"
                    if "none" in native:
                        n = native["none"]
                        ratio = lambda x, y: x / y if y else float("nan")
                        line += f" | {ratio(t[0], n[0]):.3f} {ratio(t[1], n[1]):.3f} {ratio(t[2], n[2]):.3f}"
                    print(line, flush=True)
                    if args.check:
                        a = native["all"]
                        if (t[0], t[1]) != (a[0], a[1]) or abs(t[2] - a[2]) > 1e-4 * a[2]:
                            failures.append(f"{workload} {gpus} GPU(s) {memory} {scheduler}: the replay tool loads {t[0]}, writes back {t[1]} "
                                            f"in {t[2]:.3f} ms, the native program run as the tool runs {a[0]}, {a[1]} in {a[2]:.3f} ms")
    for failure in failures:
        print("FAIL " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
