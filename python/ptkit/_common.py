"""What the timing and its record buffers share: ptkit's errors and
warnings, strings and stream handles as libptkit takes them, and the base
that frees an object's C side."""

import os
import warnings

from . import _capi
from ._capi import lib


class Error(Exception):
    """A ptkit call failed. ``code`` is the negative PT_E... code, ``name``
    its symbol ("PT_EMISMATCH"); the message is ptkit's description."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.name = _capi.text(lib.pt_err_name(code))


class PtkitWarning(RuntimeWarning):
    """Something ptkit counted and described, without failing the call:
    GPU sections timed by the CPU clock, a report made with sections open."""


_pkg = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _warn(msg):
    """A PtkitWarning attributed to the first caller outside the package."""
    import sys
    level, f = 2, sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_pkg):
        f, level = f.f_back, level + 1
    warnings.warn(msg, PtkitWarning, stacklevel=level)


def _encode(s, what):
    """s as the C string libptkit takes; a NUL inside would end it early
    ("a\\0b" and "a\\0c" would be one title "a"), so it is refused."""
    if isinstance(s, bytes):
        b = s
    elif isinstance(s, str):
        b = s.encode("utf-8", "surrogateescape")
    else:
        raise TypeError(f"{what} must be str or bytes, not {type(s).__name__}")
    if b"\0" in b:
        raise ValueError(f"{what} holds a NUL character, which would end it in C: {s!r}")
    return b


def stream_handle(stream):
    """A CUDA stream as the integer handle libptkit takes: an int (0 or None
    is the default stream), CuPy's ``stream.ptr`` or torch's
    ``stream.cuda_stream``; a CuPy or torch stream object is read for them."""
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise TypeError("a stream is an integer handle, not a bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"a stream handle is an address, not {stream}")
        return stream
    for attr in ("cuda_stream", "ptr"):
        h = getattr(stream, attr, None)
        if isinstance(h, int) and not isinstance(h, bool):
            return h
    raise TypeError(f"a stream is an integer handle (CuPy's stream.ptr, torch's "
                    f"stream.cuda_stream), not {type(stream).__name__}")


class _Closing:
    """Freed by close(), at the end of a with block, or when collected.

    It owns one C object: a copy would be a second owner (two frees), so
    copy.copy(), copy.deepcopy() and pickle refuse, saying so."""

    def __del__(self):
        self.close()

    def _no_copy(self, *args):
        raise TypeError(f"a ptkit {type(self).__name__} owns its C object and cannot be copied "
                        f"or pickled: pass the same object around instead")

    __copy__ = _no_copy
    __deepcopy__ = _no_copy
    __reduce_ex__ = _no_copy

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
