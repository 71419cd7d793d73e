"""Timing and its sections, over libptkit."""

import ctypes
import math
import numbers
import functools
import inspect
import os
import threading
import warnings

from . import _capi
from ._capi import lib
from ._common import Error, _Closing, _encode, _warn, stream_handle
from ._phases import Phases

try:  # Timing.start/stop without ctypes, built by pip install where it can be
    from . import _fast
except ImportError:
    _fast = None

_SORTS = {"order": 0, "time": 1, "flops": 2, "name": 3}
_VIEWS = {"tree": 0, "table": 1, "bottlenecks": 2, "memory": 3, "kernels": 4}
_DIRECTIONS = {"h2d": _capi.PT_H2D, "d2h": _capi.PT_D2H, "d2d": _capi.PT_D2D}
_METRICS = ("read", "written", "flops")


def _metrics(kw, what):
    """A pt_metrics from keyword arguments, or None when there are none."""
    if not kw:
        return None
    bad = set(kw) - set(_METRICS)
    if bad:
        raise TypeError(f"{what}: unknown metric {sorted(bad)[0]!r}; "
                        f"the metrics are read, written and flops")
    m = _capi.Metrics()
    for k, v in kw.items():
        # A number: a string is no count of bytes or FLOPs, even "12".
        if isinstance(v, (str, bytes, bool)) or not isinstance(v, numbers.Real):
            raise TypeError(f"{what}: {k}={v!r}: a metric is a number")
        try:
            f = float(v)
        except OverflowError:
            raise ValueError(f"{what}: {k}={repr(v)[:24]}... is too large for a double") from None
        if not math.isfinite(f) or f < 0:
            raise ValueError(f"{what}: {k}={v!r}: a metric is finite and not negative")
        setattr(m, k, f)
    return ctypes.byref(m)


class Stats:
    """One section's figures (pt_section_stats), with its ``path``. Times in
    milliseconds; ``xfer_bytes``/``xfer_gbs`` are (H2D, D2H, D2D)."""

    __slots__ = ("path",) + tuple(f for f, _ in _capi.SectionStats._fields_)

    def __init__(self, path, st):
        self.path = path
        for f, _ in _capi.SectionStats._fields_:
            v = getattr(st, f)
            if f == "name":
                v = _capi.text(v)
            elif f.startswith("xfer_"):
                v = tuple(v)
            setattr(self, f, v)

    def as_dict(self):
        return {f: getattr(self, f) for f in self.__slots__}

    def __repr__(self):
        return f"<ptkit.Stats {self.path!r} count={self.count} total_ms={self.total_ms:.6g}>"


def _struct_dict(st):
    return {f: (_capi.text(getattr(st, f)) if isinstance(getattr(st, f), bytes) else getattr(st, f))
            for f, _ in st._fields_}


class Section:
    """A section as a context manager and a decorator:

        with timing.section("matrix_multiply", flops=12345) as s:
            s.add(written=234544)

        @timing.section("solve")        # or @timing.section() for the function's name
        def solve(): ...

    With ``stream`` it is timed by CUDA events on that stream."""

    def __init__(self, timing, title, stream, metrics):
        self._timing = timing
        self.title = title
        self._stream = stream
        self._metrics = metrics

    def __enter__(self):
        if self.title is None:
            raise TypeError("a section without a title is a decorator: @timing.section()")
        if self._stream is None:
            if self._metrics:
                self._timing.start(self.title, **self._metrics)
            else:
                self._timing.start(self.title)
        else:
            self._timing.start_gpu(self.title, self._stream, **self._metrics)
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if self._stream is None:
                self._timing.stop(self.title)
            else:
                self._timing.stop_gpu(self.title, self._stream)
        except Error:
            # The body's own exception says more than a stop that could not
            # match after it; without one, the failed stop is the news.
            if exc_type is None:
                raise
        return False

    def add(self, **metrics):
        """Add metrics to the open section (this one, unless one is open inside it)."""
        self._timing.add(**metrics)

    def __call__(self, fn):
        title = self.title if self.title is not None else getattr(fn, "__qualname__", fn.__name__)
        sec = Section(self._timing, title, self._stream, self._metrics)

        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            # Its body runs between awaits, among other tasks of the thread,
            # whose sections would open and close inside it: no stack of
            # sections can hold that. Calling it only makes a coroutine.
            raise TypeError(f"@section() on the coroutine function {title!r}: a section "
                            "spans no await; time the synchronous parts inside it "
                            "with `with timing.section(...)`")
        if inspect.isgeneratorfunction(fn):
            # Calling it makes the generator: what runs is each resumption,
            # timed one by one (the section's count is the resumptions).
            @functools.wraps(fn)
            def timed_gen(*args, **kwargs):
                gen = fn(*args, **kwargs)
                value, exc = None, None
                while True:
                    with sec:
                        try:
                            out = gen.throw(exc) if exc is not None else gen.send(value)
                        except StopIteration as stop:
                            return stop.value
                    value, exc = None, None
                    try:
                        value = yield out
                    except GeneratorExit:
                        gen.close()
                        raise
                    except BaseException as e:  # thrown in: into the generator
                        exc = e

            return timed_gen

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            with sec:
                return fn(*args, **kwargs)

        return timed


