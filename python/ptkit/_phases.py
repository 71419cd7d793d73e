"""Device record buffers (pt_dev_records) for one grid and its phases,
and the kernel argument's layout."""

import ctypes
import enum

from . import _capi
from ._capi import lib
from ._common import _Closing, _encode, stream_handle


class Phases(_Closing):
    """A device record buffer (pt_dev_records) for one grid and its phases."""

    def __init__(self, timing, blocks, names, trace, host):
        if isinstance(names, type) and issubclass(names, enum.Enum):
            members = sorted(names, key=lambda m: m.value)
            if [m.value for m in members] != list(range(len(members))):
                raise ValueError(f"phases: {names.__name__}'s values must be 0..{len(members) - 1}, "
                                 f"the indices PT_DEV_MARK records")
            names = [m.name for m in members]
        if isinstance(names, int) and not isinstance(names, bool):
            nphases, arr = names, None
        else:
            names = list(names)
            nphases = len(names)
            arr = (ctypes.c_char_p * max(1, nphases))(*[_encode(n, "a phase name") for n in names])
        flags = (_capi.PT_DEV_TRACE if trace else 0) | (_capi.PT_DEV_HOST if host else 0)
        self._timing = timing
        if not timing._t:
            raise ValueError("phases: the timing is closed")
        b = lib.pt_dev_records_create(timing._t, int(blocks), int(nphases), arr, flags, int(trace))
        if not b:
            timing._fail("phases")
        self._b = b
        a = _capi.DevBuf()
        lib.pt_dev_arg_get(b, ctypes.byref(a))
        self._arg = a
        self.names = tuple(names) if arr is not None else tuple(f"phase {i}" for i in range(nphases))
        timing._check(0)  # the host-memory fallback without a device, as a warning

    def _configure(self, waits, spans, sample):
        """The waits, span kinds and sample of timing.phases()."""
        index = {n: i for i, n in enumerate(self.names)}
        w = []
        for p in waits:
            if isinstance(p, str):
                if p not in index:
                    raise ValueError(f"phases: no phase named {p!r} to wait in")
                p = index[p]
            w.append(int(p))
        if w:
            arr = (ctypes.c_int * len(w))(*w)
            self._timing._check(lib.pt_dev_records_waits(self._b, len(w), arr), "phases")
        spans = list(spans)
        if spans:
            arr = (ctypes.c_char_p * len(spans))(*[_encode(n, "a span kind") for n in spans])
            self._timing._check(lib.pt_dev_records_spans(self._b, len(spans), arr), "phases")
        if sample != 1:
            self._timing._check(lib.pt_dev_records_sample(self._b, int(sample)), "phases")

    @property
    def nslots(self):
        return self._arg.nslots

    @property
    def nphases(self):
        return self._arg.nphases

    @property
    def trace_cap(self):
        return self._arg.trace_cap

    @property
    def host(self):
        """True when the records are in host memory (host=True, or no device)."""
        return bool(lib.pt_dev_records_host(self._b))

    @property
    def arg_bytes(self):
        """The kernel argument's bytes, laid out as pt_dev_buf (for a torch
        extension: memcpy them into a pt_dev_buf after checking the size)."""
        return ctypes.string_at(ctypes.addressof(self._arg), ctypes.sizeof(self._arg))

    @property
    def arg(self):
        """The kernel argument for CuPy: a 0-d NumPy array of dev_buf_dtype(),
        which CuPy passes to a kernel by value as a pt_dev_buf."""
        import numpy
        return numpy.frombuffer(self.arg_bytes, dtype=dev_buf_dtype()).reshape(())

    @property
    def ctypes_arg(self):
        """The kernel argument as a ctypes struct (host-mode C code via ctypes)."""
        return _capi.DevBuf.from_buffer_copy(self._arg)

    def records(self):
        """The whole buffer as a writable NumPy int64 array over its host
        memory (pt_dev_buf.h's layout); only for a buffer in host memory."""
        import numpy
        if not self._b:
            raise ValueError("records: the buffer is closed")
        if not self.host:
            raise ValueError("records: the buffer is in device memory; copy it with your "
                             "CUDA library, or make it with host=True")
        words = dev_buf_words(self.nslots, self.nphases, self.trace_cap)
        raw = (ctypes.c_longlong * words).from_address(self._arg.data)
        arr = numpy.ctypeslib.as_array(raw)
        arr.flags.writeable = True
        return arr

    def reset(self, stream=0):
        """Zero the records before a launch, on its stream."""
        self._timing._check(lib.pt_dev_reset(self._b, stream_handle(stream)), "reset")

    def fold(self, title, role=None):
        """timing.fold(self, title, role)."""
        self._timing.fold(self, title, role)

    def close(self):
        """Free the buffer; its argument becomes the empty one the macros skip."""
        if getattr(self, "_b", None):
            lib.pt_dev_records_free(self._b)
            self._b = None
            self._arg = _capi.DevBuf()


def dev_buf_dtype():
    """The NumPy structured dtype of pt_dev_buf: data (the records' address),
    nslots, nphases, trace_cap, mode; 24 bytes, aligned as the C struct."""
    import numpy
    return numpy.dtype({"names": [f for f, _ in _capi.DevBuf._fields_],
                        "formats": ["<u8", "<i4", "<i4", "<i4", "<i4"],
                        "offsets": [getattr(_capi.DevBuf, f).offset for f, _ in _capi.DevBuf._fields_],
                        "itemsize": ctypes.sizeof(_capi.DevBuf)}, align=True)


def dev_buf_words(nslots, nphases, trace_cap=0):
    """Words (int64) of a whole buffer: PT_DEV_BUF_WORDS of pt_dev_buf.h."""
    from . import _layout
    return _layout.HDR + nslots * _layout.slot_words(nphases, trace_cap)
