"""Progress: tqdm's bar, and for a long run whose stderr is a log, lines a log can keep.

``tqdm`` is tqdm's notebook widget where ipywidgets is installed, its text bar elsewhere
(``tqdm.auto`` in a Jupyter kernel without ipywidgets warns "IProgress not found", with the path
of the environment, into the first cell that imports fsopt; the text bar needs no widget).

:class:`Progress` is the bar on a terminal and, when stderr is not one (a file, CI, ``nohup``),
a line every ``every`` seconds: done / total, elapsed time, estimated time left.
"""
import importlib.util
import sys
import time

if importlib.util.find_spec("ipywidgets") is not None:
    from tqdm.auto import tqdm
else:
    from tqdm import tqdm

LINE_EVERY = 5.0  # seconds between two progress lines in a log


class Progress:
    """Progress of ``total`` steps named ``unit`` on ``stream`` (stderr): tqdm's bar where
    ``stream`` is a terminal, else a line every ``every`` seconds (``LINE_EVERY``) and one at the end; nothing
    unless ``enabled``.  ``total=None``: a run of unknown length (steps counted, no estimate).
    ``brief``: a run shorter than ``every`` leaves no line in a log (a fit that took a second).
    A context manager; :meth:`tick` prints a line that is due."""

    def __init__(self, total, desc, unit="solves", enabled=True, every=None, stream=None, initial=0,
                 brief=False):
        self.total = None if total is None else int(total)
        self.desc, self.unit, self.brief = desc, unit, brief
        self.every = float(LINE_EVERY if every is None else every)
        self.stream = sys.stderr if stream is None else stream
        self.done, self.started, self.printed, self.postfix = int(initial), time.perf_counter(), 0, {}
        self.last = self.started
        self.lines = enabled and not _shows_a_bar(self.stream)
        self.bar = tqdm(total=self.total, initial=self.done, desc=desc, file=self.stream, leave=not brief) \
            if enabled and not self.lines else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, n=1):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        self.tick()

    def set_postfix(self, **values):
        """Values shown after the count (the bar's postfix; ``name value`` in a line)."""
        self.postfix = values
        if self.bar is not None:
            self.bar.set_postfix(**values)

    def tick(self):
        """Print a line when ``every`` seconds passed since the last one (lines only)."""
        now = time.perf_counter()
        if self.lines and now - self.last >= self.every:
            self.last = now
            self._print(self.line(now))

    def line(self, now=None) -> str:
        """``desc: done/total unit (p %), elapsed 12 s, about 31 s left`` (``desc: done unit,
        elapsed 12 s`` without a total), then the postfix."""
        elapsed = (time.perf_counter() if now is None else now) - self.started
        shown = "".join(f", {name} {value}" for name, value in self.postfix.items())
        if self.total is None:
            return f"{self.desc}: {self.done} {self.unit}, elapsed {_duration(elapsed)}{shown}"
        share = self.done / self.total if self.total else 1.0
        left = (f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
                if 0 < self.done < self.total else "")
        return (f"{self.desc}: {self.done}/{self.total} {self.unit} ({share:.0%}), "
                f"elapsed {_duration(elapsed)}{left}{shown}")

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.lines:
            if self.printed or not self.brief:
                self._print(self.line())
            self.lines = False

    def _print(self, text):
        print(text, file=self.stream, flush=True)
        self.printed += 1


def _shows_a_bar(stream) -> bool:
    """A terminal, or a Jupyter kernel's stderr (tqdm.auto's widget)."""
    if stream is sys.stderr and "ipykernel" in sys.modules:
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _duration(seconds) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds:02d} s" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


__all__ = ["Progress", "tqdm"]
