"""Device record buffers from Python: the kernel argument for CuPy (a
structured NumPy scalar) and for a torch extension (its bytes), and
host-mode folds, from records written in pt_dev_buf.h's layout by Python
and by pt_dev.h's macros in C code handed the argument by value."""

import ctypes
import re
import enum
import time

import numpy
import pytest

import ptkit

from conftest import span

L = ptkit.layout


class Phase(enum.IntEnum):
    angular = 0
    energy = 1
    stream = 2


def write_slot(rec, s, nphases, clk_span, gt_span, cycles, hits=None, smid=0, gt0=0):
    """Slot s as PT_DEV_END leaves it."""
    base = L.HDR + s * L.slot_words(nphases)
    r = rec[base:base + L.slot_words(nphases)]
    r[L.S_DONE] = 1
    r[L.S_SMID] = r[L.S_SMID1] = smid
    r[L.S_CLK0] = 1_000_000_007
    r[L.S_CLK1] = r[L.S_CLK0] + clk_span
    r[L.S_GT0] = 5_000_000_000 + gt0
    r[L.S_GT1] = r[L.S_GT0] + gt_span
    for p in range(nphases):
        r[L.SLOT_HDR + 2 * p] = cycles[p]
        r[L.SLOT_HDR + 2 * p + 1] = hits[p] if hits else 1


def test_the_argument_for_cupy_is_a_structured_scalar(timing):
    buf = timing.phases(12, Phase, host=True)
    a = buf.arg
    assert isinstance(a, numpy.ndarray) and a.shape == () and a.size == 1
    assert a.dtype == ptkit.dev_buf_dtype() and a.dtype.itemsize == 24
    assert (int(a["nslots"]), int(a["nphases"]), int(a["trace_cap"]), int(a["mode"])) == \
        (12, 3, 0, L.MODE_AGGREGATE)
    assert int(a["data"]) == buf.records().ctypes.data, "the records' address"
    assert a.tobytes() == buf.arg_bytes and len(buf.arg_bytes) == 24
    assert buf.names == ("angular", "energy", "stream")
    rec = buf.records()
    assert rec[L.H_MAGIC] == L.MAGIC and rec[L.H_NSLOTS] == 12 and rec[L.H_NPHASES] == 3
    assert len(rec) == ptkit.dev_buf_words(12, 3)


def test_a_trace_buffer(timing):
    buf = timing.phases(2, 4, trace=16, host=True)
    assert buf.trace_cap == 16 and int(buf.arg["mode"]) == L.MODE_TRACE
    assert buf.names == ("phase 0", "phase 1", "phase 2", "phase 3")
    assert len(buf.records()) == L.HDR + 2 * L.slot_words(4, 16)


def test_bad_buffers_raise_with_ptkits_message(timing):
    with pytest.raises(ptkit.Error, match=r'PT_EINVAL: .*phases 0 and 1 are both named "a"'):
        timing.phases(4, ["a", "a"], host=True)
    with pytest.raises(ptkit.Error, match="PT_EINVAL: .*the slots must be >= 0"):
        timing.phases(-1, ["a"], host=True)
    with pytest.raises(ptkit.Error, match="the name of the rest of a launch"):
        timing.phases(1, ["(unattributed)"], host=True)

    class Gappy(enum.IntEnum):
        a = 0
        b = 2
    with pytest.raises(ValueError, match="0..1"):
        timing.phases(1, Gappy, host=True)


def test_without_a_device_a_buffer_is_made_in_host_memory_said_once():
    t = ptkit.Timing("nodev", gpu=True)
    with pytest.warns(ptkit.PtkitWarning, match="device record buffers are made in host memory"):
        buf = t.phases(4, 2)
    assert buf.host
    buf.records()
    t.close()


def test_a_host_fold_in_exact_milliseconds(timing, clock):
    buf = timing.phases(1, Phase, host=True)
    # 4,000,000 cycles in 1 ms of "globaltimer": the slot's own rate,
    # 0.25 ns per cycle, so 1.2M, 2M and 0.8M cycles are 0.3, 0.5, 0.2 ms.
    write_slot(buf.records(), 0, 3, 4_000_000, 1_000_000, [1_200_000, 2_000_000, 800_000])
    span(timing, clock, "step", 1_250_000)
    timing.fold(buf, "step")
    got = {s.path: s for s in timing.sections()}
    assert [p for p in got] == ["step", "step/angular", "step/energy", "step/stream",
                                "step/(unattributed)"]
    # Each phase is net of its one mark's measured cost, which goes to
    # (unattributed): 0.25 ns per cycle.
    mark_ms = timing.dev_clock_get()["mark_cycles"] * 0.25e-6
    assert mark_ms > 0, "host mode measures its marks"
    assert got["step/angular"].total_ms == pytest.approx(0.3 - mark_ms, abs=1e-12)
    assert got["step/energy"].total_ms == pytest.approx(0.5 - mark_ms, abs=1e-12)
    assert got["step/stream"].total_ms == pytest.approx(0.2 - mark_ms, abs=1e-12)
    assert got["step/angular"].overhead_ms == pytest.approx(mark_ms, abs=1e-12)
    assert got["step/(unattributed)"].total_ms == pytest.approx(0.25 + 3 * mark_ms, abs=1e-12)
    assert got["step/angular"].phase == 1 and got["step/angular"].blocks == 1
    dc = timing.dev_clock_get()
    assert dc["blocks_own"] == 1 and dc["device_name"] == "host"
    assert timing.error_count() == 0, timing.last_error


