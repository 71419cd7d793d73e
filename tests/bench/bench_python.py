"""What a section costs from Python: Timing.start + Timing.stop (and a
with block) against the same pair called through ctypes alone, and
against two bare ctypes calls into libptkit, measured side by side in one
run. Medians of interleaved rounds, in ns per pair; the machine is shared.

    make bench-python            (the package installed as make test-python does)
    python3 tests/bench/bench_python.py [--rounds N] [--loops N]
"""

import argparse
import statistics
import time

import ptkit
from ptkit import _capi


def bench(rounds, loops):
    lib = _capi.lib
    t = ptkit.Timing("bench")
    h = t._t
    title = b"pair"
    abi = lib.pt_abi_version
    start, stop = lib.pt_start_with, lib.pt_stop_with

    def bare_calls():
        for _ in range(loops):
            abi()
            abi()

    def ctypes_pair():
        for _ in range(loops):
            start(h, title, None)
            stop(h, title, None)

    def python_pair():
        for _ in range(loops):
            t.start("pair")
            t.stop("pair")

    def with_block():
        for _ in range(loops):
            with t.section("pair"):
                pass

    def python_pair_metrics():
        for _ in range(loops):
            t.start("pair", read=1e6, flops=2e6)
            t.stop("pair")

    def empty_loop():
        for _ in range(loops):
            pass

    rows = [("two bare ctypes calls (pt_abi_version)", bare_calls),
            ("pt_start_with + pt_stop_with through ctypes", ctypes_pair),
            ("Timing.start + Timing.stop", python_pair),
            ("with Timing.section(...)", with_block),
            ("Timing.start(read=, flops=) + Timing.stop", python_pair_metrics),
            ("empty loop", empty_loop)]
    samples = {name: [] for name, _ in rows}
    for fn in (f for _, f in rows):  # warm up: titles cached, the section made
        fn()
    for _ in range(rounds):
        for name, fn in rows:
            t0 = time.perf_counter_ns()
            fn()
            samples[name].append((time.perf_counter_ns() - t0) / loops)
    med = {name: statistics.median(v) for name, v in samples.items()}
    loop = med["empty loop"]
    print(f"ptkit {ptkit.version()}, {rounds} rounds of {loops} pairs, medians "
          f"(the empty loop, {loop:.1f} ns, subtracted)")
    print(f"{'':46} {'ns/pair':>8} {'min':>8} {'max':>8}")
    net = {}
    for name, _ in rows[:-1]:
        net[name] = med[name] - loop
        print(f"{name:46} {net[name]:8.1f} {min(samples[name]) - loop:8.1f} "
              f"{max(samples[name]) - loop:8.1f}")
    bare = net["two bare ctypes calls (pt_abi_version)"]
    raw = net["pt_start_with + pt_stop_with through ctypes"]
    py = net["Timing.start + Timing.stop"]
    print(f"ratio Timing pair / two bare ctypes calls:  {py / bare:.2f}")
    print(f"ratio Timing pair / ctypes pair:            {py / raw:.2f}")
    print(f"ratio with block / ctypes pair:             "
          f"{net['with Timing.section(...)'] / raw:.2f}")
    st = t.find("pair")
    print(f"the section's own mean (start's clock read to stop's, the Python between "
          f"them included): {st.mean_ms * 1e6:.1f} ns over {st.count} occurrences")
    t.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--loops", type=int, default=100000)
    a = ap.parse_args()
    bench(a.rounds, a.loops)


if __name__ == "__main__":
    main()
