"""How much a policy written in Python costs: one workload replayed with the built-in EAGER and
LRU, with the example C plugins, and with the example Python classes (policies.py), best of
--repeat, in one run so that the ratios compare (docs/python.md quotes its figures).

    PYTHONPATH=build/ci/python python3 examples/python/speed.py --plugins build/ci/examples/plugins
"""

import argparse
import os
import sys
import time

import tilelens

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policies import Eager, Lru  # noqa: E402


def best_time(repeat, **replay):
    best, run = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        run = tilelens.replay(**replay)
        best = min(best, time.perf_counter() - start)
    return best, run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="cholesky:N=24")
    parser.add_argument("--memory", default="40items")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plugins", help="the folder holding libeager_plugin.so and liblru_plugin.so")
    args = parser.parse_args()

    pairs = [("built-in eager/lru", "eager", "lru")]
    if args.plugins:
        pairs.append(("C plugins", os.path.join(args.plugins, "libeager_plugin.so"), os.path.join(args.plugins, "liblru_plugin.so")))
    pairs += [("Python Eager/built-in lru", Eager, "lru"), ("built-in eager/Python Lru", "eager", Lru), ("Python Eager/Lru", Eager, Lru)]
    base = None
    print(f"{args.workload}, M = {args.memory}, best of {args.repeat}")
    for label, scheduler, eviction in pairs:
        seconds, run = best_time(args.repeat, workload=args.workload, scheduler=scheduler, eviction=eviction, memory=args.memory)
        base = base or seconds
        tasks = run["tasks"]
        print(f"  {label:28s} {seconds * 1e3:9.1f} ms  {tasks / seconds / 1e3:8.1f} k tasks/s  {seconds / base:6.2f}x  "
              f"(loads {run['loads']})")


if __name__ == "__main__":
    main()
