"""Sphinx configuration.  Build from the repository root (so README.md and notebooks/ are pages):

    python -m sphinx -W -b html -c docs . docs/_build/html
"""
import logging
import re

import zmq
from jupyter_client.manager import KernelManager

import fsopt

# The notebooks' kernels get CurveZMQ keys from their manager (the kernel spec declares support):
# their sockets are encrypted, and ipykernel has no "running over TCP without encryption" warning
# to print into the build log (nbclient creates its kernel manager with no configuration to set).
if zmq.has("curve"):  # libzmq built with libsodium, as PyPI's pyzmq wheels are
    KernelManager.transport_encryption.default_value = "auto"


class _NoConfigDump(logging.Filter):
    """myst's and myst-nb's dump of their whole configuration at every build: not a message."""

    def filter(self, record):
        return not re.sub(r"\x1b\[[0-9;]*m", "", str(record.msg)).startswith(("myst v", "myst-nb v"))


for _name in ("sphinx.myst_parser.sphinx_ext.main", "sphinx.myst_nb.sphinx_ext"):
    logging.getLogger(_name).addFilter(_NoConfigDump())

project = "fsopt"
author = "the fsopt authors"
copyright = "the fsopt authors, BSD-3-Clause"
release = version = fsopt.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
root_doc = "docs/index"
include_patterns = ["README.md", "CHANGELOG.md", "docs/**", "notebooks/*.ipynb"]
exclude_patterns = ["docs/_build", "**/.ipynb_checkpoints"]

myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
nb_execution_mode = "force"          # stored notebooks have no outputs: run them at build time
nb_execution_raise_on_error = True   # a failing cell fails the build
nb_execution_timeout = 600
nb_execution_show_tb = True
nb_execution_in_temp = True       # files a notebook writes land in a temporary directory
nb_render_markdown_format = "gfm"  # Markdown a cell displays (a study summary) keeps its tables

autodoc_default_options = {"show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = f"fsopt {release}"
