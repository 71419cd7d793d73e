"""The library the package ships: its ABI and struct sizes checked at
import, a mismatched library refused with a clear message, the headers
and NVRTC sources it carries, its version."""

import ctypes
import os
import re
import subprocess
import sys

import pytest

import ptkit
from ptkit import _capi

from conftest import TREE


def test_abi_version_is_the_headers():
    with open(os.path.join(ptkit.get_include(), "pt", "pt_ffi.h"), encoding="utf-8") as f:
        m = re.search(r"#define PT_ABI_VERSION (\d+)", f.read())
    assert m, "pt_ffi.h defines PT_ABI_VERSION"
    assert int(m.group(1)) == ptkit.ABI_VERSION == _capi.lib.pt_abi_version()


def test_only_current_names_are_called():
    # pt.h keeps the previous release's names for C, deprecated, for one
    # release: the package calls the names they point to.
    with open(os.path.join(ptkit.get_include(), "pt", "pt.h"), encoding="utf-8") as f:
        decls = f.read().split(";")
    old = {}  # a deprecated function's name: the one to call instead
    for d in decls:
        use = re.search(r'PT__DEPRECATED\("use (pt_\w+)"\)', d)
        name = re.search(r"\b(pt_\w+)\s*\(", d)
        if use and name:
            old[name.group(1)] = use.group(1)
    assert len(old) >= 10, f"pt.h's deprecated functions found: {sorted(old)}"
    called = set(_capi.SIGNATURES)
    assert not called & set(old), {n: old[n] for n in called & set(old)}
    for new in old.values():
        assert hasattr(_capi.lib, new), f"{new} is exported"


@pytest.mark.parametrize("name", sorted(_capi.STRUCTS))
def test_each_mirrored_struct_has_the_librarys_size(name):
    assert _capi.lib.pt_abi_sizeof(name.encode()) == ctypes.sizeof(_capi.STRUCTS[name])


def test_the_kernel_argument_is_24_bytes_aligned_to_8():
    assert ctypes.sizeof(_capi.DevBuf) == 24
    assert ctypes.alignment(_capi.DevBuf) == 8
    dt = ptkit.dev_buf_dtype()
    assert dt.itemsize == 24 and dt.alignment == 8
    assert [dt.fields[f][1] for f in dt.names] == [0, 8, 12, 16, 20]


def _import_with(lib_path):
    env = dict(os.environ, PTKIT_LIBRARY=lib_path)
    return subprocess.run([sys.executable, "-c", "import ptkit"], env=env,
                          capture_output=True, text=True)


def test_a_library_of_another_abi_is_refused(cc):
    fake = cc("int pt_abi_version(void) { return 999; }\n", "abi999", link_ptkit=False)
    r = _import_with(fake)
    assert r.returncode != 0
    assert "AbiError" in r.stderr
    assert f"{fake} has ABI 999, this package needs ABI {ptkit.ABI_VERSION}" in r.stderr


def test_a_struct_of_another_size_is_refused(cc):
    src = f"""
#include <stddef.h>
#include <string.h>
int pt_abi_version(void) {{ return {ptkit.ABI_VERSION}; }}
size_t pt_abi_sizeof(const char *t) {{
    return strcmp(t, "pt_section_stats") == 0 ? 8 : 0;
}}
"""
    fake = cc(src, "abisize", link_ptkit=False)
    r = _import_with(fake)
    assert r.returncode != 0
    assert re.search(r"pt_\w+ is 0 bytes in .*abisize.so and \d+ in this package's mirror", r.stderr), \
        r.stderr


def test_something_that_is_not_libptkit_is_refused(cc):
    fake = cc("int unrelated(void) { return 1; }\n", "other", link_ptkit=False)
    r = _import_with(fake)
    assert "has no pt_abi_version()" in r.stderr, r.stderr


def test_a_missing_library_says_where_it_looked(tmp_path):
    r = _import_with(str(tmp_path / "nowhere.so"))
    assert "cannot load libptkit from" in r.stderr and "nowhere.so" in r.stderr, r.stderr


def test_the_shipped_headers_are_the_trees():
    inc = ptkit.get_include()
    for sub in ("pt", os.path.join("pt", "detail")):
        tree = sorted(f for f in os.listdir(os.path.join(TREE, "include", sub)) if f.endswith(".h"))
        assert sorted(f for f in os.listdir(os.path.join(inc, sub)) if f.endswith(".h")) == tree
        for f in tree:
            with open(os.path.join(inc, sub, f), "rb") as a, \
                    open(os.path.join(TREE, "include", sub, f), "rb") as b:
                assert a.read() == b.read(), f"{sub}/{f} differs from the tree's"


def test_nvrtc_headers_are_the_shipped_ones():
    hs = ptkit.nvrtc_headers()
    names = [n for n, _ in hs]
    assert "pt/pt_dev.h" in names and "pt/pt_dev_buf.h" in names
    for name, src in hs:
        with open(os.path.join(ptkit.get_include(), name), encoding="utf-8") as f:
            assert f.read() == src, name


def test_version_is_pt_version_h():
    with open(os.path.join(ptkit.get_include(), "pt", "pt_version.h"), encoding="utf-8") as f:
        parts = dict(re.findall(r"#define PT_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
    assert ptkit.version() == ptkit.__version__ == "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


def test_layout_is_read_from_pt_dev_buf_h():
    L = ptkit.layout
    assert (L.HDR, L.SLOT_HDR) == (8, 10)
    assert L.MAGIC == 0x7074646576627566
    assert (L.S_DONE, L.S_CLK0, L.S_CLK1, L.S_GT0, L.S_GT1) == (0, 2, 3, 4, 5)
    assert L.slot_words(3, 0) == 16 and L.slot_words(4, 16) == 10 + 8 + 32
    assert ptkit.dev_buf_words(5, 3) == 8 + 5 * 16


def test_errors_have_ptkits_words():
    assert ptkit.strerror(-4) == "stop does not match the open section"
    assert ptkit.strerror(12345) == "unknown error"
    e = ptkit.Error(-1, "PT_EINVAL: x")
    assert (e.code, e.name, str(e)) == (-1, "PT_EINVAL", "PT_EINVAL: x")
