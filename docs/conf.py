"""Sphinx configuration.  Build from the repository root (so README.md and notebooks/ are pages):

    python -m sphinx -W -b html -c docs . docs/_build/html
"""
import fsopt

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
