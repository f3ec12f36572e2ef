"""Threads for fsopt's compiled (numba) kernels."""
from __future__ import annotations

import contextlib
import os
import sys

import numba


def kernel_threads():
    """Threads for the compiled kernels: the CPUs this process may run on
    (``os.sched_getaffinity``: a taskset, cgroup cpuset or batch allocation), at most numba's
    pool (``NUMBA_NUM_THREADS``, which counts every CPU of the machine and would oversubscribe
    a restricted process).  Work is split into column tasks (z̄ and its products: one per thread)
    or row pairs (distances)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, numba.config.NUMBA_NUM_THREADS))


_BLAS = []  # the process's threadpoolctl controller, made at the first fit


@contextlib.contextmanager
def blas_one_thread():
    """BLAS at one thread while a fit's compiled kernels use the cores.  A fit's BLAS calls are
    small (N × working set matrix-vector products inside each solve); OpenBLAS's threads, spinning
    after each call, take the cores from the next kernel (LOGO, Fermat spiral 1.5 turns, seed 1,
    N = 460, J = 20,000: fit 6.5 → 2.8 s, its solves 2.35 → 0.71 s).  The libraries are found once
    per process (a ``ThreadpoolController``: ``threadpool_limits`` looks for them at every call,
    2.9 ms, 4 % of a LOGO fit at N = 270, J = 2,013), and again once a module was imported since
    (an extension module may have loaded another BLAS)."""
    from threadpoolctl import ThreadpoolController

    if not _BLAS or _BLAS[0][1] != len(sys.modules):
        _BLAS[:] = [(ThreadpoolController(), len(sys.modules))]
    with _BLAS[0][0].limit(limits=1, user_api="blas"):
        yield
