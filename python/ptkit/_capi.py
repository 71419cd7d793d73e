"""libptkit through ctypes: where the library is, the structs it shares
with Python, the signature of every call, and the check that the library
is the one these mirror (PT_ABI_VERSION and each struct's size).

Only public, exported symbols are called, by their current names (never
the previous release's, which pt.h keeps for C as deprecated aliases);
the macros of pt.h have function twins for bindings in pt_ffi.h
(pt_start_with and the others)."""

import ctypes
import os

# The PT_ABI_VERSION of include/pt/pt_ffi.h these mirrors are written for.
ABI_VERSION = 2

_here = os.path.dirname(os.path.abspath(__file__))


class AbiError(ImportError):
    """libptkit is missing, or is not the library this package mirrors."""


c_int, c_uint, c_double, c_size_t = ctypes.c_int, ctypes.c_uint, ctypes.c_double, ctypes.c_size_t
c_u64, c_ll, c_long = ctypes.c_uint64, ctypes.c_longlong, ctypes.c_long
c_char_p, c_void_p = ctypes.c_char_p, ctypes.c_void_p


class Metrics(ctypes.Structure):
    _fields_ = [("_tag", c_int), ("read", c_double), ("written", c_double), ("flops", c_double)]


class LogOpts(ctypes.Structure):
    _fields_ = [("_tag", c_int), ("percentages", c_int), ("sort", c_int), ("view", c_int),
                ("max_depth", c_int), ("top", c_int), ("threads", c_int)]


class DevBuf(ctypes.Structure):
    """pt_dev_buf, the kernel argument: where the records are and their shape."""
    _fields_ = [("data", c_void_p), ("nslots", c_int), ("nphases", c_int),
                ("trace_cap", c_int), ("mode", c_int)]


class DevClock(ctypes.Structure):
    _fields_ = [("calibrated", c_int), ("cycles_per_ns", c_double), ("tick_ns", c_double),
                ("blocks_own", c_ll), ("blocks_cal", c_ll), ("device", c_int),
                ("device_name", ctypes.c_char * 96), ("folds", c_ll), ("slots_skipped", c_ll),
                ("mark_cycles", c_double), ("slots_unfinished", c_ll),
                ("untraced", c_ll)]


class SectionStats(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("depth", c_int), ("open", c_int), ("gpu", c_int),
                ("phase", c_int), ("count", c_u64), ("total_ms", c_double),
                ("self_ms", c_double), ("first_ms", c_double), ("mean_ms", c_double),
                ("stddev_ms", c_double), ("min_ms", c_double), ("max_ms", c_double),
                ("pct_parent", c_double), ("pct_total", c_double), ("read_bytes", c_double),
                ("written_bytes", c_double), ("flops", c_double), ("read_gbs", c_double),
                ("write_gbs", c_double), ("gflops", c_double), ("xfer_bytes", c_double * 3),
                ("xfer_gbs", c_double * 3), ("blocks", c_u64), ("hits", c_double),
                ("block_mean_ms", c_double), ("block_min_ms", c_double),
                ("block_max_ms", c_double), ("imbalance", c_double),
                ("block_p50_ms", c_double), ("block_p90_ms", c_double),
                ("block_p99_ms", c_double), ("ai", c_double),
                ("pct_peak_bw", c_double), ("pct_peak_flops", c_double), ("bound", c_int),
                ("mem_high_water", c_double), ("overhead_ms", c_double),
                ("too_short", c_u64), ("cpu_clock", c_u64), ("ranks", c_u64),
                ("rank_min_ms", c_double), ("rank_mean_ms", c_double),
                ("rank_max_ms", c_double), ("rank_slowest", c_u64), ("sms", c_u64),
                ("sm_busiest", c_u64), ("sm_mean_ms", c_double), ("sm_min_ms", c_double),
                ("sm_max_ms", c_double), ("sm_imbalance", c_double),
                ("shape_folds", c_u64), ("waves", c_double), ("sm_resident", c_u64),
                ("device_sms", c_u64), ("span_ms", c_double), ("tail_ms", c_double),
                ("tail_pct", c_double), ("sm_idle_pct", c_double), ("slowest_block", c_u64),
                ("slowest_block_ms", c_double), ("slowest_block_sm", c_u64),
                ("stragglers", c_u64), ("straggler_sm", c_u64), ("sample_every", c_u64),
                ("sample_slots", c_u64), ("overlap_folds", c_u64), ("busy_ms", c_double),
                ("overlap_pct", c_double), ("wait_ms", c_double), ("bubble_ms", c_double)]


