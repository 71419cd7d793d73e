"""The peer beside bench-gpu: Triton's Proton intra-kernel instrumentation
on the matmul of Triton's tutorial (fp16 inputs, fp32 accumulation, 128x128
tiles stepping 64 along K, grouped tile order), bare against the same kernel
with a Proton scope around its two loads and one around its dot, as ptkit's
SGEMM is timed bare against marked. Run by the hardware kit in the same
minute as bench-gpu, so both slowdowns come from one card in one state.

    python3 tests/bench/proton_matmul.py [SIZES]     SIZES: 1024,2048,4096

For each size, two figures per kernel: the time a launch takes end to end
(triton.testing.do_bench: CUDA events around each call, median), which
holds whatever Proton does on the host between launches, and the kernel's
own duration on the device (CUPTI through torch.profiler, median), which
holds only what the instrumentation adds inside the kernel. Kernels: bare
(before and after the Proton session), scoped outside a session (its scopes
compile to nothing) and scoped inside an instrumentation session; then the
slowdowns, whether the outputs are bit-identical, and whether the session
recorded the scopes. Needs PyTorch and Triton with
Proton and a CUDA GPU; says what is missing and exits 0 without them.
"""

import os
import statistics
import sys
import tempfile
import traceback

# A cache of its own: nothing compiled elsewhere, instrumented or not, is reused.
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="proton-matmul-cache-"))
try:
    import torch
    import triton
    import triton.language as tl
    import triton.profiler as proton
    import triton.profiler.language as pl
    MISSING = None
except Exception as e:  # noqa: BLE001 - any import failure means no peer here
    MISSING = f"{type(e).__name__}: {e}"

if MISSING is None:
    def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                SCOPED: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first_m = (pid // per_group) * GROUP
        group_m = min(tiles_m - first_m, GROUP)
        pid_m = first_m + ((pid % per_group) % group_m)
        pid_n = (pid % per_group) // group_m
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
        b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            if SCOPED:
                pl.enter_scope("load")
            a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
            b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
            if SCOPED:
                pl.exit_scope("load")
                pl.enter_scope("dot")
            acc = tl.dot(a, b, acc)
            if SCOPED:
                pl.exit_scope("dot")
            a_ptrs += BK * sak
            b_ptrs += BK * sbk
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        c_ptrs = c_ptr + cm[:, None] * scm + cn[None, :] * scn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

    # Three compiled kernels of one source, each with a cache of its own: the
    # bare one, the scoped one run outside any session (its scopes compile to
    # nothing) and the scoped one run only inside the session.
    KERNELS = {"bare": triton.jit(_matmul), "off": triton.jit(_matmul),
               "in": triton.jit(_matmul)}


def main(argv):
    sizes = [int(s) for s in (argv[1] if len(argv) > 1 else "1024,2048,4096").split(",")]
    if MISSING is not None:
        print(f"proton_matmul: not run: {MISSING}")
        return 0
    if not torch.cuda.is_available():
        print("proton_matmul: not run: torch sees no CUDA device")
        return 0
    if hasattr(pl, "enable_semantic"):
        pl.enable_semantic("triton")

    def launch(a, b, c, which):
        M, K = a.shape
        N = b.shape[1]
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
        KERNELS[which][grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1), BM=128, BN=128, BK=64, GROUP=8, SCOPED=which != "bare",
                     num_warps=8, num_stages=3)

    def timed(fn, rounds=5):
        return [triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                for _ in range(rounds)]

    def device_ms(fn, launches=30):
        """The median of the kernel's own durations on the device (ms)."""
        from torch.profiler import ProfilerActivity, profile
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(launches):
                fn()
            torch.cuda.synchronize()
        us = [e.time_range.elapsed_us() for e in prof.events()
              if "_matmul" in e.name and str(getattr(e, "device_type", "")).endswith("CUDA")]
        return statistics.median(us) / 1e3 if us else float("nan")

    print(f"proton_matmul: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}")
    work = tempfile.mkdtemp(prefix="proton-matmul-")
    rows = []
    for n in sizes:
        torch.manual_seed(n)
        a = torch.randn((n, n), device="cuda", dtype=torch.float16)
        b = torch.randn((n, n), device="cuda", dtype=torch.float16)
        c_bare = torch.empty((n, n), device="cuda", dtype=torch.float16)
        c_scoped = torch.empty_like(c_bare)
        c_inst = torch.empty_like(c_bare)
        bare = timed(lambda: launch(a, b, c_bare, "bare"))
        off = timed(lambda: launch(a, b, c_scoped, "off"))
        dev_bare = device_ms(lambda: launch(a, b, c_bare, "bare"))
        inst, recorded, why, dev_inst = [], "no", "", float("nan")
        try:
            path = os.path.join(work, f"matmul{n}")
            proton.start(path, backend="instrumentation")
            launch(a, b, c_inst, "in")
            torch.cuda.synchronize()
            inst = timed(lambda: launch(a, b, c_inst, "in"), rounds=2)
            try:
                dev_inst = device_ms(lambda: launch(a, b, c_inst, "in"))
            except Exception as e:  # noqa: BLE001 - CUPTI may be Proton's alone
                print(f"proton matmul {n}: no device durations inside the session: "
                      f"{type(e).__name__}: {e}")
            proton.finalize()
            data = ""
            for f in os.listdir(work):
                if f.startswith(f"matmul{n}"):
                    with open(os.path.join(work, f), errors="replace") as fh:
                        data += fh.read()
            recorded = "yes" if '"load"' in data and '"dot"' in data else "no"
        except Exception as e:  # noqa: BLE001 - the peer's failure is a finding, not ours
            why = f"{type(e).__name__}: {e}"
            traceback.print_exc()
            try:
                proton.finalize()
            except Exception:  # noqa: BLE001
                pass
        bare += timed(lambda: launch(a, b, c_bare, "bare"))
        b_ms, o_ms = statistics.median(bare), statistics.median(off)
        ref = (a.float() @ b.float())
        err = ((c_bare.float() - ref).norm() / ref.norm()).item()
        same = torch.equal(c_bare, c_inst) if inst else False
        if inst:
            i_ms = statistics.median(inst)
            print(f"proton matmul {n}: bare {b_ms:.4f} ms ({2.0 * n ** 3 / b_ms / 1e9:.1f} TFLOP/s, "
                  f"rel. error {err:.1e}), scoped outside a session {o_ms:.4f} ms "
                  f"({100 * (o_ms / b_ms - 1):+.2f} %), instrumented {i_ms:.4f} ms "
                  f"({100 * (i_ms / b_ms - 1):+.2f} %), output "
                  f"{'bit-identical' if same else 'DIFFERENT'}, scopes recorded: {recorded}")
            print(f"proton matmul {n} on the device: bare {dev_bare:.4f} ms, instrumented "
                  f"{dev_inst:.4f} ms ({100 * (dev_inst / dev_bare - 1):+.2f} %)")
            rows.append(100 * (dev_inst / dev_bare - 1))
        else:
            print(f"proton matmul {n}: bare {b_ms:.4f} ms, scoped outside a session {o_ms:.4f} ms, "
                  f"instrumented: FAILED ({why})")
    if rows:
        print(f"proton matmul: median slowdown on the device {statistics.median(rows):+.2f} % "
              f"over {len(rows)} sizes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
