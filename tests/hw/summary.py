"""The hardware kit's summary: reads the logs `run` wrote (one folder) and
prints one Markdown table, each row a claim with what the hardware said of
it and, where ptkit states a goal, whether it was met.

    python3 summary.py LOGS_DIR

Standard library only (it runs on the GPU machine's python3 and in
`make test` on a canned log, tests/hw/canned/). A log that is missing or
unreadable gives a row that says so; nothing here raises on bad input.
"""

import csv
import os
import re
import statistics
import sys


def read(logs, name):
    try:
        with open(os.path.join(logs, name), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def steps(logs):
    """{step: (rc, seconds, note)} from steps.tsv, and the kit's seconds."""
    out, total = {}, None
    for line in (read(logs, "steps.tsv") or "").splitlines():
        f = line.split("\t")
        if f[0] == "kit seconds" and len(f) > 1:
            total = f[1]
        elif len(f) >= 3:
            out[f[0]] = (f[1], f[2], f[3] if len(f) > 3 else "")
    return out, total


def status(st, name):
    """'ok', 'exit N', 'timed out' or 'skipped' for a step, with its seconds."""
    if name not in st:
        return "not run"
    rc, sec, note = st[name]
    if rc == "skipped":
        return f"skipped ({note})"
    if rc in ("124", "137"):
        return f"timed out after {sec} s"
    return f"ok, {sec} s" if rc == "0" else f"exit {rc}, {sec} s"


def goal(ok):
    return "met" if ok else "**NOT met**"


def card_rows(logs):
    text = read(logs, "card.log")
    if text is None:
        return [("card", "no log", "")]
    rows = []
    kit = re.search(r"^kit: (.*)$", text, re.M)
    lines = [ln for ln in text.splitlines() if ln.count(",") >= 7 and not ln.startswith("name")]
    cuda = re.search(r"release ([\d.]+)", text)
    if lines:
        f = [x.strip() for x in lines[0].split(",")]
        rows.append(("card", f"{f[0]}, driver {f[1]}, CUDA {cuda.group(1) if cuda else '?'}",
                     f"SM clock {f[2]} (max {f[3]}), memory {f[4]}, {f[5]} C, {f[6]}, {f[7]}"))
    else:
        rows.append(("card", "nvidia-smi said nothing readable", ""))
    after = read(logs, "card_after.log") or ""
    al = [ln for ln in after.splitlines() if ln.count(",") >= 4 and not ln.startswith("clocks")]
    if al:
        f = [x.strip() for x in al[0].split(",")]
        rows.append(("card, after the kit", "", f"SM clock {f[0]} (max {f[1]}), {f[2]} C, {f[3]}, {f[4]}"))
    if kit:
        rows.insert(0, ("kit", kit.group(1), ""))
    return rows


def suite_rows(logs, st, name="gpu_suite", title="GPU suite, hardware size"):
    text = read(logs, f"{name}.log")
    if text is None:
        return [(title, status(st, name), "no log")]
    syn = re.search(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)",
                    text)
    rows = []
    if syn:
        tested, passing, failing, crashing = map(int, syn.groups())
        rows.append((title, f"{passing} of {tested} passed, {failing} failed, {crashing} crashed",
                     status(st, name)))
    else:
        rows.append((title, "no synthesis line (cut short?)", status(st, name)))
    # Each failure with its first assertion message.
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        m = re.match(r"\[(FAIL|CRASH|----)\] (gpu::\S+?):? ", ln + " ")
        if m and m.group(1) in ("FAIL", "CRASH"):
            msg = ""
            # The test's own lines only: those after its [RUN ] line.
            run = next((j for j in range(i - 1, -1, -1) if lines[j].startswith("[RUN ]")), -1)
            for back in range(i - 1, max(i - 8, run), -1):
                if "Assertion Failed" in lines[back] or "Assertion" in lines[back]:
                    msg = " ".join(x.replace("[----]", "").strip() for x in lines[back + 1:i])
                    break
            if not msg:  # no assertion: what the test's last word and the line say
                said = [x.replace("[----]", "").strip() for x in lines[run + 1:i]
                        if x.startswith("[----]") and x[6:].strip()] if run >= 0 else []
                msg = "; ".join(filter(None, [said[-1] if said else "", ln[m.end():].strip()]))
            rows.append((f"  {m.group(1).lower()}: {m.group(2)}", "", msg[:300]))
    # "worst phase off by": against the spins alone (kits before the
    # windows); "off its spins and windows by": outside the bounds, with
    # how far each case's phases read beside their spins alone.
    worst = [float(x) for x in re.findall(r"worst phase off (?:[a-z ]+ )?by ([\d.]+)%", text)]
    windows = "off its spins and windows by" in text
    sums = [float(x) for x in re.findall(r"off the launch by ([\d.]+)%", text)]
    beside = [(float(pct), float(ns), int(p), case) for case, p, ns, pct in
              re.findall(r"(\d+ phases x \d+ ns x \d+ records):[^\n]*?most beside its spin: "
                         r"phase (\d+), ([\d.]+) ns \(([\d.]+)%\)", text)]
    if worst:
        rows.append(("  phases against their spins" + (" and windows" if windows else ""),
                     goal(max(worst) <= 1.0),
                     f"worst phase off by {max(worst):.3f}% over {len(worst)} checks (goal <= 1% "
                     f"or a tick{' outside them' if windows else ''}); phases + (unattributed) "
                     f"off the launch by at most "
                     f"{max(sums) if sums else float('nan'):.3f}% (goal <= 1%)"))
    if beside:
        most = max(beside)
        rows.append(("  phases against their spins alone", goal(most[0] <= 1.0) + " (<= 1%)",
                     f"most beside its spin: phase {most[2]} of {most[3]}, {most[1]:.0f} ns "
                     f"({most[0]:.3f}%); {sum(b[0] <= 1.0 for b in beside)} of {len(beside)} "
                     f"cases within 1%"))
    cal = re.search(r"\): SM clock ([\d.]+) GHz calibrated \(rated ([\d.]+)\), globaltimer tick "
                    r"(\d+) ns, a mark ([\d.]+) cycles", text)
    if cal:
        rows.append(("  ptkit's calibration", "",
                     f"SM {cal.group(1)} GHz (rated {cal.group(2)}), globaltimer tick "
                     f"{cal.group(3)} ns, a mark {cal.group(4)} cycles"))
    forms = re.search(r"SGEMM (\d+x\d+): ([0-9a-f]+) in all \w+ forms; attention (.*?): ([0-9a-f]+)",
                      text)
    if forms:
        rows.append(("  outputs of every form", "bit-identical",
                     f"SGEMM {forms.group(1)} {forms.group(2)}, attention {forms.group(3)} "
                     f"{forms.group(4)}"))
    return rows


