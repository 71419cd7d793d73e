"""Sections from Python: start/stop with metrics, context managers and
decorators, GPU sections on an integer stream handle, errors raised with
ptkit's message, threads, the schedule, figures and helpers."""

import logging
import threading
import warnings

import pytest

import ptkit

from conftest import span


def test_start_stop_with_metrics_in_exact_milliseconds(timing, clock):
    timing.start("(A^T)b operation")
    clock.now += 2_000_000
    timing.stop("(A^T)b operation", read=1024000, written=234544, flops=4556334)
    timing.start("precomputed", read=1_000_000, flops=8e6)
    clock.now += 500_000
    timing.stop("precomputed")
    a = timing.find("(A^T)b operation")
    assert (a.count, a.total_ms, a.depth) == (1, 2.0, 1)
    assert (a.read_bytes, a.written_bytes, a.flops) == (1024000, 234544, 4556334)
    assert a.gflops == pytest.approx(4556334 / 2e-3 / 1e9)
    p = timing.find("precomputed")
    assert (p.total_ms, p.read_bytes, p.flops) == (0.5, 1e6, 8e6)
    assert p.read_gbs == pytest.approx(2.0)
    assert timing.error_count() == 0


def test_first_occurrence_apart_from_the_rest(timing, clock):
    for ns in (10_000_000, 1_000_000, 3_000_000):
        span(timing, clock, "loop", ns)
    s = timing.find("loop")
    assert (s.count, s.first_ms, s.mean_ms, s.min_ms, s.max_ms) == (3, 10.0, 2.0, 1.0, 3.0)
    assert s.stddev_ms == pytest.approx(2 ** 0.5)


def test_a_section_as_context_manager_nests_and_adds(timing, clock):
    with timing.section("matrix_multiply", flops=12345) as s:
        clock.now += 1_000_000
        s.add(written=234544)
        with timing.section("inner"):
            clock.now += 250_000
    mm, inner = timing.find("matrix_multiply"), timing.find("matrix_multiply/inner")
    assert (mm.total_ms, mm.flops, mm.written_bytes) == (1.25, 12345, 234544)
    assert (inner.total_ms, inner.depth, inner.pct_parent) == (0.25, 2, 20.0)


def test_a_section_ends_when_its_body_raises(timing, clock):
    with pytest.raises(KeyError):
        with timing.section("work"):
            clock.now += 1000
            raise KeyError("from the body")
    assert timing.find("work").count == 1
    assert timing.run_get()["open_count"] == 0


def test_a_failed_stop_after_a_raising_body_keeps_the_bodys_exception(timing):
    with pytest.raises(ZeroDivisionError):
        with timing.section("outer"):
            timing.start("left open")
            1 / 0
    assert timing.error_count(-4) == 1, "the mismatch is still counted"


def test_a_section_as_decorator_times_every_call(timing, clock):
    @timing.section("solve", flops=10)
    def solve(n):
        clock.now += 1_000_000
        return n * 2

    @timing.section()
    def recurse(n):
        clock.now += 1000
        return recurse(n - 1) if n else 0

    assert solve(3) == 6 and solve(4) == 8
    recurse(2)
    s = timing.find("solve")
    assert (s.count, s.total_ms, s.flops) == (2, 2.0, 20)
    name = recurse.__qualname__
    assert solve.__name__ == "solve", "functools.wraps"
    deepest = timing.find("/".join([name] * 3))
    assert deepest is not None and deepest.depth == 3


def test_a_section_without_a_title_is_only_a_decorator(timing):
    with pytest.raises(TypeError, match="decorator"):
        with timing.section():
            pass


def test_unknown_metrics_are_a_type_error(timing):
    with pytest.raises(TypeError, match="unknown metric 'bytes'"):
        timing.start("x", bytes=3)
    with pytest.raises(TypeError):
        timing.section("x", flop=3)


@pytest.mark.parametrize("value, error", [(2 ** 1100, ValueError), (-1, ValueError),
                                          (float("nan"), ValueError), ("12", TypeError)])
