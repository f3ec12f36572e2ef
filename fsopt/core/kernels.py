"""Threads for fsopt's compiled (numba) kernels."""
from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def blas_one_thread():
    """BLAS at one thread while a fit's compiled kernels use the cores.  A fit's BLAS calls are
    small (N × working set matrix-vector products inside each solve); OpenBLAS's threads, spinning
    after each call, take the cores from the next kernel (LOGO, Fermat spiral 1.5 turns, seed 1,
    N = 460, J = 20,000: fit 6.5 → 2.8 s, its solves 2.35 → 0.71 s)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