if _fast is not None:
    class _PlainSection(_fast.Scope, Section):
        """Timing.section(title) with nothing else: a Section whose with
        block starts and stops it from C (ptkit._fast.Scope). One is kept
        per title by its timing, so a `with timing.section("x")` in a loop
        makes no object either."""

        def __init__(self, timing, title):
            Section.__init__(self, timing, title, None, {})
            self._bind(title, timing.start, timing.stop, Error)
else:
    _PlainSection = None


class Timing(_Closing):
    """A tree of named sections with the bytes and FLOPS you declare, timed
    by the CPU clock or by CUDA events, with in-kernel phases folded under
    their launches. ``gpu=True`` times GPU sections with CUDA events
    (without a GPU they fall back to the CPU clock, said once as a
    PtkitWarning); ``trace=True`` keeps the occurrences for export_trace().

    Errors raise ptkit.Error with ptkit's message; what ptkit only notes
    comes as a PtkitWarning. The null-safe pattern of C works too:
    ``timing = Timing("x") if profiling else None`` and
    ``timing and timing.start("y")``."""

    def __init__(self, name="ptkit", *, gpu=False, sync=False, trace=False, nvtx=False,
                 verbose=False, no_tsc=False, _handle=None):
        flags = ((_capi.PT_GPU_EVENTS if gpu else 0) | (_capi.PT_SYNC if sync else 0) |
                 (_capi.PT_TRACE if trace else 0) | (_capi.PT_NVTX if nvtx else 0) |
                 (_capi.PT_VERBOSE if verbose else 0) | (_capi.PT_NO_TSC if no_tsc else 0))
        self._owned = _handle is None
        self._t = _handle if _handle is not None else lib.pt_create(_encode(name, "name"), flags)
        if not self._t:
            raise MemoryError("pt_create: out of memory")
        self._titles = {}
        self._plain = {}
        self._msgs = []
        self._notes_seen = 0
        self._clock = None
        self._on_error = _capi.LineFn(self._collect)
        lib.pt_error_fn_set(self._t, self._on_error, None)
        self._fast = None
        if _fast is not None and type(self).start is Timing.start and type(self).stop is Timing.stop:
            addr = lambda fn: ctypes.cast(getattr(fn, "raw", fn), ctypes.c_void_p).value
            self._fast = _fast.Pair(ctypes.cast(self._t, ctypes.c_void_p).value,
                                    addr(lib.pt_start_with), addr(lib.pt_stop_with), self._msgs,
                                    self._check, functools.partial(Timing.start, self),
                                    functools.partial(Timing.stop, self))
            self.start, self.stop = self._fast.start, self._fast.stop

    # ---- errors -----------------------------------------------------

    def _collect(self, ctx, line):
        # Called by libptkit inside the failing call, on its thread.
        self._msgs.append((threading.get_ident(), _capi.text(line)))

    def _check(self, rc, what="", warn_open=False):
        """Raise for a negative code with ptkit's description of it; turn what
        was only noted into warnings, and a new note (a fact of the machine,
        said once: no device, so the CPU clock) into one too."""
        notes = lib.pt_note_count(self._t)
        if notes != self._notes_seen:
            self._notes_seen = notes
            _warn(_capi.text(lib.pt_last_note(self._t)))
        mine = []
        if self._msgs:
            me = threading.get_ident()
            mine = [m for tid, m in self._msgs if tid == me]
            self._msgs[:] = [(tid, m) for tid, m in self._msgs if tid != me]
        raised = [m for m in mine if isinstance(m, BaseException)]
        if raised:
            for m in mine:
                if not isinstance(m, BaseException):
                    _warn(m)
            e = raised[0]
            raise Error(_capi.PT_EINVAL, f"PT_EINVAL: {what}: the clock function raised "
                                         f"{type(e).__name__}: {e}") from e
        if rc < 0 and not (warn_open and rc == _capi.PT_EOPEN):
            name = _capi.text(lib.pt_err_name(rc))
            said = [m for m in mine if m.startswith(name + ":")]
            for m in mine:
                if m not in said:
                    _warn(m)
            msg = said[-1] if said else f"{name}: {what}: {_capi.text(lib.pt_strerror(rc))}"
            raise Error(rc, msg)
        for m in mine:
            _warn(m)
        return rc

    def _fail(self, what):
        """Raise for a call that returned NULL, with the error it described."""
        me = threading.get_ident()
        mine = [m for tid, m in self._msgs if tid == me]
        mine = [m for m in mine if isinstance(m, str)]
        name = mine[-1].split(":", 1)[0] if mine else ""
        code = next((c for c in _capi.PT_ERRORS if _capi.text(lib.pt_err_name(c)) == name), -2)
        self._check(code, what)

    def _title(self, title):
        b = self._titles.get(title)
        if b is None:
            b = _encode(title, "a title")
            if len(self._titles) < 4096:
                self._titles[title] = b
        return b

    # ---- life cycle -------------------------------------------------

    def close(self):
        """Free the timing; later calls do nothing, as on a NULL pt_timing."""
        fast = getattr(self, "_fast", None)
        if fast is not None:
            fast.close()
        if getattr(self, "_t", None) and self._owned:
            lib.pt_destroy(self._t)
        self._t = None

    @property
    def name(self):
        return _capi.text(lib.pt_name(self._t))

    @property
    def enabled(self):
        return bool(lib.pt_enabled(self._t))

    @enabled.setter
    def enabled(self, on):
        (lib.pt_enable if on else lib.pt_disable)(self._t)

    def reset(self):
        """Forget every section, figure and error."""
        lib.pt_reset(self._t)
        self._msgs.clear()

    def clock_set(self, fn):
        """Time by fn() (integer nanoseconds, never decreasing) instead of the
        built-in clock; None restores it. For tests and simulations."""
        last = [0]

        def read(ctx):
            # An exception cannot cross libptkit: it is said at the call
            # that read the clock (ptkit.Error), and the last good reading
            # stands in, so no section gets a time from nowhere.
            try:
                v = int(fn())
                if v < 0 or v >= 1 << 63:
                    raise ValueError(f"the clock function returned {v}, outside [0, 2**63)")
                last[0] = v
            except Exception as e:  # noqa: BLE001 - raised at the call, not swallowed
                self._msgs.append((threading.get_ident(), e))
            return last[0]

        cb = None if fn is None else _capi.ClockFn(read)
        self._check(lib.pt_clock_set(self._t, cb if cb else _capi.ClockFn(), None), "clock_set")
        self._clock = cb

    # ---- sections ---------------------------------------------------

    @staticmethod
    def _boundary(call, metrics, what):
        """call(pt_metrics pointer or None)'s code. A bad metric raises
        ValueError (TypeError for one that is no number) after call(None):
        the section is opened or closed all the same, as C does."""
        try:
            m = _metrics(metrics, what)
        except (TypeError, ValueError):
            call(None)
            raise
        return call(m)

    def start(self, title, **metrics):
        """Open the section ``title`` under the open one; metrics may follow
        (a bad one raises, the section open all the same)."""
        b = self._title(title)
        rc = self._boundary(lambda m: lib.pt_start_with(self._t, b, m), metrics, "start")
        if rc or self._msgs:
            self._check(rc, "start")

    def stop(self, title, **metrics):
        """Close the open section, which must be ``title``; metrics may
        follow (a bad one raises, the section closed all the same)."""
        b = self._title(title)
        rc = self._boundary(lambda m: lib.pt_stop_with(self._t, b, m), metrics, "stop")
        if rc or self._msgs:
            self._check(rc, "stop")

    def add(self, **metrics):
        """Add metrics (read, written, flops) to the open section."""
        self._check(lib.pt_add_with(self._t, _metrics(metrics, "add")), "add")

    def start_gpu(self, title, stream=0, **metrics):
        """Open a section timed by CUDA events on ``stream`` (an integer handle)."""
        rc = lib.pt_start_gpu_with(self._t, self._title(title), stream_handle(stream),
                                   _metrics(metrics, "start_gpu"))
        self._check(rc, "start_gpu")  # always: the first may bring a note

    def stop_gpu(self, title, stream=0, **metrics):
        """Close a section opened by start_gpu(); no host synchronization.
        A bad metric raises as stop() does, the section closed."""
        b, h = self._title(title), stream_handle(stream)
        rc = self._boundary(lambda m: lib.pt_stop_gpu_with(self._t, b, h, m), metrics, "stop_gpu")
        self._check(rc, "stop_gpu")  # always: the first may bring a note

    def section(self, title=None, *, stream=None, **metrics):
        """A section as a context manager or decorator; with ``stream`` (an
        integer handle, 0 for the default stream) timed by CUDA events."""
        if stream is None and not metrics and type(title) is str and _PlainSection is not None:
            s = self._plain.get(title)
            if s is None:
                if len(self._plain) >= 4096:
                    self._plain.clear()
                s = self._plain[title] = _PlainSection(self, title)
            return s
        _metrics(metrics, "section")
        return Section(self, title, stream, metrics)

    def gpu_section(self, title=None, stream=0, **metrics):
        """section() timed by CUDA events on ``stream``."""
        return self.section(title, stream=stream, **metrics)

    def transfer(self, nbytes, direction):
        """Record a transfer inside the open section: direction "h2d", "d2h" or "d2d"."""
        d = _DIRECTIONS.get(str(direction).lower())
        if d is None:
            raise ValueError(f"transfer: direction {direction!r}; it is 'h2d', 'd2h' or 'd2d'")
        self._check(lib.pt_transfer(self._t, float(nbytes), d), "transfer")

    def sync(self):
        """Wait for pending CUDA events and folds and put their times in the tree."""
        self._check(lib.pt_sync(self._t), "sync")

    # ---- in-kernel phases -------------------------------------------

    def phases(self, blocks, names, *, trace=0, host=False, waits=(), spans=(), sample=1):
        """A device record buffer for a grid of ``blocks`` slots and the
        phases ``names`` (a list of names, an IntEnum whose values are 0..n-1,
        or a count). ``trace=N`` also keeps N (phase, clock) events per slot;
        ``host=True`` puts it in host memory for pt_dev.h's host mode.
        ``waits`` names the phases that are waits (their indices, names or
        enum members: pt_dev_records_waits), ``spans`` the span kinds'
        names (pt_dev_records_spans), ``sample=N`` a kernel recording one
        slot in N (pt_dev_records_sample).
        Pass ``buf.arg`` to a CuPy kernel, ``buf.arg_bytes`` to a torch
        extension; after the launch, ``timing.fold(buf, launch_title)``."""
        buf = Phases(self, blocks, names, trace, host)
        try:
            buf._configure(waits, spans, sample)
        except BaseException:
            buf.close()
            raise
        return buf

    def fold(self, phases, title, role=None):
        """Fold the buffer's records under the launch section ``title``; with
        ``role``, into that role of the launch (pt_dev_fold_role): a
        warp-specialized kernel's buffer per role, each folded into its own."""
        if role is None:
            self._check(lib.pt_dev_fold(self._t, phases._b, self._title(title)), "fold")
        else:
            self._check(lib.pt_dev_fold_role(self._t, phases._b, self._title(title),
                                             self._title(role)), "fold")

    def dev_clock_get(self):
        """How the device's cycles became time (pt_dev_clock) as a dict."""
        dc = _capi.DevClock()
        self._check(lib.pt_dev_clock_get(self._t, ctypes.byref(dc)), "dev_clock_get")
        return _struct_dict(dc)

    # ---- figures ----------------------------------------------------

    def _path(self, s):
        n = lib.pt_section_path(s, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        lib.pt_section_path(s, buf, n + 1)
        return _capi.text(buf.value)

    def _stats(self, s):
        st = _capi.SectionStats()
        self._check(lib.pt_section_get(self._t, s, ctypes.byref(st)), "section figures")
        return Stats(self._path(s), st)

    def find(self, path):
        """A section's figures by its path of titles ("a/b"), or None."""
        s = lib.pt_find(self._t, _encode(path, "a path"))
        return self._stats(s) if s else None

    def spans(self, path):
        """A launch's spans (PT_DEV_SPAN_BEGIN/END), kind by kind, as dicts
        (name, count, unmatched, total_ms, mean_ms, p50_ms, p99_ms, max_ms);
        [] for a section without spans, None for no such section."""
        s = lib.pt_find(self._t, _encode(path, "a path"))
        if not s:
            return None
        n = lib.pt_section_spans_get(self._t, s, None, 0)
        self._check(min(n, 0), "spans")
        arr = (_capi.SpanStats * max(n, 1))()
        n = lib.pt_section_spans_get(self._t, s, arr, n)
        return [_struct_dict(sp) for sp in arr[:max(n, 0)]]

    def sections(self):
        """Every section's figures, parents before children, in tree order."""
        out, stack = [], []
        root = lib.pt_root(self._t)
        c = lib.pt_section_child(root) if root else None
        # An explicit stack of next siblings: no recursion, any depth.
        while c:
            out.append(self._stats(c))
            child = lib.pt_section_child(c)
            if child:
                stack.append(lib.pt_section_next(c))
                c = child
                continue
            c = lib.pt_section_next(c)
            while not c and stack:
                c = stack.pop()
        return out

    def bottlenecks(self, n=10):
        """The n sections with the most self time, largest first."""
        arr = (ctypes.c_void_p * n)()
        k = lib.pt_bottlenecks(self._t, n, arr)
        return [self._stats(arr[i]) for i in range(k)]

    def run_get(self):
        """The run's summary (pt_run_stats) as a dict."""
        rs = _capi.RunStats()
        self._check(lib.pt_run_get(self._t, ctypes.byref(rs)), "run_get")
        return _struct_dict(rs)

    def data(self):
        """The run as plain data: its name, summary and every section."""
        return {"name": self.name, "stats": self.run_get(),
                "sections": [s.as_dict() for s in self.sections()]}

    def threads(self):
        """Each thread's share (pt_thread_info) as dicts, the creator first."""
        out = []
        for i in range(lib.pt_threads(self._t)):
            ti = _capi.ThreadInfo()
            self._check(lib.pt_thread_get(self._t, i, ctypes.byref(ti)), "threads")
            out.append(_struct_dict(ti))
        return out

    def error_count(self, code=None):
        """Errors counted on the timing (of one PT_E... code when given)."""
        if code is None:
            return lib.pt_error_count(self._t)
        return lib.pt_error_count_of(self._t, int(code))

    @property
    def last_error(self):
        return _capi.text(lib.pt_last_error(self._t))

    def note_count(self):
        """Notes counted on the timing: facts of the machine said once (GPU
        sections timed by the CPU clock for want of a device), not errors."""
        return lib.pt_note_count(self._t)

    @property
    def last_note(self):
        return _capi.text(lib.pt_last_note(self._t))

    # ---- roofline, memory, schedule ---------------------------------

    def peaks_set(self, bytes_per_s, flops_per_s):
        self._check(lib.pt_peaks_set(self._t, float(bytes_per_s), float(flops_per_s)), "peaks_set")

    def peaks_get(self):
        p = _capi.Peaks()
        self._check(lib.pt_peaks_get(self._t, ctypes.byref(p)), "peaks_get")
        return _struct_dict(p)

    def track(self, name, obj=None, *, nbytes=None, shape=None, dtype=None):
        """Track a tensor by name: a NumPy, CuPy or torch array (its size,
        shape, dtype and address are read), or nbytes/shape/dtype given."""
        ptr = None
        if obj is not None:
            if nbytes is None:
                nbytes = getattr(obj, "nbytes", None)
                if nbytes is None and hasattr(obj, "numel"):
                    nbytes = obj.numel() * obj.element_size()
            shape = tuple(obj.shape) if shape is None else shape
            dtype = str(obj.dtype).replace("torch.", "") if dtype is None else dtype
            if callable(getattr(obj, "data_ptr", None)):
                ptr = obj.data_ptr()
            elif hasattr(getattr(obj, "data", None), "ptr"):
                ptr = obj.data.ptr
            elif hasattr(obj, "ctypes"):
                ptr = obj.ctypes.data
        if nbytes is None:
            raise TypeError("track: give an array or nbytes")
        shape = tuple(shape or ())
        arr = (ctypes.c_longlong * max(1, len(shape)))(*shape)
        self._check(lib.pt_track(self._t, _encode(name, "name"), ptr, float(nbytes),
                                 arr if shape else None, len(shape),
                                 _encode(dtype, "dtype") if dtype else None), "track")

    def untrack(self, name):
        self._check(lib.pt_untrack(self._t, _encode(name, "name")), "untrack")

    def memory_sampling_set(self, on=True):
        self._check(lib.pt_memory_sampling_set(self._t, int(bool(on))), "memory_sampling_set")

    def memory_get(self):
        m = _capi.MemoryStats()
        self._check(lib.pt_memory_get(self._t, ctypes.byref(m)), "memory_get")
        return _struct_dict(m)

    def schedule_set(self, wait, warmup, active, repeat=1):
        """Record only some steps, as torch.profiler.schedule; call step() at each step's end."""
        self._check(lib.pt_schedule_set(self._t, wait, warmup, active, repeat), "schedule_set")

    def step(self):
        self._check(lib.pt_step(self._t), "step")

    def schedule_get(self):
        si = _capi.ScheduleInfo()
        self._check(lib.pt_schedule_get(self._t, ctypes.byref(si)), "schedule_get")
        return _struct_dict(si)

    def trace_capacity_set(self, n):
        self._check(lib.pt_trace_capacity_set(self._t, int(n)), "trace_capacity_set")

    # ---- the names before C's pt_<noun>_<verb> renames, kept one release

    def _renamed(old, new):
        def f(self, *args, **kwargs):
            warnings.warn("Timing.%s is Timing.%s now (as C's pt_%s)" % (old, new, new),
                          DeprecationWarning, stacklevel=2)
            return getattr(self, new)(*args, **kwargs)
        f.__name__ = old
        f.__doc__ = "Deprecated: use %s." % new
        return f

    set_clock = _renamed("set_clock", "clock_set")
    dev_clock = _renamed("dev_clock", "dev_clock_get")
    stats = _renamed("stats", "run_get")
    set_peaks = _renamed("set_peaks", "peaks_set")
    peaks = _renamed("peaks", "peaks_get")
    memory_sampling = _renamed("memory_sampling", "memory_sampling_set")
    memory = _renamed("memory", "memory_get")
    schedule = _renamed("schedule", "schedule_set")
    schedule_info = _renamed("schedule_info", "schedule_get")
    set_trace_capacity = _renamed("set_trace_capacity", "trace_capacity_set")
    del _renamed

    # ---- reports and exports ----------------------------------------

    def report(self, *, percentages=False, sort="order", view="tree", max_depth=0, top=0,
               threads=False):
        """The report pt_log() prints, as text. Sections still open are
        shown marked, with a PtkitWarning."""
        if sort not in _SORTS:
            raise ValueError(f"report: sort {sort!r}; one of {', '.join(_SORTS)}")
        if view not in _VIEWS:
            raise ValueError(f"report: view {view!r}; one of {', '.join(_VIEWS)}")
        o = _capi.LogOpts(0, int(bool(percentages)), _SORTS[sort], _VIEWS[view], int(max_depth),
                          int(top), int(bool(threads)))
        lines = []
        fn = _capi.LineFn(lambda ctx, line: lines.append(_capi.text(line)))
        self._check(lib.pt_log_fn_with(self._t, fn, None, ctypes.byref(o)), "report",
                    warn_open=True)
        return "\n".join(lines) + ("\n" if lines else "")

    def log(self, dest=None, **opts):
        """Print the report: to stdout, a file, or a logging.Logger (a line per call)."""
        text = self.report(**opts)
        if dest is None:
            import sys
            dest = sys.stdout
        if callable(getattr(dest, "info", None)) and not hasattr(dest, "write"):
            for line in text.splitlines():
                dest.info("%s", line)
        else:
            dest.write(text)

    def _export(self, fn, path, what):
        self._check(fn(self._t, _encode(os.fspath(path), "a path")), what, warn_open=True)

    def export_csv(self, path):
        """One CSV row per section. Written whole or not at all."""
        self._export(lib.pt_export_csv, path, "export_csv")

    def export_json(self, path):
        """The tree as JSON (ptreport reads it)."""
        self._export(lib.pt_export_json, path, "export_json")

    def export_html(self, path):
        """One self-contained HTML page of the run."""
        self._export(lib.pt_export_html, path, "export_html")

    def export_trace(self, path):
        """A Chrome/Perfetto trace: the occurrences with trace=True, else the
        aggregate flame chart. libptkit writes where its times start on the
        wall clock (baseTimeNanoseconds), so combine_traces() can put it
        beside a torch.profiler trace."""
        self._export(lib.pt_export_trace, path, "export_trace")


def default():
    """The process-wide timing (pt_default()); it is never freed from Python."""
    t = lib.pt_default()
    if not t:
        raise MemoryError("pt_default: out of memory")
    return Timing(_handle=t)
