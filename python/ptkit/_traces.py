"""Several Chrome/Perfetto traces of one run as one: a ptkit trace beside a
torch.profiler (Kineto) trace, say, so Perfetto shows the sections, the
in-kernel phases and torch's operators and kernels on one timeline."""

import json
import os

# Event phases whose "id" ties events together (flows, async spans): the
# ids of one input must not meet another input's.
_ID_PHASES = frozenset("stfbneSTF")


def _load(src):
    if isinstance(src, dict):
        return src
    if isinstance(src, list):
        return {"traceEvents": src}
    with open(os.fspath(src), encoding="utf-8") as f:
        doc = json.load(f)
    return {"traceEvents": doc} if isinstance(doc, list) else doc


def _base(doc):
    """The input's time base in wall-clock nanoseconds: its
    baseTimeNanoseconds (ts are microseconds after it), else 0 (ts are
    microseconds of the epoch, as older Kineto traces write them)."""
    b = doc.get("baseTimeNanoseconds", 0)
    if isinstance(b, bool) or not isinstance(b, int) or b < 0:
        raise ValueError(f"baseTimeNanoseconds must be a non-negative integer, not {b!r}")
    return b


def _fresh(taken, start):
    n = start
    while n in taken:
        n += 1
    return n


def combine_traces(sources, out=None):
    """Combine traces of one run into one trace.

    ``sources``: paths, or already loaded traces (dicts or event lists).
    Times are put on one base, the earliest input's (each input's
    ``baseTimeNanoseconds``, or 0 for epoch microseconds); a process id or
    flow id an earlier input uses is given a fresh number in a later one,
    so no two inputs share a track; top-level keys are the first input's,
    with the keys only later inputs have added. Written to ``out`` when
    given (through a temporary file); returned either way."""
    docs = [_load(s) for s in sources]
    if not docs:
        raise ValueError("combine_traces: no trace given")
    bases = [_base(d) for d in docs]
    base = min(bases)
    pids_taken, ids_taken = set(), set()
    events = []
    for doc, b in zip(docs, bases):
        evs = doc.get("traceEvents")
        if not isinstance(evs, list):
            raise ValueError("combine_traces: a trace without a traceEvents list")
        shift_us = (b - base) / 1e3
        pids = {e.get("pid") for e in evs if isinstance(e, dict) and "pid" in e}
        ids = {e.get("id") for e in evs if isinstance(e, dict) and e.get("ph") in _ID_PHASES}
        pid_map, id_map = {}, {}
        for p in sorted(pids, key=repr):
            if p in pids_taken:
                ints = [q for q in pids_taken | pids if isinstance(q, int)]
                p2 = _fresh(pids_taken | pids | set(pid_map.values()), max(ints, default=0) + 1)
                pid_map[p] = p2
        for i in sorted((i for i in ids if i is not None), key=repr):
            if i in ids_taken:
                ints = [q for q in ids_taken | ids if isinstance(q, int)]
                id_map[i] = _fresh(ids_taken | ids | set(id_map.values()),
                                   max(ints, default=0) + 1)
        for e in evs:
            if not isinstance(e, dict):
                raise ValueError(f"combine_traces: an event that is not an object: {e!r}")
            e = dict(e)
            if "pid" in e and e["pid"] in pid_map:
                e["pid"] = pid_map[e["pid"]]
            if e.get("ph") in _ID_PHASES and e.get("id") in id_map:
                e["id"] = id_map[e["id"]]
            if shift_us and isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M":
                e["ts"] = round(e["ts"] + shift_us, 3)
            events.append(e)
        pids_taken |= {pid_map.get(p, p) for p in pids}
        ids_taken |= {id_map.get(i, i) for i in ids}
    combined = {}
    for doc in docs:
        for k, v in doc.items():
            combined.setdefault(k, v)
    combined["traceEvents"] = events
    if base:
        combined["baseTimeNanoseconds"] = base
    else:
        combined.pop("baseTimeNanoseconds", None)
    if out is not None:
        write_json(out, combined)
    return combined


def write_json(path, doc):
    """Write doc to path through a temporary file: whole or not at all."""
    p = os.fspath(path)
    tmp = f"{p}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