def test_per_block_figures_and_reset(timing, clock):
    buf = timing.phases(4, ["a", "b"], host=True)
    rec = buf.records()
    for k, ms in enumerate((1, 2, 3, 6)):
        # 10 ms of globaltimer over 20M cycles: 0.5 ns per cycle.
        write_slot(rec, k, 2, 20_000_000, 10_000_000, [2_000_000 * ms, 20_000_000 - 2_000_000 * ms],
                   smid=k)
    span(timing, clock, "step", 10_000_000)
    buf.fold("step")
    a = timing.find("step/a")
    mark_ms = timing.dev_clock_get()["mark_cycles"] * 0.5e-6  # one mark per block, taken out
    assert a.blocks == 4
    assert (a.block_min_ms, a.block_max_ms) == pytest.approx((1.0 - mark_ms, 6.0 - mark_ms), abs=1e-12)
    assert a.block_mean_ms == pytest.approx(3.0 - mark_ms)
    assert a.imbalance == pytest.approx((6.0 - mark_ms) / (3.0 - mark_ms))
    buf.reset()
    assert not rec[L.HDR:].any() and rec[L.H_MAGIC] == L.MAGIC, "records zeroed, header kept"


def test_folding_under_an_unknown_launch_raises(timing):
    buf = timing.phases(1, ["a"], host=True)
    with pytest.raises(ptkit.Error, match="PT_ENOTFOUND"):
        timing.fold(buf, "never ran")


HOST_KERNEL = r"""
#include <pt/pt_dev.h>
#include <time.h>

static void spin_ns(long long ns)
{
    long long t0 = pt_dev_host_ns();
    while (pt_dev_host_ns() - t0 < ns)
        ;
}

/* The CPU side of a three-phase kernel: one call per block, the buffer
 * by value as a kernel receives it. */
void run_blocks(pt_dev_buf buf, int blocks)
{
    for (int b = 0; b < blocks; b++) {
        PT_DEV_BEGIN_AT(buf, b);
        spin_ns(200000);
        PT_DEV_MARK(0);
        spin_ns(100000);
        PT_DEV_MARK(1);
        spin_ns(50000);
        PT_DEV_MARK(2);
        spin_ns(50000);
        PT_DEV_MARK(2);
        PT_DEV_END(buf);
    }
}
"""


def test_pt_dev_h_host_mode_records_fold_through_the_package(cc):
    kernel = ctypes.CDLL(cc(HOST_KERNEL, "hostkernel"))
    kernel.run_blocks.argtypes = [ptkit._capi.DevBuf, ctypes.c_int]
    kernel.run_blocks.restype = None
    t = ptkit.Timing("host mode")
    buf = t.phases(4, Phase, host=True)
    with t.section("step"):
        kernel.run_blocks(buf.ctypes_arg, 4)
    t.fold(buf, "step")
    step, ang = t.find("step"), t.find("step/angular")
    en, st, un = t.find("step/energy"), t.find("step/stream"), t.find("step/(unattributed)")
    assert (ang.blocks, ang.hits, st.hits) == (4, 4, 8), "two marks of stream per block"
    assert ang.block_min_ms >= 0.2 * 0.99 and en.block_min_ms >= 0.1 * 0.99
    assert st.block_min_ms >= 0.1 * 0.99
    assert ang.total_ms >= 4 * 0.2 * 0.99, "blocks one after another add up"
    assert ang.total_ms + en.total_ms + st.total_ms + un.total_ms == pytest.approx(step.total_ms,
                                                                                   abs=1e-9)
    assert t.dev_clock_get()["blocks_own"] == 4
    assert t.error_count() == 0, t.last_error
    t.close()


def test_a_closed_buffer_is_the_empty_argument(timing):
    buf = timing.phases(1, ["a"], host=True)
    buf.close()
    assert buf.nslots == 0 and int(buf.arg["data"]) == 0, "what the macros skip"
    assert not buf.host
    with pytest.raises(ValueError, match="closed"):
        buf.records()