def bench_rows(logs, st):
    text = read(logs, "bench_gpu.log")
    if text is None:
        return [("bench-gpu", status(st, "bench_gpu"), "no log")]
    rows = [("bench-gpu", status(st, "bench_gpu"), "")]
    head = re.search(r"ptkit bench-gpu: (.*)", text)
    if head:
        rows[0] = ("bench-gpu", status(st, "bench_gpu"), head.group(1))
    cm = re.search(r"constant phase:\s+shared memory\s+([-\d.]+), registers\s+([-\d.]+)", text)
    rt = re.search(r"run-time phase:\s+shared memory\s+([-\d.]+), registers\s+([-\d.]+)", text)
    hand = re.search(r"in global memory\s+([-\d.]+), a global store of each delta\s+([-\d.]+)", text)
    if cm and hand:
        ok = float(cm.group(1)) <= float(hand.group(1))
        rows.append(("  cycles per mark", f"shared memory {goal(ok)} (<= the hand pattern's)",
                     f"constant phase: shared {cm.group(1)}, registers {cm.group(2)}; run-time "
                     f"phase: shared {rt.group(1) if rt else '?'}, registers "
                     f"{rt.group(2) if rt else '?'}; by hand: times[phase] += {hand.group(1)}, "
                     f"a store per delta {hand.group(2)}"))
    warp = re.search(r"per-warp records with trace stores: a phase mark\s+([-\d.]+), a span begin "
                     r"or end\s+([-\d.]+)", text)
    if warp:
        ok = float(warp.group(2)) <= float(warp.group(1))
        rows.append(("  cycles per span event", f"{goal(ok)} (<= a phase mark's)",
                     f"per-warp records with trace stores: a phase mark {warp.group(1)}, a span "
                     f"begin or end {warp.group(2)}"))
    end = re.search(r"PT_DEV_END \(3 phases\) on the recording thread: shared memory (\d+), "
                    r"registers (\d+) \(two clock reads alone: (\d+)\)", text)
    if end:
        rel = re.search(r"with a release DONE (\d+)", text)
        parts = re.search(r"a %globaltimer read ([\d.]+), a clock64 read ([\d.]+), two 128-bit stores "
                          r"then a release store ([\d.]+), then a plain store ([\d.]+)", text)
        rows.append(("  PT_DEV_END", "", f"shared {end.group(1)} cycles, registers {end.group(2)} "
                     f"(two clock reads {end.group(3)})" +
                     (f"; with a release DONE {rel.group(1)}" if rel else "") +
                     (f"; its parts: a %globaltimer read {parts.group(1)}, a clock64 read "
                      f"{parts.group(2)}, stores then a release store {parts.group(3)}, then a "
                      f"plain one {parts.group(4)}" if parts else "")))
    # The forms: a header line, then one line per form.
    for m in re.finditer(r"^(SGEMM \d+x\d+|attention [\dx]+), .*?original (\d+) cycles \(([\d.]+) ms\)\n"
                         r"((?:    .*\n)+)", text, re.M):
        what, ms, body = m.group(1), m.group(3), m.group(4)
        forms = {}
        for f in re.finditer(r"^\s+(.+?)\s{2,}(\d+) cycles\s+([-+\d.]+) %\s+output (\S+)", body, re.M):
            forms[f.group(1).strip()] = (float(f.group(3)), f.group(4))
        shared = forms.get("ptkit (shared memory)")
        hand_f = forms.get("hand-written pattern")
        if shared is None:
            continue
        ok = shared[0] <= 1.0 and (hand_f is None or shared[0] <= max(hand_f[0], 0) + 1e-9
                                   or what.startswith("attention"))
        same = all(v[1] == "bit-identical" for v in forms.values())
        rows.append((f"  {what} slowdown", f"{goal(ok)} (<= +1 %" +
                     (", <= the hand pattern's)" if what.startswith("SGEMM") else ")"),
                     f"bare {ms} ms; " + ", ".join(f"{k} {v[0]:+.2f} %" for k, v in forms.items()) +
                     f"; outputs {'bit-identical' if same else 'DIFFERENT'}"))
    lr = re.search(r"pt_start_gpu/pt_stop_gpu around each of \d+ launches: ([\d.]+) of bare.*?"
                   r"hand-written event pair: ([\d.]+)\s+\(bare (\d+) launches/s\)", text)
    if lr:
        rows.append(("  launch rate, pt_start_gpu/pt_stop_gpu", goal(float(lr.group(1)) >= 0.9) +
                     " (>= 0.9 of bare)", f"{lr.group(1)} of bare; hand-written event pair "
                     f"{lr.group(2)}; bare {lr.group(3)} launches/s"))
    pl = re.search(r"PT_LAUNCH of a marked kernel .*?: ([\d.]+) of the bare <<< >>> of that kernel\s+"
                   r"\(bare (\d+) launches/s\)", text)
    if pl:
        rows.append(("  launch rate, PT_LAUNCH", "", f"{pl.group(1)} of the bare launch "
                     f"({pl.group(2)} launches/s)"))
    rc = re.search(r"^runtime calls on this host, ns a call: (.*)$", text, re.M)
    if rc:
        rows.append(("  runtime calls, host ns each", "", rc.group(1)))
    gr = re.search(r"^graph of .*?, (\d+) replays: pt_graph_launch .*?([\d.]+) of the bare "
                   r"cudaGraphLaunch", text, re.M)
    if gr:
        split = re.search(r"graph replays, a replay: bare ([\d.]+) us .*?pt_graph_launch ([\d.]+) us "
                          r".*?events alone ([\d.]+) of bare", text)
        one = re.search(r"graph replays, one event after each: timed ([\d.]+) of bare, untimed "
                        r"([\d.]+) of bare", text)
        nodes = re.search(r"graph replays, copy nodes of \d+ bytes alone: after each kernel "
                          r"([\d.]+) of bare, after the last only ([\d.]+) of bare", text)
        ring = re.search(r"graph replays, pt_graph_launch, records back by the ring: ([\d.]+) of "
                         r"bare; by copy nodes \(PT_GRAPH_RING=0\): ([\d.]+) of bare", text)
        folds = re.search(r"the fold's own thread as needed \(the default\): ([\d.]+) of bare; "
                          r"always \(PT_FOLD_THREAD=1\): ([\d.]+); never, the folds on the "
                          r"launching thread alone \(PT_FOLD_THREAD=0\): ([\d.]+); the fold's "
                          r"thread's CPU a replay: ([\d.]+) us as needed, ([\d.]+) us always"
                          r"(?:; pt_sync after the GPU's last replay: (\d+) us as needed, (\d+) us "
                          r"always, (\d+) us never)?", text)
        rows.append(("  graph replays, pt_graph_launch", goal(float(gr.group(2)) <= 1.01) +
                     " (<= 1.01 of bare)", f"{gr.group(2)} of bare over {gr.group(1)} replays" +
                     (f"; a replay bare {split.group(1)} us, ptkit {split.group(2)} us; the bare "
                      f"graph between pt_start_gpu/pt_stop_gpu {split.group(3)} of bare"
                      if split else "") +
                     (f"; one event after each replay: timed {one.group(1)}, untimed "
                      f"{one.group(2)} of bare" if one else "") +
                     (f"; copy nodes alone: after each kernel {nodes.group(1)}, after the last "
                      f"only {nodes.group(2)} of bare" if nodes else "") +
                     (f"; records back by the ring {ring.group(1)}, by copy nodes "
                      f"{ring.group(2)} of bare" if ring else "") +
                     (f"; the fold's own thread as needed (the default) {folds.group(1)}, always "
                      f"{folds.group(2)}, never {folds.group(3)} of bare (its CPU "
                      f"{folds.group(4)} us a replay as needed, {folds.group(5)} always" +
                      (f"; pt_sync after the GPU's last replay {folds.group(6)} us as needed, "
                       f"{folds.group(7)} always, {folds.group(8)} never" if folds.group(6) else "") +
                      ")" if folds else "")))
    kr = re.search(r"^graph replays, timed by their kernels \(an event each (\d+)\): ([\d.]+) of "
                   r"bare, ([\d.]+) us a replay .*?; (\d+) timed, a replay ([\d.]+) ms by its "
                   r"kernels, ([\d.]+) ms by events", text, re.M)
    kb = re.search(r"^graph replays, timed by their kernels, an event each (\d+), (\d+), (\d+) "
                   r"replays: ([\d.]+), ([\d.]+), ([\d.]+) of bare", text, re.M)
    if kr:
        rows.append(("  graph replays, timed by its kernels", goal(float(kr.group(2)) <= 1.01) +
                     " (<= 1.01 of bare)", f"{kr.group(2)} of bare, an event each {kr.group(1)} "
                     f"replays ({kr.group(3)} us a replay); {kr.group(4)} replays timed, "
                     f"{kr.group(5)} ms a replay by its kernels' clocks, {kr.group(6)} ms by "
                     f"events" +
                     (f"; an event each {kb.group(1)}, {kb.group(2)}, {kb.group(3)} replays: "
                      f"{kb.group(4)}, {kb.group(5)}, {kb.group(6)} of bare" if kb else "")))
    return rows


