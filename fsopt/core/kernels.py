"""Threads for fsopt's compiled (numba) kernels."""
from __future__ import annotations

import os

import numba


def kernel_threads():
    """Threads for the compiled kernels: the CPUs this process may run on
    (``os.sched_getaffinity``: a taskset, cgroup cpuset or batch allocation), at most numba's
    pool (``NUMBA_NUM_THREADS``, which counts every CPU of the machine and would oversubscribe
    a restricted process).  Work is split into 4 tasks per thread (z̄) or row pairs (distances),
    so a thread slowed by another process holds up at most its last task."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, numba.config.NUMBA_NUM_THREADS))
