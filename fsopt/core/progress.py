"""The progress bar: tqdm's notebook widget where ipywidgets is installed, its text bar elsewhere.

``tqdm.auto`` in a Jupyter kernel without ipywidgets warns "IProgress not found" (with the path of
the environment) into the first cell that imports fsopt; the text bar needs no widget.
"""
import importlib.util

if importlib.util.find_spec("ipywidgets") is not None:
    from tqdm.auto import tqdm
else:
    from tqdm import tqdm

__all__ = ["tqdm"]