def host_rows(logs, st):
    """This host's CPU on a graph replay's host work (bench_graph_host):
    whether it keeps ahead of the GPU's replay, beside bench-gpu's rows."""
    text = read(logs, "bench_host.log")
    m = re.search(r"host work \(.*?\): ([\d.]+) us a replay, ([\d.]+) us a kernel", text or "")
    if not m:
        return [("  graph replay, the host's work alone", status(st, "bench_host"),
                 "no log" if text is None else "no figure in its log")]
    rows = [("  graph replay, the host's work alone", status(st, "bench_host"),
             f"{m.group(1)} us a replay of 3 kernels of 132 blocks, {m.group(2)} us a kernel "
             f"(pt_graph_launch against the fake runtime: aiming, bookkeeping, folds)")]
    # Each later line of the log, where it is there: its row's label,
    # what finds it, and what the row says of it.
    lines = (
        ("  graph replay, records out of the caches",
         r"out of the CPU's caches, .*?: ([\d.]+) us a replay, ([\d.]+) in the caches",
         "{0} us a replay against {1} with them in the caches (as a GPU's copy leaves them: "
         "the folds read them from memory)"),
        ("  graph replays on a paced fake GPU",
         r"paced at ([\d, and]+) us a replay, of the GPU's pace: ([\d., and]+) with the fold's "
         r"own thread as needed \(the default\); ([\d., and]+) with it always "
         r"\(PT_FOLD_THREAD=1\); ([\d., and]+) without it",
         "at {0} us a replay: {1} of its pace with the fold's own thread as needed (the "
         "default), {2} with it always, {3} without (this host's CPU keeps up where 1)"),
        ("  the fold's own thread's CPU",
         r"the fold's own thread's CPU a replay at the same paces: ([\d., and]+) us as needed; "
         r"([\d., and]+) us always",
         "{0} us a replay as needed, {1} us always, at the same paces"),
        ("  pt_sync after the paced GPU's last replay",
         r"pt_sync after the GPU's last replay at (\d+) us a replay: (\d+) us as needed, "
         r"(\d+) us always, (\d+) us never",
         "at {0} us a replay: {1} us as needed, {2} us always, {3} us never (the folds no "
         "replay hides)"),
    )
    for label, pattern, says in lines:
        found = re.search(pattern, text)
        if found:
            rows.append((label, status(st, "bench_host"), says.format(*found.groups())))
    return rows


