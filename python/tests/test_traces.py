"""A ptkit trace and a torch.profiler trace of the same run, combined into
one file: one time base (events that happened inside a ptkit section land
inside it), no process or flow id shared between the two, and the JSON
structure Perfetto's importer takes (checked here without Perfetto: the
Trace Event Format's rules, strict JSON, and slices that nest per track).

The torch.profiler side is shaped as Kineto writes it (PyTorch 2.x:
baseTimeNanoseconds with times after it; older: epoch microseconds): the
CPU operators in the process's own pid, each GPU's kernels in a pid equal
to the device index, flows from launch to kernel."""

import json
import math
import os
import threading
import time

import pytest

import ptkit

PHASES = set("XBEiICsStTfFbenMPOND")
METADATA = {"process_name", "thread_name", "process_labels", "process_sort_index",
            "thread_sort_index", "process_uptime_seconds"}


def check_trace_format(doc):
    """What Perfetto's JSON importer requires of a trace: raises on the first fault."""
    json.loads(json.dumps(doc, allow_nan=False))  # strict JSON: no NaN or Infinity
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    base = doc.get("baseTimeNanoseconds", 0)
    assert isinstance(base, int) and base >= 0
    tracks = {}
    for e in doc["traceEvents"]:
        assert isinstance(e, dict) and e.get("ph") in PHASES, e
        assert isinstance(e.get("name", ""), str), e
        for k in ("pid", "tid"):
            if k in e:
                assert isinstance(e[k], (int, str)) and not isinstance(e[k], bool), e
        if e["ph"] == "M":
            assert e["name"] in METADATA, e
            assert isinstance(e.get("args"), dict), e
            continue
        assert isinstance(e.get("ts"), (int, float)) and math.isfinite(e["ts"]), e
        if e["ph"] == "X":
            assert isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, e
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
        if e["ph"] == "C":
            assert all(isinstance(v, (int, float)) for v in e["args"].values()), e
        if e["ph"] in "stf":
            assert "id" in e, e
    # Slices on one track nest or follow one another; a pid or tid shared
    # by two traces by mistake would interleave theirs.
    for key, xs in tracks.items():
        xs.sort(key=lambda x: (x[0], -x[1]))
        open_ = []
        for t0, t1, name in xs:
            while open_ and open_[-1][1] <= t0 + 1e-3:
                open_.pop()
            assert not open_ or t1 <= open_[-1][1] + 1e-3, f"{name} crosses {open_[-1][2]} on {key}"
            open_.append((t0, t1, name))


def kineto_trace(marks, relative=True, gpus=3):
    """A torch.profiler trace of events at the wall-clock nanoseconds in marks."""
    base = (marks["mm0"] // 1_000_000) * 1_000_000 - 5_000_000
    us = (lambda ns: (ns - base) / 1e3) if relative else (lambda ns: ns / 1e3)
    pid, tid = os.getpid(), threading.get_native_id()
    ev = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python3"}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": "thread 1"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": tid,
         "ts": us(marks["mm0"]), "dur": (marks["mm1"] - marks["mm0"]) / 1e3,
         "args": {"External id": 7, "Record function id": 0}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
         "ts": us(marks["mm0"]) + 1, "dur": 4, "args": {"correlation": 1}},
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": pid, "tid": tid,
         "ts": us(marks["mm0"]) + 1},
    ]
    for g in range(gpus):
        ev += [
            {"ph": "M", "name": "process_name", "pid": g, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": g, "tid": 0, "args": {"labels": f"GPU {g}"}},
            {"ph": "M", "name": "thread_name", "pid": g, "tid": 7, "args": {"name": "stream 7"}},
            {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm", "pid": g, "tid": 7,
             "ts": us(marks["mm0"]) + 10, "dur": 20, "args": {"device": g, "stream": 7,
                                                               "correlation": 1 + g}},
        ]
    ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7,
               "ts": us(marks["mm0"]) + 10, "bp": "e"})
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": g, "name": "GPU"} for g in range(gpus)],
           "traceEvents": ev, "traceName": "torch_trace.json", "displayTimeUnit": "ms"}
    if relative:
        doc["baseTimeNanoseconds"] = base
    return doc