def test_the_argument_bytes_are_what_a_torch_extension_copies(timing):
    buf = timing.phases(3, ["x", "y"], host=True)
    raw = buf.arg_bytes
    back = ptkit._capi.DevBuf.from_buffer_copy(raw)
    assert (back.nslots, back.nphases, back.trace_cap, back.mode) == (3, 2, 0, 0)
    assert back.data == int(buf.arg["data"])
    assert numpy.frombuffer(raw, dtype=ptkit.dev_buf_dtype())[0]["nslots"] == 3


def write_trace(rec, s, nphases, cap, events, end_ms, smid=0):
    """Slot s (trace_cap cap) on smid from its BEGIN to end_ms, its events
    (code, ms) as marks and spans wrote them; 2,000,000 cycles a ms."""
    base = L.HDR + s * L.slot_words(nphases, cap)
    r = rec[base:base + L.slot_words(nphases, cap)]
    r[L.S_DONE] = 1
    r[L.S_SMID] = r[L.S_SMID1] = smid
    r[L.S_CLK0] = 1_000_000_007
    r[L.S_CLK1] = r[L.S_CLK0] + int(end_ms * 2_000_000)
    r[L.S_GT0] = 5_000_000_000
    r[L.S_GT1] = r[L.S_GT0] + int(end_ms * 1_000_000)
    prev = 0.0
    for code, ms in events:
        if 0 <= code < nphases:
            r[L.SLOT_HDR + 2 * code] += int((ms - prev) * 2_000_000)
            r[L.SLOT_HDR + 2 * code + 1] += 1
            prev = ms
    for k, (code, ms) in enumerate(events):
        r[L.SLOT_HDR + 2 * nphases + 2 * k] = code
        r[L.SLOT_HDR + 2 * nphases + 2 * k + 1] = r[L.S_CLK0] + int(ms * 2_000_000)
    r[L.S_NEVENTS] = len(events)


def span_code(kind, ident, end):
    return (1 << 62) | ((1 << 61) if end else 0) | (kind << 32) | ident


def test_roles_fold_with_their_overlap_bubbles_and_a_span_across_them(timing, clock):
    """A producer (waits [0,1), loads [1,2)) and a consumer (waits [0,2),
    sums [2,3)) on one SM: neither's work beside the other's, each wait
    with nothing in flight but for the load span the producer begins at
    0.2 ms and the consumer ends at 0.8."""
    prod = timing.phases(1, ["wait empty", "load"], trace=4, host=True, waits=["wait empty"],
                         spans=["tma"])
    cons = timing.phases(1, ["wait full", "sum"], trace=4, host=True, waits=[0])
    write_trace(prod.records(), 0, 2, 4, [(span_code(0, 7, 0), 0.2), (0, 1.0), (1, 2.0)], 2.0)
    write_trace(cons.records(), 0, 2, 4, [(span_code(0, 7, 1), 0.8), (0, 2.0), (1, 3.0)], 3.0)
    span(timing, clock, "step", 3_000_000)
    timing.fold(prod, "step", role="producer")
    cons.fold("step", role="consumers")
    p, c = timing.find("step/producer"), timing.find("step/consumers")
    assert (p.overlap_folds, c.overlap_folds) == (1, 1)
    assert p.overlap_pct == 0 and c.overlap_pct == 0, "one worked while the other waited"
    # The producer waits 1 ms, 0.6 of it with the load in flight; the
    # consumer waits 2 ms, the load in flight for 0.6 and the producer
    # working for 1.
    assert p.bubble_ms / p.wait_ms == pytest.approx(0.4)
    assert c.bubble_ms / c.wait_ms == pytest.approx(0.4 / 2)
    assert p.busy_ms / p.wait_ms == pytest.approx(1.0)
    assert timing.find("step").overlap_folds == 0, "the launch itself names no waits"
    (load,) = timing.spans("step")
    assert (load["name"], load["count"], load["unmatched"]) == ("tma", 1, 0)
    assert load["total_ms"] == pytest.approx(0.6)
    assert timing.spans("step/consumers") == [], "its one end went to the launch"
    assert timing.spans("no such") is None
    rep = timing.report()
    assert re.search(r"^step .*\n    span tma: 1, total 0.600 ms", rep, re.M), rep
    assert "span span 0" not in rep and rep.count("span tma") == 1, "no empty kind left in a role"
    with pytest.raises(ValueError, match="no phase named 'nap'"):
        timing.phases(1, ["a"], host=True, waits=["nap"])
    with pytest.raises(ptkit.Error, match="PT_EINVAL"):
        timing.phases(1, ["a"], host=True, waits=[3])
