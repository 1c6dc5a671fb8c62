"""Sphinx configuration of the cuda.coop documentation.

The API reference is the docstrings of the cuda.coop that python3 imports: the
one scripts/setup.sh installed from this checkout (or this checkout's python/ on
PYTHONPATH, with its _engine extension built). No GPU is needed to build them. Built with
warnings as errors and nitpicky references by scripts/docs.sh."""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from cuda import coop

project = "cuda.coop"
author = "cuda.coop developers"
copyright = "cuda.coop developers, Apache-2.0"
release = coop.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "coop_docs",
]
intersphinx_mapping = {}  # no network: references to other projects stay plain text

exclude_patterns = ["_build", "tests", "_generated/*.rst.txt", "Thumbs.db", ".DS_Store"]
nitpicky = True
# Type names of the stub's vocabulary that have no page of their own.
nitpick_ignore = [("py:class", name) for name in ("numpy.dtype", "DTypeLike")] + [
    ("py:class", builtin)  # the builtin bases of the errors (no intersphinx: no network)
    for builtin in (
        "Exception",
        "ValueError",
        "TypeError",
        "NotImplementedError",
        "RuntimeError",
        "ImportError",
        "UserWarning",
    )
]

highlight_language = "python"
pygments_style = "sphinx"
# `name` links to the API entry of that name where there is one and is shown as code
# otherwise (docstrings name their arguments so); explicit roles stay nitpicky.
default_role = "py:obj"
nitpick_ignore_regex = [("py:obj", ".*")]

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures are the markers' own; types are described in the text
autodoc_preserve_defaults = True
add_module_names = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

html_theme = "furo"
html_title = f"cuda.coop {release}"
html_static_path = ["_static"]
html_css_files = ["coop.css"]
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = False
