// A CUDA consumer of the installed headers and library, built by nvcc
// alone: a kernel with in-kernel phases (pt_dev.h) and the host code that
// times its launch, folds the phases and reports (pt.h), with the calls
// of consumer.cpp's C++ spelling. Runs on the CPU path without a device.
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include <cstdio>
#include <cuda_runtime.h>

enum { PH_LOAD, PH_COMPUTE, PH_COUNT };

__global__ void step(float *x, int n, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    PT_DEV_MARK(PH_LOAD);
    for (int k = 0; k < 64; k++)
        v = v * 0.999f + 0.001f;
    PT_DEV_MARK(PH_COMPUTE);
    if (i < n)
        x[i] = v;
    PT_DEV_END(buf);
}

// A 2D grid's block in host mode: one index, x fastest, its own slot.
static __host__ __device__ void tile(int block, int gx, float *x, pt_dev_buf buf)
{
    PT_DEV_BEGIN_AT(buf, block);
    int bx = block % gx, by = block / gx;
    x[block] = (float)(bx + 10 * by);
    PT_DEV_MARK(PH_LOAD);
    PT_DEV_END(buf);
}

int main()
{
    static const char *names[] = { "load", "compute" };
    const int n = 1 << 12, threads = 256, blocks = n / threads;
    pt_timing *t = pt_create("consumer (nvcc)", PT_GPU_EVENTS);
    pt_dev_records *buf = pt_dev_records_create(t, blocks, PH_COUNT, names, PT_DEV_AGGREGATE, 0);
    float *x = nullptr;
    int rc = 0;

    PT_SECTION(t, "setup") {
    }
    if (cudaMalloc(&x, n * sizeof *x) == cudaSuccess) {
        rc |= pt_dev_reset(buf, 0);
        rc |= pt_start_gpu(t, "step", 0);
        step<<<blocks, threads>>>(x, n, pt_dev_arg(buf));
        rc |= pt_stop_gpu(t, "step", 0, pt::flops(2.0 * 64 * n).read(4.0 * n).written(4.0 * n));
        rc |= pt_dev_fold(t, buf, "step");
        cudaFree(x);
    } else {
        std::printf("no CUDA device: only the host sections are timed\n");
        rc |= pt_start(t, "host only");
        rc |= pt_stop(t, "host only", pt::flops(1));
    }
    {
        // Host mode over a dim3(4, 3) grid: 12 blocks, each its own record.
        static float tiles[12];
        pt_dev_records *h = pt_dev_records_create(t, 0, PH_COUNT, names, PT_DEV_HOST, 0);
        PT_HOST_LAUNCH(t, "tiles 4x3", h, dim3(4, 3), tile, 4, tiles);
        pt_section_stats st;
        const pt_section *s = pt_find(t, "tiles 4x3/load");
        if (!s || pt_section_get(t, s, &st) != 0 || st.blocks != 12 || tiles[11] != 23.0f) {
            std::printf("a dim3 host launch did not run its 12 blocks\n");
            rc |= 1;
        }
        pt_dev_records_free(h);
    }
    rc |= pt_log(t, stdout, pt::log_opts().percentages(1));
    pt_dev_records_free(buf);
    pt_destroy(t);
    return rc != 0;
}