class RunStats(ctypes.Structure):
    _fields_ = [("section_count", c_size_t), ("total_ms", c_double), ("error_count", c_u64),
                ("gpu_timing", c_int), ("gpu_fallback", c_int), ("open_count", c_size_t),
                ("dropped", c_u64), ("clock", c_char_p), ("clock_ghz", c_double),
                ("trace_dropped", c_u64), ("threads", c_int), ("note_count", c_u64),
                ("gpu_fallback_why", c_char_p), ("pair_ns", c_double),
                ("pair_inside_ns", c_double), ("short_count", c_size_t), ("ranks", c_int),
                ("ranks_empty", c_int)]


class Peaks(ctypes.Structure):
    _fields_ = [("bytes_per_s", c_double), ("flops_per_s", c_double), ("source", c_char_p)]


class MemoryStats(ctypes.Structure):
    _fields_ = [("tensors", c_size_t), ("total", c_double), ("peak", c_double),
                ("device_sampled", c_int), ("device_free", c_double),
                ("device_total", c_double), ("device_used_peak", c_double)]


class ScheduleInfo(ctypes.Structure):
    _fields_ = [("on", c_int), ("wait", c_uint), ("warmup", c_uint), ("active", c_uint),
                ("repeat", c_uint), ("steps", c_u64), ("recorded", c_u64), ("recording", c_int)]


class ThreadInfo(ctypes.Structure):
    _fields_ = [("index", c_int), ("tid", c_long), ("occurrences", c_u64),
                ("busy_ms", c_double), ("open", c_size_t)]


class ThreadPart(ctypes.Structure):
    _fields_ = [("thread", c_int), ("count", c_u64), ("total_ms", c_double),
                ("mean_ms", c_double), ("pct_section", c_double)]


class SpanStats(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("count", c_u64), ("unmatched", c_u64),
                ("total_ms", c_double), ("mean_ms", c_double), ("p50_ms", c_double),
                ("p99_ms", c_double), ("max_ms", c_double)]


# Every struct Python reads or writes, by its C name: each is checked
# against the library's size when the library is loaded.
STRUCTS = {
    "pt_metrics": Metrics, "pt_log_opts": LogOpts, "pt_dev_buf": DevBuf,
    "pt_dev_clock": DevClock, "pt_section_stats": SectionStats, "pt_run_stats": RunStats,
    "pt_peaks": Peaks, "pt_memory_stats": MemoryStats, "pt_schedule_info": ScheduleInfo,
    "pt_thread_info": ThreadInfo, "pt_thread_part": ThreadPart, "pt_span_stats": SpanStats,
}

ClockFn = ctypes.CFUNCTYPE(ctypes.c_int64, c_void_p)
LineFn = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)

T = c_void_p        # pt_timing *
S = c_void_p        # const pt_section *
B = c_void_p        # pt_dev_records *
P = ctypes.POINTER
_I, _V = c_int, None

