"""Writing a method's figure: the library returns matplotlib Figures, only the command line writes files."""
from __future__ import annotations


def save_figure(fig, path) -> None:
    """Write ``fig`` to ``path`` and release it."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120)
    plt.close(fig)
