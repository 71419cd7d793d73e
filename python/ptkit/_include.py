"""Where the package's headers and library are."""

import os

_here = os.path.dirname(os.path.abspath(__file__))


def get_include():
    """The folder holding pt/pt_dev.h and the other headers: hand it to
    NVRTC or CuPy (``options=("-I" + ptkit.get_include(),)``) or to a torch
    extension (``extra_include_paths=[ptkit.get_include()]``)."""
    inside = os.path.join(_here, "include")
    if os.path.isdir(os.path.join(inside, "pt")):
        return inside
    # Run from the source tree (PYTHONPATH=python, PTKIT_LIBRARY set).
    return os.path.normpath(os.path.join(_here, os.pardir, os.pardir, "include"))