def test_a_bad_metric_raises_and_still_closes_the_section(timing, value, error):
    """A metric too large for a double, negative, NaN or no number raises
    at once, naming it, and the section is closed all the same: what
    follows does not nest under it."""
    timing.start("y")
    with pytest.raises(error, match="flops="):
        timing.stop("y", flops=value)
    timing.start("z")
    timing.stop("z")
    assert timing.find("z") is not None, "z is at the top, under nothing"
    assert timing.find("y/z") is None
    assert timing.find("y").count == 1


def test_timings_and_buffers_refuse_to_be_copied(timing):
    """A copy would be a second owner of the C object (two frees)."""
    import copy
    import pickle
    buf = timing.phases(4, ["a"], host=True)
    for obj in (timing, buf):
        for fn in (copy.copy, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError, match="cannot be copied"):
                fn(obj)
    buf.close()


def test_errors_raise_with_ptkits_message(timing):
    with pytest.raises(ptkit.Error) as e:
        timing.stop("never started")
    assert e.value.code == -3 and e.value.name == "PT_ENOSTART"
    assert str(e.value) == 'PT_ENOSTART: pt_stop("never started") with no section open'
    timing.start("a")
    timing.start("b")
    with pytest.raises(ptkit.Error, match=r'pt_stop\("a"\) but the open section is "b" \(open: a > b\)'):
        timing.stop("a")
    with pytest.raises(ValueError, match="read=-1: a metric is finite and not negative"):
        timing.add(read=-1)
    timing.stop("b")
    timing.stop("a")
    assert timing.error_count() == 2, "the bad metric is refused before C sees it"


def test_a_closed_timing_does_nothing(clock):
    t = ptkit.Timing("closed")
    t.close()
    t.start("x")
    t.stop("y")
    assert t.report() == ""
    assert t.sections() == [] and t.error_count() == 0
    t.close()


def test_the_null_safe_pattern():
    timing = None
    assert (timing and timing.start("x")) is None


def test_disable_and_reset(timing, clock):
    timing.enabled = False
    span(timing, clock, "off", 1000)
    assert timing.find("off") is None and not timing.enabled
    timing.enabled = True
    span(timing, clock, "on", 1000)
    assert timing.find("on").count == 1
    timing.reset()
    assert timing.sections() == []


def test_gpu_sections_without_a_device_fall_back_to_the_cpu_clock_said_once():
    t = ptkit.Timing("gpu", gpu=True)
    with pytest.warns(ptkit.PtkitWarning, match="GPU sections are timed by the CPU clock"):
        with t.gpu_section("step", stream=0, flops=1e6):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t.start_gpu("step", 0)
        t.stop_gpu("step", 0, flops=1e6)
    s = t.find("step")
    assert s.gpu == 1 and s.count == 2 and s.flops == 2e6
    st = t.run_get()
    assert st["gpu_fallback"] == 1 and st["error_count"] == 0, "a fact of the machine, not an error"
    assert st["note_count"] == 1 and "GPU sections are timed by the CPU clock" in t.last_note
    assert st["gpu_fallback_why"], "the reason is given"
    assert s.cpu_clock == 2, "both occurrences were timed by the CPU clock"
    assert s.gflops == 0, "no rate from a launch the CPU clock timed"
    t.close()


class _CupyStream:
    ptr = 0x1234


class _TorchStream:
    cuda_stream = 0x5678


def test_streams_are_integer_handles():
    assert ptkit.stream_handle(None) == 0
    assert ptkit.stream_handle(0x7f00) == 0x7f00
    assert ptkit.stream_handle(_CupyStream()) == 0x1234
    assert ptkit.stream_handle(_TorchStream()) == 0x5678
    with pytest.raises(TypeError, match="integer handle"):
        ptkit.stream_handle("stream")
    with pytest.raises(TypeError):
        ptkit.stream_handle(True)
    with pytest.raises(ValueError):
        ptkit.stream_handle(-1)