def proton_rows(logs, st):
    text = read(logs, "proton.log")
    if text is None:
        return [("Proton (peer)", status(st, "proton"), "no log")]
    rows = []
    nr = re.search(r"proton_matmul: not run: (.*)", text)
    if nr:
        return [("Proton (peer)", "not run", nr.group(1))]
    for m in re.finditer(r"proton matmul (\d+): bare ([\d.]+) ms .*?instrumented ([\d.]+) ms "
                         r"\(([-+\d.]+) %\), output (\S+), scopes recorded: (\w+)", text):
        dev = re.search(r"proton matmul " + m.group(1) + r" on the device: bare ([\d.na]+) ms, "
                        r"instrumented ([\d.na]+) ms \(([-+\d.na]+) %\)", text)
        rows.append((f"Proton matmul {m.group(1)} (peer)",
                     f"{dev.group(3)} % on the device" if dev else "no device durations",
                     (f"kernel alone: bare {dev.group(1)} ms, instrumented {dev.group(2)} ms; "
                      if dev else "") +
                     f"a launch end to end: bare {m.group(2)} ms, instrumented {m.group(3)} ms "
                     f"({m.group(4)} %); output {m.group(5)}, scopes recorded: {m.group(6)}"))
    for m in re.finditer(r"proton matmul (\d+): .*instrumented: FAILED \((.*)\)", text):
        rows.append((f"Proton matmul {m.group(1)} (peer)", "failed", m.group(2)[:200]))
    if not rows:
        rows.append(("Proton (peer)", status(st, "proton"), text.strip().splitlines()[-1][:200]
                     if text.strip() else "empty log"))
    return rows


