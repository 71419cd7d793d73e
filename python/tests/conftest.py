"""Shared fixtures: an injected clock, a C compiler for host-mode code
that links the package's libptkit, and the source tree's paths."""

import os
import shutil
import subprocess

import pytest

import ptkit

TREE = os.path.normpath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


class Clock:
    """A manual clock in nanoseconds that tests move by hand."""

    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def timing(clock):
    """A timing on the manual clock."""
    t = ptkit.Timing("test")
    t.clock_set(clock)
    yield t
    t.close()


def span(t, clock, title, ns, **metrics):
    """A section of exactly ns nanoseconds on the manual clock."""
    t.start(title)
    clock.now += ns
    t.stop(title, **metrics)


@pytest.fixture
def cc(tmp_path):
    """cc(source, name) -> path of a shared library built from C source
    with the package's headers, linked to the package's libptkit."""
    compiler = os.environ.get("CC", "cc")
    if not shutil.which(compiler):
        pytest.skip(f"no C compiler ({compiler})")

    def build(source, name="unit", link_ptkit=True):
        src = tmp_path / f"{name}.c"
        out = tmp_path / f"lib{name}.so"
        src.write_text(source)
        cmd = [compiler, "-std=c11", "-O1", "-Wall", "-Werror", "-fPIC", "-shared",
               "-I", ptkit.get_include(), "-o", str(out), str(src)]
        if link_ptkit:
            lib = ptkit.get_library()
            cmd += [lib, "-Wl,-rpath," + os.path.dirname(lib)]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        return str(out)

    return build
