"""torch_phases: three in-kernel phases of a PyTorch C++/CUDA extension's
kernel, timed with ptkit, beside torch.profiler.

The extension (phases_ext.cpp, phases_kernel.cu) is built at first run by
torch.utils.cpp_extension.load with ptkit's headers on its include path;
its kernel records gather, update and reduce per block into a ptkit
buffer whose argument it receives as Phases.arg_bytes. Each launch is a
CUDA-event-timed section on torch's current stream, its records folded
under it; torch.profiler records the same steps. The two traces are
combined into one file that ui.perfetto.dev opens: torch's operators and
kernels beside ptkit's sections and per-block phases.

Needs PyTorch with CUDA, nvcc and a CUDA GPU; ptkit installed
(pip install --no-build-isolation ./python).

    python3 samples/python/torch_ext/torch_phases.py [steps] [output-directory]
"""

import inspect
import os
import sys

import ptkit

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["gather", "update", "reduce"]
ROUNDS = 64
TILE = 256


def build_extension():
    from torch.utils.cpp_extension import load
    return load(name="ptkit_torch_phases",
                sources=[os.path.join(HERE, "phases_ext.cpp"), os.path.join(HERE, "phases_kernel.cu")],
                extra_include_paths=[ptkit.get_include(), HERE, os.path.dirname(HERE)],
                verbose=False)


def main(argv):
    steps = int(argv[1]) if len(argv) > 1 and argv[1] != "-" else 20
    out = argv[2] if len(argv) > 2 else "."
    try:
        import torch
    except ImportError:
        print("torch_phases needs PyTorch with CUDA, nvcc and a CUDA GPU; "
              "PyTorch is not installed here", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_phases needs a CUDA GPU; torch sees none", file=sys.stderr)
        return 2

    ext = build_extension()
    n = 1 << 20
    blocks = (n + TILE - 1) // TILE
    x = torch.rand(n, device="cuda")
    t = ptkit.Timing("torch_phases", gpu=True, trace=True)
    buf = t.phases(blocks, PHASES)
    stream = torch.cuda.current_stream()
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    # One profiling cycle that keeps its events (newer torch warns that it
    # clears them at each cycle's end unless told to keep them).
    keep = {"acc_events": True} if "acc_events" in inspect.signature(torch.profiler.profile).parameters \
        else {}
    with torch.profiler.profile(activities=activities, **keep) as prof:
        for _ in range(steps):
            buf.reset(stream.cuda_stream)
            with t.gpu_section("step", stream=stream.cuda_stream, read=4.0 * n,
                               written=4.0 * blocks, flops=3.0 * ROUNDS * n + n):
                y = ext.step(x, ROUNDS, buf.arg_bytes)
            t.fold(buf, "step")
    torch.cuda.synchronize()
    t.sync()

    v = x.double()
    for _ in range(ROUNDS):
        v = 2.5 * v * (1 - v)
    if not torch.allclose(y.double(), v.view(blocks, TILE).sum(1), rtol=1e-3, atol=1e-2):
        print("torch_phases: the kernel's sums differ from torch's", file=sys.stderr)
        return 1
    print(t.report(percentages=True))
    os.makedirs(out, exist_ok=True)
    torch_trace = os.path.join(out, "torch_trace.json")
    ptkit_trace = os.path.join(out, "ptkit_trace.json")
    prof.export_chrome_trace(torch_trace)
    t.export_trace(ptkit_trace)
    ptkit.combine_traces([torch_trace, ptkit_trace], os.path.join(out, "combined_trace.json"))
    print(f"open {os.path.join(out, 'combined_trace.json')} in ui.perfetto.dev")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
