"""ptkit: in-kernel clock instrumentation for CUDA, from Python.

    import ptkit
    t = ptkit.Timing("LED Optimization Module", gpu=True)
    with t.section("(A^T)b operation", read=1024000, written=234544, flops=4556334):
        ...
    buf = t.phases(blocks, ["angular", "energy", "stream"])
    with t.gpu_section("step", stream=cupy.cuda.get_current_stream().ptr):
        kernel((blocks,), (threads,), (x, buf.arg))
    t.fold(buf, "step")
    print(t.report(percentages=True, sort="time"))

A pure-Python binding (ctypes) of libptkit, which the package ships with
its headers: ``get_include()`` is the folder to hand to NVRTC, CuPy or a
torch extension so kernels can ``#include <pt/pt_dev.h>``."""

import ctypes as _ctypes

from . import _capi
from ._capi import AbiError, ABI_VERSION
from ._include import get_include
from ._common import Error, PtkitWarning, stream_handle
from ._phases import Phases, dev_buf_dtype, dev_buf_words
from ._timing import Timing, Section, Stats, default
from ._traces import combine_traces
from . import _layout as layout

__all__ = ["Timing", "Section", "Phases", "Stats", "Error", "PtkitWarning", "AbiError",
           "default", "get_include", "get_library", "version", "nvrtc_headers",
           "dev_buf_dtype", "dev_buf_words", "stream_handle", "combine_traces", "layout",
           "flops_matmul", "flops_elementwise", "flops_spmv", "flops_spmm", "flops_einsum",
           "strerror", "ABI_VERSION"]

_lib = _capi.lib


def version():
    """The version of the libptkit loaded ("MAJOR.MINOR.PATCH")."""
    return _capi.text(_lib.pt_version())


__version__ = version()


def get_library():
    """The path of the libptkit this package loaded."""
    return _capi.path


def strerror(code):
    """ptkit's sentence for an error code."""
    return _capi.text(_lib.pt_strerror(int(code)))


def nvrtc_headers():
    """The headers an NVRTC program needs for <pt/pt_dev.h>, as a list of
    (include name, source) in nvrtcCreateProgram's order."""
    n = _ctypes.c_int()
    names = _ctypes.POINTER(_ctypes.c_char_p)()
    srcs = _ctypes.POINTER(_ctypes.c_char_p)()
    rc = _lib.pt_nvrtc_headers(_ctypes.byref(n), _ctypes.byref(names), _ctypes.byref(srcs))
    if rc:
        raise Error(rc, f"pt_nvrtc_headers: {strerror(rc)}")
    return [(_capi.text(names[i]), _capi.text(srcs[i])) for i in range(n.value)]


def _flops(v, what):
    if v != v:  # NaN: ptkit's answer to a negative or non-finite argument
        raise ValueError(f"{what}: arguments must be finite and >= 0")
    return v


def flops_matmul(m, n, k):
    """FLOPs of an (m x k) by (k x n) product: 2mnk."""
    return _flops(_lib.pt_flops_matmul(m, n, k), "flops_matmul")


def flops_elementwise(n, ops=1):
    """n elements, ops operations each."""
    return _flops(_lib.pt_flops_elementwise(n, ops), "flops_elementwise")


def flops_spmv(nnz):
    return _flops(_lib.pt_flops_spmv(nnz), "flops_spmv")


def flops_spmm(nnz, cols):
    return _flops(_lib.pt_flops_spmm(nnz, cols), "flops_spmm")


def flops_einsum(subscripts, *shapes):
    """FLOPs of a naive einsum, as ptkit counts them:
    ``flops_einsum("ik,ijk,jk->", (256, 3), (256, 256, 3), (256, 3))``."""
    ops = [tuple(int(d) for d in s) for s in shapes]
    arrs = [(_ctypes.c_longlong * max(1, len(s)))(*s) for s in ops]
    ptrs = (_ctypes.POINTER(_ctypes.c_longlong) * max(1, len(ops)))(
        *[_ctypes.cast(a, _ctypes.POINTER(_ctypes.c_longlong)) for a in arrs])
    ndims = (_ctypes.c_int * max(1, len(ops)))(*[len(s) for s in ops])
    out = _ctypes.c_double()
    why = _ctypes.create_string_buffer(256)
    rc = _lib.pt_flops_einsum(_ctypes.byref(out), subscripts.encode(), len(ops), ptrs, ndims,
                              why, len(why))
    if rc:
        raise Error(rc, f"{_capi.text(_lib.pt_err_name(rc))}: {_capi.text(why.value)}")
    return out.value


def __getattr__(name):
    if name == "DEV_BUF_DTYPE":
        return dev_buf_dtype()
    raise AttributeError(f"module 'ptkit' has no attribute {name!r}")
