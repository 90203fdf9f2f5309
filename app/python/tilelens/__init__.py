"""tilelens from Python: replay a workload, run a sweep, and read runs and traces as pandas
DataFrames, with schedulers and eviction policies written as Python classes (docs/python.md).

Options take the names of the command line's flags, with underscores for dashes
(memory_model=, copy_engines=); values may be numbers, strings, booleans or lists.
"""

import hashlib
import inspect
from dataclasses import dataclass, field
from typing import Optional

import pandas as pd

from . import _tilelens as _native
from ._tilelens import (ABSENT, LOADING, NEVER, READ, READ_WRITE, RESIDENT, WRITE, EvictableTest, Host, Platform,
                        Workload)

__version__ = _native.__version__
__all__ = ["replay", "sweep", "runs", "trace", "lower_bound", "schedulers", "evictions", "register_scheduler",
           "register_eviction", "Run", "Trace", "Workload", "Platform", "Host", "EvictableTest", "READ", "WRITE",
           "READ_WRITE", "ABSENT", "LOADING", "RESIDENT", "NEVER"]


def _text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _class_identity(cls):
    """A class's registered name, declared parameters, source hash and version."""
    # The class's own name attribute, not one inherited: a subclass is another policy.
    name = "python." + str(cls.__dict__.get("name", cls.__name__))
    params = {str(k): _text(v) for k, v in dict(getattr(cls, "params", {})).items()}
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):  # defined where no source is kept (an interactive session)
        source = cls.__module__ + "." + cls.__qualname__
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    return name, params, digest, _text(getattr(cls, "version", "0"))


def register_scheduler(cls):
    """Registers a scheduler class and returns its name ("python.NAME"), usable in any spec.

    The class is built as cls(workload, platform, host, **params) and answers the calls of
    include/tilelens/plugin.h: push(task), pop(worker) -> task or None, and optionally
    task_started, task_done, data_loaded, data_evicted (worker, id). Class attributes: name
    (default: the class's name), version, params (a dict of defaults).
    """
    name, params, digest, version = _class_identity(cls)
    _native.register_scheduler(name, cls, params, digest, version)
    return name


def register_eviction(cls):
    """Registers an eviction policy class and returns its name ("python.NAME").

    Built as cls(workload, platform, host, **params); answers choose_victim(memory, for_task,
    prefetch, evictable) -> data or None (None only for a prefetch), and optionally inserted,
    used, removed (memory, data). needs_future = True gives host.next_use (Belady-like).
    """
    name, params, digest, version = _class_identity(cls)
    _native.register_eviction(name, cls, params, digest, version, bool(getattr(cls, "needs_future", False)))
    return name


def _policy(policy, register):
    """A spec from a string, a class, or (class, {params})."""
    if isinstance(policy, str):
        return policy
    params = {}
    if isinstance(policy, tuple) and len(policy) == 2 and isinstance(policy[1], dict):
        policy, params = policy
    if not inspect.isclass(policy):
        raise TypeError(f"a policy is a spec string, a class, or (class, params), not {policy!r}")
    name = register(policy)
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={_text(v)}" for k, v in params.items())


def _options(options, lists=False):
    out = {}
    for key, value in options.items():
        if value is None:
            continue
        name = key.replace("_", "-")
        if name == "scheduler" or name == "eviction":
            items = value if isinstance(value, list) else [value]
            register = register_scheduler if name == "scheduler" else register_eviction
            specs = [_policy(item, register) for item in items]
            if len(specs) > 1 and not lists:
                raise ValueError(f"{key}: a replay takes one policy; a sweep takes a list")
            out[name] = ",".join(specs)
        elif isinstance(value, (list, tuple)):
            if not lists:
                raise ValueError(f"{key}: a replay takes one value; a sweep takes a list")
            out[name] = (";" if name == "workload" else ",").join(_text(v) for v in value)
        else:
            out[name] = _text(value)
    return out


@dataclass
class Trace:
    """A run's trace as DataFrames: tasks (in start order), loads, evictions and write-backs."""
    tasks: pd.DataFrame
    loads: pd.DataFrame
    evictions: pd.DataFrame
    writebacks: pd.DataFrame
    info: dict = field(default_factory=dict)


def _trace(columns, info):
    return Trace(*(pd.DataFrame(columns[name]) for name in ("tasks", "loads", "evictions", "writebacks")), info=info)


@dataclass
class Run:
    """One replay: how it was made (info), every metric of the database's metrics table, and its
    trace when asked for."""
    info: dict
    metrics: dict
    trace: Optional[Trace] = None

    def __getitem__(self, metric):
        return self.metrics[metric]


def replay(workload, scheduler="eager", eviction="lru", *, db=None, trace=False, **options):
    """Replays one workload (a generator spec such as "matmul2d:N=20", or a workload file).

    scheduler and eviction: a spec string ("hfp:flip=0", "./libmine.so"), a Python class, or
    (class, {params}). Other options as `tilelens replay` takes them: memory="250MiB", gpus=2,
    platform=, buffer=, memory_model=, bandwidth=, ... With db= the run is stored there.
    """
    request = _options(dict(options, workload=workload, scheduler=scheduler, eviction=eviction))
    answer = _native.replay(request, db or "", bool(trace))
    run_trace = _trace(answer["trace"], answer["info"]) if answer["trace"] is not None else None
    return Run(answer["info"], answer["metrics"], run_trace)


def sweep(db, workload=None, scheduler=None, eviction=None, *, preset=None, threads=0, **options):
    """Runs a sweep into db and returns its runs as runs(db, sweep=ID) does.

    Each option takes a value or a list (workload=["matmul2d:N=5..20:5"], memory=["250MiB",
    "500MiB"], scheduler=["eager", "dmdar", MyClass]), in the sweep's own language
    (`tilelens sweep --help`); preset= starts from a paper's experiment. The report (stored,
    skipped, failed, seconds) is in the DataFrame's attrs["report"].
    """
    grid = _options(dict(options, workload=workload, scheduler=scheduler, eviction=eviction), lists=True)
    report = _native.sweep(grid, preset or "", str(db), int(threads))
    frame = runs(db, sweep=report["sweep"])
    frame.attrs["report"] = report
    return frame


_RUN_COLUMNS = ["id", "status", "mode", "scheduler", "eviction", "GPUs", "memory", "loads", "LB ratio", "GFlop/s",
                "makespan", "workload"]


def runs(db, sweep=None, workload=None, scheduler=None, status=None):
    """The runs of a database as a DataFrame: the columns of `tilelens runs list` first (memory in
    bytes, makespan in ns, None where the list prints "-"), then sweep, policy, buffer,
    memory_model and every metric of the metrics table (docs/database.md)."""
    rows = _native.runs(str(db), sweep, workload or "", scheduler or "", status or "")
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=_RUN_COLUMNS)
    return frame[_RUN_COLUMNS + [c for c in frame.columns if c not in _RUN_COLUMNS]]


def trace(db, run):
    """One stored run's trace as DataFrames (Trace)."""
    columns = _native.trace(str(db), int(run))
    return _trace(columns, columns["info"])


def lower_bound(workload, **options):
    """The lower bound on the bytes loaded (fgcs section 5.2, darts section 4) for a workload on a
    platform (memory=, gpus=, platform=, ...), with the reference marks the curves draw."""
    return _native.lower_bound(_options(dict(options, workload=workload)))


def schedulers():
    """The built-in schedulers: name and summary."""
    return pd.DataFrame(_native.schedulers(), columns=["name", "summary"])


def evictions():
    """The built-in eviction policies: name and summary."""
    return pd.DataFrame(_native.evictions(), columns=["name", "summary"])
