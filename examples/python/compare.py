"""A notebook-style comparison: a sweep of matmul2d under EAGER, DMDAR, HFP and a Python
scheduler of your own, drawn against the lower bound with matplotlib (docs/python.md).

    PYTHONPATH=build/ci/python python3 examples/python/compare.py --db compare.db --out compare.png
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # draws to a file; no display needed
import matplotlib.pyplot as plt

import tilelens

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policies import Eager  # noqa: E402  (the example class, beside this script)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="compare.db", help="the database the sweep fills (resumed when it exists)")
    parser.add_argument("--out", default="compare.png", help="the figure to write")
    parser.add_argument("--sizes", default="4..16:4", help="matmul2d's N, in the sweep's range language")
    parser.add_argument("--memory", default="8items", help="each GPU's memory: 250MiB, or a count of tiles: 8items")
    args = parser.parse_args()

    runs = tilelens.sweep(args.db, workload=f"matmul2d:N={args.sizes}", scheduler=["eager", "dmdar", "hfp", Eager],
                          memory=args.memory)
    runs["N"] = runs["workload"].str.extract(r"N=(\d+)", expand=False).astype(int)
    runs["GB loaded"] = runs["bytes_loaded"] / 1e9

    figure, axis = plt.subplots(figsize=(7, 4.5))
    for policy, group in runs.groupby("policy"):
        group = group.sort_values("N")
        # The Python class drawn dashed over the built-in it re-implements: where they agree,
        # both stay visible.
        mine = policy.startswith("python.")
        axis.plot(group["N"], group["GB loaded"], marker="x" if mine else "o", linestyle="--" if mine else "-", label=policy)
    bound = runs.groupby("N")["lower_bound_bytes"].first() / 1e9
    axis.plot(bound.index, bound.values, "k--", label="lower bound")
    axis.set_xlabel("N (tiles per side)")
    axis.set_ylabel("data loaded (GB)")
    memory = args.memory.replace("items", " tiles")
    axis.set_title(f"matmul2d, M = {memory} per GPU")
    axis.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=120)
    print(runs[["id", "policy", "N", "loads", "LB ratio"]].to_string(index=False))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