# name: (restype, argtypes)
SIGNATURES = {
    "pt_abi_version": (_I, []),
    "pt_abi_sizeof": (c_size_t, [c_char_p]),
    "pt_version": (c_char_p, []),
    "pt_strerror": (c_char_p, [_I]),
    "pt_err_name": (c_char_p, [_I]),
    "pt_create": (T, [c_char_p, c_uint]),
    "pt_destroy": (_V, [T]),
    "pt_default": (T, []),
    "pt_disable": (_V, [T]),
    "pt_enable": (_V, [T]),
    "pt_enabled": (_I, [T]),
    "pt_reset": (_V, [T]),
    "pt_clock_set": (_I, [T, ClockFn, c_void_p]),
    "pt_name": (c_char_p, [T]),
    "pt_start_with": (_I, [T, c_char_p, P(Metrics)]),
    "pt_stop_with": (_I, [T, c_char_p, P(Metrics)]),
    "pt_add_with": (_I, [T, P(Metrics)]),
    "pt_start_gpu_with": (_I, [T, c_char_p, c_void_p, P(Metrics)]),
    "pt_stop_gpu_with": (_I, [T, c_char_p, c_void_p, P(Metrics)]),
    "pt_transfer": (_I, [T, c_double, c_uint]),
    "pt_sync": (_I, [T]),
    "pt_dev_records_create": (B, [T, _I, _I, P(c_char_p), c_uint, _I]),
    "pt_dev_arg_get": (_I, [B, P(DevBuf)]),
    "pt_dev_records_host": (_I, [B]),
    "pt_dev_reset": (_I, [B, c_void_p]),
    "pt_dev_records_free": (_V, [B]),
    "pt_dev_fold": (_I, [T, B, c_char_p]),
    "pt_dev_fold_role": (_I, [T, B, c_char_p, c_char_p]),
    "pt_dev_records_waits": (_I, [B, _I, P(c_int)]),
    "pt_dev_records_spans": (_I, [B, _I, P(c_char_p)]),
    "pt_dev_records_sample": (_I, [B, _I]),
    "pt_dev_clock_get": (_I, [T, P(DevClock)]),
    "pt_root": (S, [T]),
    "pt_section_child": (S, [S]),
    "pt_section_next": (S, [S]),
    "pt_section_parent": (S, [S]),
    "pt_section_name": (c_char_p, [S]),
    "pt_find": (S, [T, c_char_p]),
    "pt_section_path": (_I, [S, c_char_p, c_size_t]),
    "pt_section_get": (_I, [T, S, P(SectionStats)]),
    "pt_section_spans_get": (_I, [T, S, P(SpanStats), _I]),
    "pt_run_get": (_I, [T, P(RunStats)]),
    "pt_bottlenecks": (c_size_t, [T, c_size_t, P(S)]),
    "pt_threads": (_I, [T]),
    "pt_thread_get": (_I, [T, _I, P(ThreadInfo)]),
    "pt_thread_part_get": (_I, [T, S, _I, P(ThreadPart)]),
    "pt_flops_matmul": (c_double, [c_double, c_double, c_double]),
    "pt_flops_elementwise": (c_double, [c_double, c_double]),
    "pt_flops_spmv": (c_double, [c_double]),
    "pt_flops_spmm": (c_double, [c_double, c_double]),
    "pt_flops_einsum": (_I, [P(c_double), c_char_p, _I, P(P(c_ll)), P(_I), c_char_p, c_size_t]),
    "pt_peaks_set": (_I, [T, c_double, c_double]),
    "pt_peaks_get": (_I, [T, P(Peaks)]),
    "pt_track": (_I, [T, c_char_p, c_void_p, c_double, P(c_ll), _I, c_char_p]),
    "pt_untrack": (_I, [T, c_char_p]),
    "pt_memory_sampling_set": (_I, [T, _I]),
    "pt_memory_get": (_I, [T, P(MemoryStats)]),
    "pt_error_count": (c_u64, [T]),
    "pt_error_count_of": (c_u64, [T, _I]),
    "pt_note_count": (c_u64, [T]),
    "pt_last_note": (c_char_p, [T]),
    "pt_last_error": (c_char_p, [T]),
    "pt_error_fn_set": (_V, [T, LineFn, c_void_p]),
    "pt_log_fn_with": (_I, [T, LineFn, c_void_p, P(LogOpts)]),
    "pt_export_csv": (_I, [T, c_char_p]),
    "pt_export_json": (_I, [T, c_char_p]),
    "pt_export_html": (_I, [T, c_char_p]),
    "pt_export_trace": (_I, [T, c_char_p]),
    "pt_trace_capacity_set": (_I, [T, c_size_t]),
    "pt_schedule_set": (_I, [T, c_uint, c_uint, c_uint, c_uint]),
    "pt_step": (_I, [T]),
    "pt_schedule_get": (_I, [T, P(ScheduleInfo)]),
    "pt_nvrtc_headers": (_I, [P(_I), P(P(c_char_p)), P(P(c_char_p))]),
}

