"""Bounds on what a declaration or a file may ask for, checked before any work.

- :func:`check_count`: a declared size is an integer (a bool is not) within its bounds, or a
  TypeError/ValueError naming the field;
- :func:`check_real`: a declared number is finite and within its bounds, the field named;
- :func:`check_memory`: a float64 array of ``rows × cols`` must fit in the memory this machine has
  available (:func:`available_memory`), else a ValueError naming the field, before allocation;
- :func:`load_toml`, :func:`load_json`: a parsed declaration whose nesting is at most
  ``MAX_DEPTH`` deep (a TOML file: at most ``MAX_DECLARATION_BYTES``); any parse or read error,
  too deep a nesting included, is a ValueError naming the file.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import tomllib
from numbers import Integral, Real
from pathlib import Path

MAX_DEPTH = 32  # tables and arrays within each other; fsopt's own declarations use at most 3
MAX_DECLARATION_BYTES = 2**24  # a problem file or solver profile (fsopt's own: under 2 KiB)
MAX_JOBS = 1024  # parallel workers a run may ask for (joblib takes a C int; more is a typo)


def available_memory() -> int:
    """Bytes this process may still allocate: MemAvailable of /proc/meminfo (else the physical
    memory), and no more than what a cgroup (v2) memory limit leaves."""
    available = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text())
        if limit != "max":
            available = min(available, max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    return available


def size_text(n_bytes) -> str:
    """``n_bytes`` in binary units, e.g. ``3.27 PiB``."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{value:.3g} {unit}"
        value /= 1024


def check_count(value, what, minimum=0):
    """``value`` as an int >= ``minimum``: TypeError for a non-integer (bool, float, text),
    ValueError below the minimum; ``what`` names the field in both."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{what} must be an integer >= {minimum}; got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}; got {value}")
    return int(value)


def check_real(value, what, low=-math.inf, high=math.inf):
    """``value`` as a finite float in ``[low, high]``: TypeError for a non-number (a bool
    included), ValueError for NaN, infinity or a value out of range; ``what`` names the field."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{what} must be a number; got {value!r} ({type(value).__name__})")
    if not (math.isfinite(value) and low <= value <= high):
        bounds = ("" if low == -math.inf else f" >= {low:g}") + ("" if high == math.inf else f" <= {high:g}")
        raise ValueError(f"{what} must be a finite number{bounds}; got {value!r}")
    return float(value)


def check_memory(rows, cols, what):
    """ValueError naming ``what`` when a float64 array of ``rows × cols`` needs more memory than
    is available (checked before anything is allocated)."""
    need, have = 8 * int(rows) * int(cols), available_memory()
    if need > have:
        raise ValueError(f"{what}: the data would be {int(rows):,} × {int(cols):,} float64 values "
                         f"({size_text(need)}), more than the {size_text(have)} of memory available "
                         f"on this machine")


def check_depth(value, what, limit=MAX_DEPTH):
    """ValueError naming ``what`` when tables/arrays nest deeper than ``limit`` (iterative)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                raise ValueError(f"{what}: nesting deeper than {limit} levels of tables/arrays")
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return value


_KEY = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_DEEP_DOTTED_KEY = re.compile(rf"^[ \t]*\[{{0,2}}[ \t]*{_KEY}(?:[ \t]*\.[ \t]*{_KEY}){{{MAX_DEPTH},}}", re.M)


def load_toml(path, what) -> dict:
    """The TOML file ``path`` parsed and depth-checked; ``what`` (e.g. "problem file x.toml")
    starts every error message.  A dotted key deeper than ``MAX_DEPTH`` is refused before the
    parser builds its tables (which costs it time and memory quadratic in the depth)."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(MAX_DECLARATION_BYTES + 1)
        if len(text) > MAX_DECLARATION_BYTES:
            raise ValueError(f"{what}: larger than {size_text(MAX_DECLARATION_BYTES)}; a declaration is "
                             f"a short text file")
        if _DEEP_DOTTED_KEY.search(text.decode("utf-8", errors="replace")):
            raise ValueError(f"{what}: nesting deeper than {MAX_DEPTH} levels of tables/arrays "
                             f"(a dotted key)")
        spec = tomllib.loads(text.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ValueError(f"{what}: nesting deeper than {MAX_DEPTH} levels of tables/arrays") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"{what} cannot be read ({exc.strerror or exc})") from None
    return check_depth(spec, what)


def load_json(text, what):
    """JSON ``text`` parsed and depth-checked; a ValueError starting with ``what`` otherwise."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what}: nesting deeper than {MAX_DEPTH} levels of objects/arrays") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise ValueError(f"{what} is not valid JSON: {exc}") from None
    return check_depth(value, what)


def integer_argument(low, high=None):
    """An argparse type: an integer from ``low`` to ``high`` (a count the run will allocate or
    loop over, bounded so that a typo cannot ask for 10^12 splits or workers)."""
    wanted = "a nonnegative integer" if (low, high) == (0, None) else (
        f"an integer >= {low}" if high is None else f"an integer from {low} to {high}")

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value}")
        return value
    return parse
