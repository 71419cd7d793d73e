"""cupy_phases: three in-kernel phases of a CuPy RawModule kernel, timed
with ptkit from Python.

Each block stages a tile of x in shared memory (gather), iterates a
logistic map on every element (update) and sums the tile by halving
(reduce): three_phases.cuh, which the torch sample launches too.
PT_DEV_MARK charges each phase its cycles. The launches are
CUDA-event-timed sections on a CuPy stream, and each launch's records are
folded under it: the report shows the three phases per launch, with
per-block mean, min, max and imbalance.

Needs CuPy (pip install cupy-cuda13x, or the package for your CUDA) and a
CUDA GPU; ptkit installed (pip install --no-build-isolation ./python).

    python3 samples/python/cupy_phases.py [launches] [output-directory]
"""

import os
import sys

import numpy

import ptkit

PHASES = ["gather", "update", "reduce"]
THREADS = 256   # the tile: one element per thread
ROUNDS = 64     # logistic-map rounds per element in "update"

# The kernel: a wrapper NVRTC compiles around the samples' shared device
# code, three_phases.cuh beside this file.
KERNEL_SOURCE = r"""
#include "three_phases.cuh"

extern "C" __global__ void step(const float *x, float *y, int n, int rounds, pt_dev_buf buf)
{
    three_phases(x, y, n, rounds, buf);
}
"""

# What the program hands to cupy.RawModule: the folders of <pt/pt_dev.h>
# and of three_phases.cuh. CuPy adds its own (the C++ standard, its
# include folders, -ftz=true, the architecture); python/tests/test_samples.py
# compiles the kernel with those too.
OPTIONS = ("-I" + ptkit.get_include(), "-I" + os.path.dirname(os.path.abspath(__file__)))


def reference(x, blocks):
    """The kernel's result computed by NumPy, to check the GPU's."""
    t = numpy.zeros(blocks * THREADS, dtype=numpy.float32)
    t[:len(x)] = x
    v = t.reshape(blocks, THREADS)
    for _ in range(ROUNDS):
        v = numpy.float32(2.5) * v * (numpy.float32(1) - v)
    return v.sum(axis=1, dtype=numpy.float64)


def main(argv):
    launches = int(argv[1]) if len(argv) > 1 and argv[1] != "-" else 20
    out = argv[2] if len(argv) > 2 else "."
    try:
        import cupy
    except ImportError:
        print("cupy_phases needs CuPy and a CUDA GPU (pip install cupy-cuda13x); "
              "CuPy is not installed here", file=sys.stderr)
        return 2

    n = 1 << 20
    blocks = (n + THREADS - 1) // THREADS
    t = ptkit.Timing("cupy_phases", gpu=True, trace=True)
    module = cupy.RawModule(code=KERNEL_SOURCE, options=OPTIONS)
    kernel = module.get_function("step")
    x = cupy.random.rand(n, dtype=cupy.float32)
    y = cupy.empty(blocks, dtype=cupy.float32)
    buf = t.phases(blocks, PHASES)
    stream = cupy.cuda.Stream(non_blocking=True)
    flops = 3.0 * ROUNDS * n + n
    with stream:
        for _ in range(launches):
            buf.reset(stream.ptr)
            with t.gpu_section("step", stream=stream.ptr, read=4.0 * n, written=4.0 * blocks,
                               flops=flops):
                kernel((blocks,), (THREADS,), (x, y, numpy.int32(n), numpy.int32(ROUNDS), buf.arg))
            t.fold(buf, "step")
    stream.synchronize()
    t.sync()

    want = reference(cupy.asnumpy(x), blocks)
    got = cupy.asnumpy(y).astype(numpy.float64)
    if not numpy.allclose(got, want, rtol=1e-3, atol=1e-2):
        print("cupy_phases: the kernel's sums differ from NumPy's", file=sys.stderr)
        return 1
    print(t.report(percentages=True))
    os.makedirs(out, exist_ok=True)
    t.export_json(os.path.join(out, "cupy_phases.json"))
    t.export_html(os.path.join(out, "cupy_phases.html"))
    t.export_trace(os.path.join(out, "cupy_phases_trace.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