def test_a_gpu_stop_of_a_cpu_section_is_a_mismatch(timing):
    timing.start("cpu")
    with pytest.raises(ptkit.Error, match="opened by pt_start; close it with pt_stop"):
        timing.stop_gpu("cpu", 0)
    timing.stop("cpu")


def test_transfers(timing, clock):
    with timing.section("upload"):
        clock.now += 1_000_000
        timing.transfer(2e9 * 1e-3, "h2d")
    s = timing.find("upload")
    assert s.xfer_bytes == (2e6, 0.0, 0.0) and s.xfer_gbs[0] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="'h2d', 'd2h' or 'd2d'"):
        timing.transfer(1, "sideways")
    with pytest.raises(ptkit.Error, match="PT_ENOSTART"):
        timing.transfer(1, "d2h")


def test_threads_time_into_one_timing():
    t = ptkit.Timing("threads")
    n = 200
    # All alive together, so none is a finished thread's successor.
    together = threading.Barrier(3)

    def work(wait=True):
        for _ in range(n):
            with t.section("row"):
                pass
        if wait:
            together.wait()

    ths = [threading.Thread(target=work) for _ in range(3)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    work(wait=False)
    assert t.find("row").count == 4 * n
    info = t.threads()
    assert len(info) == 4 and info[0]["index"] == 0
    assert sorted(i["occurrences"] for i in info) == [n] * 4
    t.close()


def test_a_stop_on_another_thread_raises_there(timing):
    timing.start("handoff")
    got = []

    def stop_elsewhere():
        try:
            timing.stop("handoff")
        except ptkit.Error as e:
            got.append(e)

    th = threading.Thread(target=stop_elsewhere)
    th.start()
    th.join()
    assert got and got[0].name == "PT_ETHREAD", "the error is raised on the thread that made it"
    timing.stop("handoff")


def test_the_tree_walk_and_bottlenecks(timing, clock):
    span(timing, clock, "a", 1_000_000)
    timing.start("b")
    span(timing, clock, "c", 3_000_000)
    span(timing, clock, "d/e", 2_000_000)
    timing.stop("b")
    assert [s.path for s in timing.sections()] == ["a", "b", "b/c", "b/d\\/e"]
    assert [s.path for s in timing.bottlenecks(2)] == ["b/c", "b/d\\/e"]
    d = timing.data()
    assert d["name"] == "test" and d["stats"]["section_count"] == 4
    assert d["sections"][2]["total_ms"] == 3.0


def test_a_deep_tree_walks_without_recursion(timing, clock):
    depth = 3000
    for i in range(depth):
        timing.start(f"s{i}")
    for i in reversed(range(depth)):
        timing.stop(f"s{i}")
    secs = timing.sections()
    assert len(secs) == depth and secs[-1].depth == depth


def test_schedule_records_the_active_steps(timing, clock):
    timing.schedule_set(2, 1, 2, 1)
    for _ in range(8):
        span(timing, clock, "step", 1000)
        timing.step()
    info = timing.schedule_get()
    assert (info["steps"], info["recorded"]) == (8, 2)
    assert timing.find("step").count == 2


def test_peaks_roofline_and_memory(timing, clock):
    import numpy
    timing.peaks_set(1e12, 1e13)
    assert timing.peaks_get()["source"] == "user"
    a = numpy.zeros((100, 50), dtype=numpy.float32)
    with timing.section("k", read=1e9, flops=1e9):
        timing.track("psi", a)
        clock.now += 1_000_000
    s = timing.find("k")
    assert s.ai == pytest.approx(1.0) and s.bound == 1, "memory-bound below the ridge of 10"
    m = timing.memory_get()
    assert (m["tensors"], m["total"], m["peak"]) == (1, 20000, 20000)
    assert s.mem_high_water == 20000
    timing.untrack("psi")
    with pytest.raises(ptkit.Error, match="PT_ENOTFOUND"):
        timing.untrack("psi")
    with pytest.raises(ptkit.Error, match="PT_ERANGE"):
        timing.peaks_set(-1, 1)


def test_flops_helpers():
    assert ptkit.flops_matmul(2, 3, 4) == 48
    assert ptkit.flops_elementwise(10, 3) == 30
    assert ptkit.flops_spmv(5) == 10 and ptkit.flops_spmm(5, 2) == 20
    assert ptkit.flops_einsum("ik,ijk,jk->", (256, 3), (256, 256, 3), (256, 3)) == 589823
    with pytest.raises(ptkit.Error, match="PT_EPARSE"):
        ptkit.flops_einsum("ij,jk->ik", (2, 3), (4, 5))
    with pytest.raises(ValueError):
        ptkit.flops_matmul(-1, 2, 3)


def test_the_default_timing_is_process_wide():
    a, b = ptkit.default(), ptkit.default()
    with a.section("from a"):
        pass
    assert b.find("from a") is not None
    b.close()
    assert a.find("from a") is not None, "closing a view of the default frees nothing"


def test_log_to_a_logger_and_a_file(timing, clock, tmp_path, caplog):
    span(timing, clock, "logged", 1_000_000)
    with caplog.at_level(logging.INFO, logger="perf"):
        timing.log(logging.getLogger("perf"))
    assert any("logged" in r.getMessage() for r in caplog.records)
    path = tmp_path / "r.txt"
    with open(path, "w") as f:
        timing.log(f, percentages=True)
    assert path.read_text() == timing.report(percentages=True)


def test_old_names_warn_and_do_the_same(timing):
    """The names before the pt_<noun>_<verb> renames still work, and warn."""
    with pytest.warns(DeprecationWarning, match="peaks_set"):
        timing.set_peaks(1e12, 1e13)
    assert timing.peaks_get()["source"] == "user"
    with pytest.warns(DeprecationWarning, match="run_get"):
        assert timing.stats() == timing.run_get()


class np_float(float):
    """A float of another type, as numpy's float64 is."""


def test_start_and_stop_skip_ctypes_where_the_extension_is_built(timing, clock):
    """pip install builds ptkit._fast where Python's headers are (make
    test-python installs them): then start/stop are its methods, and they
    behave as the Python ones in every case, fast or handed over."""
    from ptkit import _timing
    if _timing._fast is None:
        pytest.skip("ptkit._fast was not built (no Python headers): start/stop go through ctypes")
    assert type(timing.start).__name__ == "builtin_function_or_method"
    span(timing, clock, "plain", 1000)
    timing.start(f"built {1}")             # a new str each call
    clock.now += 10
    timing.stop("built " + str(1))
    timing.start(b"bytes")                  # bytes: the Python method
    timing.stop("bytes", read=8, flops=2.5)  # metrics: the fast one
    timing.start("np", read=np_float(3))     # a float subclass: the Python method
    timing.stop("np")
    assert timing.find("built 1").count == 1
    assert (timing.find("bytes").read_bytes, timing.find("bytes").flops) == (8, 2.5)
    assert timing.find("np").read_bytes == 3
    with pytest.raises(ValueError, match="read=-1"):
        timing.start("neg", read=-1)         # refused metrics; the section is open all the same
    timing.stop("neg")
    with pytest.raises(ptkit.Error, match="PT_ENOSTART"):
        timing.stop("never started")
    with pytest.raises(ValueError, match="NUL"):
        timing.start("a\0b")
    with pytest.raises(TypeError):
        timing.start(42)
    with pytest.raises(TypeError, match="unknown metric"):
        timing.start("x", bytes=3)
    timing.close()
    timing.start("after close")              # a no-op, as on a NULL timing
    timing.stop("after close")


def test_titles_and_paths_with_a_nul_are_refused(timing, tmp_path):
    for call in (lambda: timing.start("a\0b"), lambda: timing.find("a\0b"),
                 lambda: timing.export_json(str(tmp_path / "a\0b.json")),
                 lambda: ptkit.Timing("x\0y")):
        with pytest.raises(ValueError, match="NUL"):
            call()
    timing.start("a")
    timing.stop("a")
    assert [s.name for s in timing.sections()] == ["a"]


def test_a_generator_is_timed_at_each_resumption(timing, clock):
    @timing.section()
    def numbers(n):
        for i in range(n):
            clock.now += 1_000_000          # 1 ms of work per item, inside the section
            got = yield i
            if got is not None:
                clock.now += int(got)
        return "done"

    gen = numbers(3)
    assert next(gen) == 0
    clock.now += 50_000_000                  # the consumer's time is not the generator's
    assert gen.send(2_000_000) == 1
    assert list(gen) == [2]
    s = timing.find(numbers.__qualname__)
    assert s.count == 4, "three items and the end"
    assert s.total_ms == pytest.approx(5.0)


def test_a_coroutine_function_is_refused_with_the_reason(timing):
    with pytest.raises(TypeError, match="spans no await"):
        @timing.section()
        async def fetch():
            return 1


def test_integers_out_of_a_c_types_range_raise(timing):
    with pytest.raises(ValueError, match=r"pt_schedule_set: argument 2 is -1"):
        timing.schedule_set(-1, 0, 1)
    with pytest.raises(ValueError):
        timing.trace_capacity_set(1 << 64)


def test_a_clock_function_that_raises_is_said_at_the_call():
    """The exception cannot cross libptkit: the call that read the clock
    raises ptkit.Error from it, and the last good reading stands in, so
    no section gets a time from nowhere."""
    t = ptkit.Timing("clock")
    now = [1_000_000]

    def clock():
        if now[0] < 0:
            raise RuntimeError("sensor gone")
        return now[0]

    t.clock_set(clock)
    t.start("a")
    now[0] += 5_000_000
    t.stop("a")
    t.start("b")
    now[0] = -1
    with pytest.raises(ptkit.Error, match="the clock function raised RuntimeError: sensor gone"):
        t.stop("b")
    assert t.find("a").total_ms == pytest.approx(5.0)
    assert t.find("b").count == 1 and t.find("b").total_ms == 0.0, "the last good reading"
    t.close()


def test_a_plain_section_is_kept_per_title_and_starts_and_stops_from_c(timing, clock):
    """timing.section(title) alone, the usual with block: one Section per
    title, kept by the timing, whose __enter__ and __exit__ are the
    extension's. It behaves as any Section: it nests (itself too), works
    as a decorator and with add(), and a stop that fails is raised unless
    the body raised first."""
    from ptkit import _timing
    if _timing._fast is None:
        pytest.skip("ptkit._fast was not built (no Python headers): sections go through ctypes")
    s = timing.section("step")
    assert s is timing.section("step") and isinstance(s, ptkit.Section)
    assert timing.section("step", flops=1) is not s, "metrics make their own Section"
    assert type(type(s).__enter__).__name__ == "method_descriptor"
    with s:
        clock.now += 1000
        with s:                                # the same object, nested
            clock.now += 500
            s.add(written=8)
    assert (timing.find("step").total_ms, timing.find("step/step").written_bytes) == (0.0015, 8)

    @timing.section("solve")
    def solve():
        clock.now += 2000
    solve()
    solve()
    assert (timing.find("solve").count, timing.find("solve").total_ms) == (2, 0.004)

    with pytest.raises(ptkit.Error, match="PT_ENOSTART"):
        with timing.section("gone"):
            timing.reset()                     # drops the open section: the stop finds none
    with pytest.raises(KeyError):
        with timing.section("gone"):
            timing.reset()
            raise KeyError("the body's")      # said, not the stop's PT_ENOSTART

    calls = []

    class Logged(ptkit.Timing):
        def start(self, title, **metrics):
            calls.append(("start", title))
            return super().start(title, **metrics)

        def stop(self, title, **metrics):
            calls.append(("stop", title))
            return super().stop(title, **metrics)

    with Logged("logged") as lt:
        with lt.section("x"):
            pass
    assert calls == [("start", "x"), ("stop", "x")]