@pytest.fixture
def same_run(tmp_path):
    """A ptkit trace of a step with a host-mode fold, and the wall-clock
    times of a torch operator inside the step."""
    t = ptkit.Timing("train", trace=True)
    buf = t.phases(2, ["load", "compute"], host=True)
    rec = buf.records()
    L = ptkit.layout
    marks = {}
    with t.section("step"):
        time.sleep(0.004)
        marks["mm0"] = time.time_ns()
        time.sleep(0.004)
        marks["mm1"] = time.time_ns()
        time.sleep(0.004)
    for s in range(2):
        r = rec[L.HDR + s * L.slot_words(2):]
        r[L.S_DONE], r[L.S_SMID], r[L.S_SMID1] = 1, -1, -1
        r[L.S_CLK0], r[L.S_CLK1] = 0, 4_000_000
        # One block after another, as host mode runs them.
        r[L.S_GT0], r[L.S_GT1] = 4_000_000 * s, 4_000_000 * s + 4_000_000
        r[L.SLOT_HDR:L.SLOT_HDR + 4] = [1_000_000, 1, 2_000_000, 1]
    t.fold(buf, "step")
    path = tmp_path / "ptkit_trace.json"
    t.export_trace(path)
    t.close()
    return json.load(open(path)), marks


def _ends(doc, cat_pred):
    return [e for e in doc["traceEvents"] if cat_pred(e)]


@pytest.mark.parametrize("relative", [True, False], ids=["baseTimeNanoseconds", "epoch-us"])
def test_a_ptkit_and_a_torch_trace_combine(same_run, tmp_path, relative):
    ours, marks = same_run
    torch = kineto_trace(marks, relative=relative)
    check_trace_format(ours)
    check_trace_format(torch)
    out = tmp_path / "combined.json"
    doc = ptkit.combine_traces([torch, ours], out)
    assert json.load(open(out)) == doc
    check_trace_format(doc)

    n = len(torch["traceEvents"])
    theirs, mine = doc["traceEvents"][:n], doc["traceEvents"][n:]
    assert len(mine) == len(ours["traceEvents"])
    # No process shared: torch's pids as they were, ptkit's all new.
    assert [e.get("pid") for e in theirs] == [e.get("pid") for e in torch["traceEvents"]]
    torch_pids = {e["pid"] for e in theirs}
    our_pids = {e["pid"] for e in mine}
    assert torch_pids & our_pids == set()
    old_to_new = {}
    for a, b in zip(ours["traceEvents"], mine):
        assert old_to_new.setdefault(a["pid"], b["pid"]) == b["pid"], "one new pid per process"
    assert len(set(old_to_new.values())) == len(old_to_new)

    # One time base: torch's operator ran inside ptkit's step, and the
    # folded blocks sit inside the step too.
    step = next(e for e in mine if e["ph"] == "X" and e["name"] == "step")
    mm = next(e for e in theirs if e["name"] == "aten::mm")
    slack = 200  # microseconds: the base is read once, next to pt_create()
    assert step["ts"] - slack <= mm["ts"] and mm["ts"] + mm["dur"] <= step["ts"] + step["dur"] + slack
    assert mm["ts"] - step["ts"] >= 4000 - slack, "it began after the step's first 4 ms sleep"
    assert step["ts"] + step["dur"] - (mm["ts"] + mm["dur"]) >= 4000 - slack, "and before its last"
    assert doc.get("baseTimeNanoseconds", 0) == min(torch.get("baseTimeNanoseconds", 0),
                                                     ours["baseTimeNanoseconds"]), "the earliest"
    blocks = [e for e in mine if e.get("cat") == "blocks"]
    assert len(blocks) == 2
    # Torch's top-level keys stay; ptkit's metadata comes along.
    assert doc["schemaVersion"] == 1 and doc["metadata"]["tool"] == "ptkit"


def test_flow_ids_of_two_traces_stay_apart(same_run):
    _, marks = same_run
    a, b = kineto_trace(marks), kineto_trace(marks)
    doc = ptkit.combine_traces([a, b])
    check_trace_format(doc)
    flows = [e for e in doc["traceEvents"] if e["ph"] in "sf"]
    first, second = flows[:2], flows[2:]
    assert {e["id"] for e in first} == {1}
    ids = {e["id"] for e in second}
    assert len(ids) == 1 and ids != {1}, "the second trace's flow keeps its pair, under a new id"
    pids = [{e["pid"] for e in doc["traceEvents"][:len(a["traceEvents"])]},
            {e["pid"] for e in doc["traceEvents"][len(a["traceEvents"]):]}]
    assert pids[0] & pids[1] == set()


def test_bad_inputs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no trace"):
        ptkit.combine_traces([])
    with pytest.raises(ValueError, match="traceEvents"):
        ptkit.combine_traces([{"events": []}])
    with pytest.raises(ValueError, match="baseTimeNanoseconds"):
        ptkit.combine_traces([{"traceEvents": [], "baseTimeNanoseconds": -5}])
    p = tmp_path / "array.json"
    p.write_text(json.dumps([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]))
    doc = ptkit.combine_traces([str(p)])
    assert doc["traceEvents"][0]["name"] == "a", "the JSON array form is a trace too"
