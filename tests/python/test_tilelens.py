"""The Python module from its user's side (docs/python.md): replays and sweeps against the CLI,
runs and traces as DataFrames, Python classes and C plugins as policies, and errors. CTest runs
it with PYTHONPATH at the build's python/ folder and TILELENS_CLI, TILELENS_EAGER_PLUGIN,
TILELENS_LRU_PLUGIN and TILELENS_SOURCE_DIR set."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

import tilelens

SOURCE = os.environ["TILELENS_SOURCE_DIR"]
CLI = os.environ["TILELENS_CLI"]
sys.path.insert(0, os.path.join(SOURCE, "examples", "python"))
from policies import Eager, Lru  # noqa: E402

# Small enough to run in a blink, tight enough that LRU evicts and EAGER's order matters.
WORKLOAD = "cholesky:N=8"
MEMORY = "6items"


def cli(*args):
    done = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_replay_gives_what_the_cli_gives():
    run = tilelens.replay(WORKLOAD, "dmdar", "lru", memory=MEMORY, gpus=2)
    printed = json.loads(cli("replay", "--workload", WORKLOAD, "--scheduler", "dmdar", "--memory", MEMORY, "--gpus", "2", "--json"))
    assert run["loads"] > 0 and run["evictions"] > 0
    assert run["loads"] == printed["loads"]
    assert run["makespan_ns"] == printed["makespan_ns"]
    assert run["bytes_loaded"] == pytest.approx(printed["bytes_loaded"])
    assert run.info["scheduler"] == printed["scheduler"]
    assert run.info["gpus"] == 2


def test_sweep_round_trips_through_runs(tmp_path):
    db = str(tmp_path / "sweep.db")
    frame = tilelens.sweep(db, workload="matmul2d:N=4..8:4", scheduler=["eager", "dmdar"], memory=["6items", "12items"])
    assert frame.attrs["report"]["stored"] == 8 and len(frame) == 8
    # The same runs read back, in the columns of `tilelens runs list`.
    again = tilelens.runs(db)
    assert list(again.columns[:12]) == ["id", "status", "mode", "scheduler", "eviction", "GPUs", "memory", "loads", "LB ratio",
                                        "GFlop/s", "makespan", "workload"]
    assert again.equals(frame)
    listed = cli("runs", "list", "--db", db).splitlines()[1:-1]
    assert [int(line.split()[0]) for line in listed] == list(again["id"])
    assert [int(line.split()[8].replace(",", "")) for line in listed]  # memory is two words, "45 MiB" == list(again["loads"])
    small, large = sorted(set(again["memory"]))
    assert large == 2 * small
    # A rerun of the grid resumes: nothing replayed twice.
    rerun = tilelens.sweep(db, workload="matmul2d:N=4..8:4", scheduler=["eager", "dmdar"], memory=["6items", "12items"])
    assert rerun.attrs["report"]["skipped"] == 8 and rerun.attrs["report"]["stored"] == 0
    assert len(tilelens.runs(db, scheduler="dmdar")) == 4


def test_trace_and_lower_bound_as_dataframes(tmp_path):
    db = str(tmp_path / "trace.db")
    run = tilelens.replay("matmul2d:N=6", "eager", "lru", memory="4items", db=db, trace=True)
    stored = tilelens.trace(db, run.info["id"])
    assert len(stored.tasks) == 36 and set(stored.tasks["kind"]) == {"GEMM"}
    assert len(stored.loads) == run["loads"]
    assert len(stored.evictions) == run["evictions"] + run["invalidations"]
    assert stored.loads["bytes"].sum() == pytest.approx(run["bytes_loaded"])
    assert (stored.tasks["end_ns"] > stored.tasks["start_ns"]).all()
    assert stored.tasks.equals(run.trace.tasks)
    bound = tilelens.lower_bound("matmul2d:N=6", memory="4items")
    assert bound["lower_bound_bytes"] == pytest.approx(run["lower_bound_bytes"])
    assert 0 < bound["lower_bound_bytes"] <= run["bytes_loaded"]


def assert_same_run(mine, builtin):
    for metric in ("loads", "evictions", "writebacks", "makespan_ns", "prefetches", "fetches"):
        assert mine[metric] == builtin[metric], metric
    assert mine.trace.tasks[["task", "worker", "start_ns"]].equals(builtin.trace.tasks[["task", "worker", "start_ns"]])


@pytest.mark.parametrize("gpus", [1, 2])
def test_python_classes_match_the_builtins(gpus):
    builtin = tilelens.replay(WORKLOAD, "eager", "lru", memory=MEMORY, gpus=gpus, trace=True)
    mine = tilelens.replay(WORKLOAD, Eager, Lru, memory=MEMORY, gpus=gpus, trace=True)
    assert_same_run(mine, builtin)
    assert mine.info["scheduler"].startswith("python.eager-py:python.hash=")
    assert builtin["evictions"] > 0


@pytest.mark.parametrize("which", ["scheduler", "eviction"])
def test_c_plugins_load_from_python(which):
    builtin = tilelens.replay(WORKLOAD, "eager", "lru", memory=MEMORY, trace=True)
    policies = {"scheduler": "eager", "eviction": "lru"}
    policies[which] = os.environ["TILELENS_EAGER_PLUGIN" if which == "scheduler" else "TILELENS_LRU_PLUGIN"]
    mine = tilelens.replay(WORKLOAD, policies["scheduler"], policies["eviction"], memory=MEMORY, trace=True)
    assert_same_run(mine, builtin)
    assert "plugin.hash=" in mine.info[which]


def test_python_classes_in_a_sweep(tmp_path):
    db = str(tmp_path / "classes.db")
    frame = tilelens.sweep(db, workload="matmul2d:N=5", scheduler=["eager", Eager], eviction=["lru", Lru], memory="5items", threads=2)
    assert len(frame) == 4
    loads = {(row.scheduler.split(":")[0], row.eviction.split(":")[0]): row.loads for row in frame.itertuples()}
    assert len(set(loads.values())) == 1, loads  # the classes replay exactly as the built-ins
    assert sorted(frame["policy"]) == sorted(["eager/lru", "eager/python.lru-py", "python.eager-py/lru", "python.eager-py/python.lru-py"])


def test_a_class_with_parameters():
    class Lifo:
        params = {"depth": 1}

        def __init__(self, workload, platform, host, depth):
            self.depth = int(depth)
            self.stack = []

        def push(self, task):
            self.stack.append(task)

        def pop(self, worker):
            return self.stack.pop() if self.stack else None

    run = tilelens.replay("matmul2d:N=4", (Lifo, {"depth": 3}), memory="4items")
    assert ":depth=3," in run.info["scheduler"]
    with pytest.raises(ValueError, match="scheduler: .*has no parameter 'width'"):
        tilelens.replay("matmul2d:N=4", (Lifo, {"width": 3}), memory="4items")


def count_runs(db):
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


def test_a_class_that_raises_stores_nothing(tmp_path):
    db = str(tmp_path / "raise.db")
    tilelens.replay("matmul2d:N=4", "eager", memory="4items", db=db)

    class Broken(Eager):
        def pop(self, worker):
            raise RuntimeError("no idea what to run")

    class WrongAnswer(Eager):
        def pop(self, worker):
            return "the first one" if self.ready else None

    class NotReady(Eager):
        def pop(self, worker):
            return 15  # matmul2d's tasks are all ready; cholesky's are not

    with pytest.raises(ValueError, match="^scheduler 'python.Broken' raised: RuntimeError: no idea what to run$"):
        tilelens.replay("matmul2d:N=4", Broken, memory="4items", db=db)
    with pytest.raises(ValueError, match="raised: Unable to cast"):
        tilelens.replay("matmul2d:N=4", WrongAnswer, memory="4items", db=db)
    with pytest.raises(ValueError, match="15"):
        tilelens.replay("cholesky:N=4", NotReady, memory="4items", db=db)
    assert count_runs(db) == 1


def test_an_eviction_class_that_answers_wrong():
    class Hoarder(Lru):
        def choose_victim(self, memory, for_task, prefetch, evictable):
            return None

    class NoFuture(Lru):
        def choose_victim(self, memory, for_task, prefetch, evictable):
            return self.host.next_use(0, 0)

        def __init__(self, workload, platform, host):
            super().__init__(workload, platform, host)
            self.host = host

    with pytest.raises(ValueError, match="no victim"):
        tilelens.replay(WORKLOAD, "eager", Hoarder, memory=MEMORY)
    with pytest.raises(ValueError, match="needs_future"):
        tilelens.replay(WORKLOAD, "eager", NoFuture, memory=MEMORY)


def test_belady_as_a_class_sees_the_future():
    class Furthest(Lru):
        needs_future = True

        def __init__(self, workload, platform, host):
            super().__init__(workload, platform, host)
            self.host = host

        def choose_victim(self, memory, for_task, prefetch, evictable):
            candidates = [d for d in self.order[memory] if evictable(d)]
            if not candidates:
                return None
            return max(candidates, key=lambda d: (self.host.next_use(memory, d), -d))

    # Belady's optimality holds for one task at a time under the papers' model (with StarPU's
    # prefetches and lookahead it does not, and LRU may load less).
    paper = dict(memory="4items", memory_model="fgcs", buffer=1)
    builtin = tilelens.replay("matmul2d:N=8", "hfp", "belady", **paper)
    mine = tilelens.replay("matmul2d:N=8", "hfp", Furthest, **paper)
    lru = tilelens.replay("matmul2d:N=8", "hfp", "lru", **paper)
    assert mine["loads"] < lru["loads"]
    assert mine["loads"] == builtin["loads"]


def test_errors_name_the_keyword():
    with pytest.raises(ValueError, match="^memory: "):
        tilelens.replay("matmul2d:N=4", memory="lots")
    with pytest.raises(ValueError, match="^memory_model: "):
        tilelens.replay("matmul2d:N=4", memory_model="parsec")
    with pytest.raises(ValueError, match="no option 'colour'"):
        tilelens.replay("matmul2d:N=4", colour="blue")
    with pytest.raises(ValueError, match="a sweep takes a list"):
        tilelens.replay("matmul2d:N=4", memory=["1MiB", "2MiB"])
    with pytest.raises(ValueError):
        tilelens.runs("/nonexistent/folder/runs.db")


def test_the_example_script_draws_a_sweep(tmp_path):
    out = tmp_path / "compare.png"
    done = subprocess.run([sys.executable, os.path.join(SOURCE, "examples", "python", "compare.py"), "--db", str(tmp_path / "c.db"),
                           "--out", str(out), "--sizes", "4..8:4"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10000
    assert "python.eager-py" in done.stdout and "hfp" in done.stdout