def report_row(text, section):
    """Later mean and total ms of a section's row in a text report."""
    m = re.search(r"^\s*" + re.escape(section) + r"(?:\s+\[\w+\])*\s+(\d+)\s+([\d.e+-]+)\s.*?([\d.e+-]+) ± ",
                  text, re.M)
    return (int(m.group(1)), float(m.group(2)), float(m.group(3))) if m else None


def ncu_rows(logs, st):
    raw = read(logs, "ncu.csv")
    out = read(logs, "ncu.log") or ""
    if raw is None:
        return [("ncu on the quickstart", status(st, "ncu"), "no ncu output")]
    body = raw[raw.find('"ID"'):] if '"ID"' in raw else ""
    durs = []
    for r in csv.DictReader(body.splitlines()):
        if r.get("Metric Name") == "gpu__time_duration.sum":
            scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0,
                     "ms": 1.0, "second": 1e3, "s": 1e3}
            try:
                durs.append(float(r["Metric Value"].replace(",", "")) *
                            scale.get(r.get("Metric Unit", "").strip(), float("nan")))
            except ValueError:
                pass
    if not durs:
        return [("ncu on the quickstart", status(st, "ncu"), "no kernel durations in its CSV")]
    later = durs[1:] if len(durs) > 1 else durs
    ncu_ms = statistics.mean(later)
    fig = f"{len(durs)} launches; ncu's kernel duration, later launches: mean {ncu_ms:.4f} ms"
    plain = read(logs, "sample_quickstart.log") or ""
    for text, how in ((plain, "run alone"), (out, "under ncu")):
        launch = report_row(text, "scale_norm")
        phases = [report_row(text, p) for p in ("scale", "norm")]
        if launch:
            fig += (f"; ptkit's event-timed launch {how}, later: mean {launch[2]:.4f} ms "
                    f"({100 * (launch[2] / ncu_ms - 1):+.1f} %)")
        if all(phases):
            fig += f", its phases {sum(p[2] for p in phases):.4f} ms"
    return [("ncu on the quickstart", status(st, "ncu"), fig)]


WARN = re.compile(r"\b([1-9]\d*) (errors?|notes?|sections? open|slots skipped|slots? without a record|"
                  r"device trace events dropped|dropped)\b|warning|Traceback|FAILED|differ", re.I)


