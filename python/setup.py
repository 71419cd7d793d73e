"""Builds libptkit from the C sources of the ptkit tree around this folder
(with the tree's Makefile; no CUDA is needed) and ships it inside the
package with the public headers.

    pip install --no-build-isolation ./python

It also builds ptkit._fast, Timing.start/stop called without ctypes,
where Python's headers are installed (python3-dev), else leaves it out.

Environment: PTKIT_CUDA=0|1 builds without or with CUDA's device kernels
(default: with them when nvcc is found, as `make` decides); CC, CFLAGS and
LDFLAGS reach make as usual; PTKIT_BUILD_JOBS sets make's -j;
PTKIT_BUILD_DIR is make's BUILD folder (default python/build/libptkit)."""

import os
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "include", "pt", "pt_version.h"), encoding="utf-8") as f:
        parts = dict(re.findall(r"#define PT_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


def check_tree():
    for need in ("Makefile", os.path.join("include", "pt", "pt.h"), "host"):
        if not os.path.exists(os.path.join(ROOT, need)):
            raise SystemExit(f"ptkit: {ROOT} is not a ptkit source tree (no {need}); the "
                             "package is built from the tree's python/ folder")


class BuildLib(build_py):
    """build_py that also builds libptkit and copies it and the headers in."""

    def run(self):
        super().run()
        check_tree()
        out = os.environ.get("PTKIT_BUILD_DIR") or os.path.join(HERE, "build", "libptkit")
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
        cmd = ["make", "-C", ROOT, f"BUILD={out}", "lib",
               "-j" + os.environ.get("PTKIT_BUILD_JOBS", str(os.cpu_count() or 1))]
        if os.environ.get("PTKIT_CUDA") in ("0", "1"):
            cmd.append("CUDA=" + os.environ["PTKIT_CUDA"])
        print(" ".join(cmd))
        subprocess.run(cmd, check=True, env=env)
        pkg = os.path.join(self.build_lib, "ptkit")
        # The real file under a plain name: ctypes loads it by path.
        so = os.path.realpath(os.path.join(out, "lib", "libptkit.so"))
        os.makedirs(os.path.join(pkg, "_lib"), exist_ok=True)
        shutil.copyfile(so, os.path.join(pkg, "_lib", "libptkit.so"))
        inc = os.path.join(pkg, "include")
        shutil.rmtree(inc, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "include"), inc)


class PlatformDist(Distribution):
    """The package holds a shared library: its wheel is for this platform."""

    def has_ext_modules(self):
        return True


# The wheel is for this platform and this Python (the extension module);
# its tag says so by default.
cmdclass = {"build_py": BuildLib}

# Timing.start/stop without ctypes (ptkit/_fast.c), which needs Python's
# headers (Debian: python3-dev); optional: where it cannot be built the
# package times through ctypes alone, and says nothing.
fast = Extension("ptkit._fast", ["ptkit/_fast.c"], optional=True,
                 extra_compile_args=["-O2", "-Wall", "-Wextra"])

setup(version=version(), cmdclass=cmdclass, distclass=PlatformDist, ext_modules=[fast])
