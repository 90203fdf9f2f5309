"""EAGER and LRU as Python classes, through the calls of include/tilelens/plugin.h: their runs
are identical to the built-in `eager` and `lru` (tests/python/test_tilelens.py checks).
Use them as templates: docs/python.md."""

from collections import OrderedDict, deque


class Eager:
    """Ready tasks in one FIFO, served in release order to whichever worker asks."""
    name = "eager-py"
    version = "1.0"

    def __init__(self, workload, platform, host):
        self.ready = deque()

    def push(self, task):
        self.ready.append(task)

    def pop(self, worker):
        return self.ready.popleft() if self.ready else None


class Lru:
    """Per memory, resident data from least to most recently inserted or used; the victim is
    the first one the executor allows."""
    name = "lru-py"
    version = "1.0"

    def __init__(self, workload, platform, host):
        self.order = [OrderedDict() for _ in range(max(platform.memory_nodes, 1))]

    def inserted(self, memory, data):
        self.order[memory][data] = None
        self.order[memory].move_to_end(data)

    def used(self, memory, data):
        if data in self.order[memory]:
            self.order[memory].move_to_end(data)

    def removed(self, memory, data):
        self.order[memory].pop(data, None)

    def choose_victim(self, memory, for_task, prefetch, evictable):
        for data in self.order[memory]:
            if evictable(data):
                return data
        return None