def sample_rows(logs, st):
    rows = []
    for name in sorted(n for n in st if n.startswith("sample_")):
        text = read(logs, f"{name}.log") or ""
        # ptkit's report (from its first line on) and any Python traceback.
        report = text[text.find("ptkit report"):] if "ptkit report" in text else text
        bad = sorted({m.group(0) for m in WARN.finditer(report)} |
                     ({"Traceback"} if "Traceback" in text else set()))
        gpu = "on the GPU" if re.search(r"device clock: (?!host)", text) else (
            "host mode" if "device clock: host" in text else "")
        if bad:
            fig = "report: " + "; ".join(bad)
        elif st[name][0] == "0":
            fig = "report: no warning"
        else:
            fig = text.strip().splitlines()[-1] if text.strip() else "empty log"
        res = status(st, name)
        rows.append((f"sample {name[len('sample_'):]}", res + (f", {gpu}" if gpu else ""), fig[:300]))
    tb = read(logs, "torch_build.log")
    if tb is not None and "rc=0" not in tb:
        rows.append(("  torch extension build", "failed", tb.strip().splitlines()[-2][:200]
                     if len(tb.strip().splitlines()) > 1 else tb.strip()))
    return rows


# A sanitizer's report: "========= Error: ..." (or Invalid, Race, Barrier)
# and the lines after it up to a bare "=========".
REPORT = re.compile(r"^========= (?:Invalid|Race|Barrier|Error).*?(?=^=========\s*$|\Z)", re.M | re.S)
SITE = re.compile(r" in ([^\s:]+):\d+")


def ptkits(report):
    """Whether a sanitizer's report may be ptkit's: one of the sites it
    names is in ptkit's headers, or it names no source file at all (an
    error nobody can place counts against the marks)."""
    files = SITE.findall(report)
    return not files or any(re.search(r"(^|/)pt(_dev\w*)?(\.h|_impl\.h)$|/pt/", f) for f in files)


def sanitizer_rows(logs, st):
    rows = []
    for tool in ("memcheck", "racecheck", "synccheck"):
        name = f"sanitizer_{tool}"
        text = read(logs, f"{name}.log")
        if text is None:
            rows.append((f"compute-sanitizer {tool}", status(st, name), "no log"))
            continue
        sums = [int(x) for x in re.findall(r"(?:ERROR|RACECHECK) SUMMARY: (\d+) (?:errors?|hazards?)",
                                           text)]
        errs = [int(x) for x in re.findall(r"ERROR SUMMARY: (\d+) errors?", text)] or \
            [int(x) for x in re.findall(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?",
                                        text)]
        syn = re.search(r"Synthesis: Tested: (\d+)", text)
        n = sum(errs)
        reports = [r for r in REPORT.findall(text) if not r.startswith("========= Error: Target")]
        own = [r for r in reports if not ptkits(r)]
        mine = n - min(len(own), n)
        fig = (f"{syn.group(1) if syn else 'no'} tests ran under it (their timing verdicts are not "
               f"judged: the tool slows kernels); {n} errors")
        if own:
            fig += (f", {mine} of them in ptkit's code, {min(len(own), n)} in the suite's own kernels "
                    f"(no site in ptkit's headers: {own[0].splitlines()[0][10:][:160]})")
        elif reports:
            fig += f"; first: {reports[0].splitlines()[0][10:][:160]}"
        rows.append((f"compute-sanitizer {tool}", goal(mine == 0 and sums != []) +
                     " (0 errors in ptkit's code)", fig + f"; {status(st, name)}"))
    return rows


def main(argv):
    if len(argv) != 2:
        print("usage: summary.py LOGS_DIR", file=sys.stderr)
        return 2
    logs = argv[1]
    st, total = steps(logs)
    rows = []
    for part in (card_rows(logs), suite_rows(logs, st), bench_rows(logs, st), host_rows(logs, st),
                 proton_rows(logs, st),
                 ncu_rows(logs, st), sample_rows(logs, st), sanitizer_rows(logs, st)):
        rows += part
    print("# ptkit hardware kit: summary\n")
    print("| what | result | figures |")
    print("|---|---|---|")
    for what, res, fig in rows:
        print(f"| {what} | {res} | {fig.replace('|', '/')} |")
    print(f"\nkit: {total or '?'} s in all; steps (exit status, seconds): " +
          ", ".join(f"{k} {v[0]} {v[1]}" for k, v in st.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