# Codes and flags of pt.h, as the library defines them.
PT_CPU, PT_GPU_EVENTS, PT_SYNC, PT_NVTX, PT_VERBOSE, PT_NO_TSC, PT_TRACE = 0, 1, 2, 4, 8, 16, 32
PT_DEV_TRACE, PT_DEV_HOST = 1, 2
PT_H2D, PT_D2H, PT_D2D = 1, 2, 4
PT_EOPEN = -5
PT_EINVAL = -1
PT_ERRORS = range(-1, -15, -1)


def library_path():
    """The libptkit this package loads: $PTKIT_LIBRARY, else the one it
    was installed with."""
    env = os.environ.get("PTKIT_LIBRARY")
    if env:
        return env
    return os.path.join(_here, "_lib", "libptkit.so")


def _load(path):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        how = ("unset PTKIT_LIBRARY or point it at a libptkit.so" if os.environ.get("PTKIT_LIBRARY")
               else "install the package from the ptkit source tree: "
                    "pip install --no-build-isolation ./python")
        raise AbiError(f"ptkit: cannot load libptkit from {path} ({e}); {how}") from None
    same = "install the package and the library from one ptkit source tree"
    try:
        abi = lib.pt_abi_version
    except AttributeError:
        raise AbiError(f"ptkit: {path} has no pt_abi_version(): it is not a libptkit, or one "
                       f"older than this package (ABI {ABI_VERSION}); {same}") from None
    abi.restype, abi.argtypes = c_int, []
    have = abi()
    if have != ABI_VERSION:
        raise AbiError(f"ptkit: {path} has ABI {have}, this package needs ABI {ABI_VERSION}; "
                       f"{same}")
    sizeof = lib.pt_abi_sizeof
    sizeof.restype, sizeof.argtypes = c_size_t, [c_char_p]
    for name, struct in STRUCTS.items():
        n = sizeof(name.encode())
        if n != ctypes.sizeof(struct):
            raise AbiError(f"ptkit: {name} is {n} bytes in {path} and {ctypes.sizeof(struct)} "
                           f"in this package's mirror of it; {same}")
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise AbiError(f"ptkit: {path} lacks {name}(); {same}") from None
        fn.restype, fn.argtypes = restype, argtypes
        checked = _range_checked(name, fn, argtypes)
        if checked is not fn:
            setattr(lib, name, checked)
    return lib


# ctypes converts an integer to a C one by cutting its bits: -1 becomes
# 4294967295 for an unsigned int. Every call with an integer parameter is
# checked first, so a value the C type cannot hold raises ValueError.
def _bits_range(t):
    bits = 8 * ctypes.sizeof(t)
    signed = t(-1).value < 0
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


_INTS = (ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_ulong, ctypes.c_longlong,
         ctypes.c_ulonglong, ctypes.c_size_t, ctypes.c_ssize_t, ctypes.c_int64, ctypes.c_uint64,
         ctypes.c_int32, ctypes.c_uint32)


def _range_checked(name, fn, argtypes):
    ranges = [(i, _bits_range(t)) for i, t in enumerate(argtypes) if t in _INTS]
    if not ranges:
        return fn

    def call(*args):
        for i, (lo, hi) in ranges:
            if i < len(args):
                v = args[i]
                if isinstance(v, int) and not lo <= v <= hi:
                    raise ValueError(f"{name}: argument {i + 1} is {v}, which its C type "
                                     f"holds only in [{lo}, {hi}]")
        return fn(*args)

    call.__name__ = name
    call.raw = fn
    return call


path = library_path()
lib = _load(path)


def text(b):
    """A C string from the library as str (titles may hold any bytes)."""
    return b.decode("utf-8", "replace") if b is not None else ""
