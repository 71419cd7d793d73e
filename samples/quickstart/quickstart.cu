/* Two phases of one kernel, timed per block, one call per launch. */
#include <pt/pt.h>
#include <stdio.h>
#include <stdlib.h>

enum { PH_SCALE, PH_NORM, PH_COUNT };   /* or a ptgen phase list */
#define PT_DEV_PHASES PH_COUNT
#include <pt/pt_dev.h>

static const char *phase_names[] = { "scale", "norm" };
enum { BLOCKS = 512, THREADS = 256, N = 8192 };   /* N floats per block */

/* One block's work as a function of its index: the kernel runs it on the
 * GPU; PT_HOST_LAUNCH runs it on the CPU, one thread per block. */
__host__ __device__ void block_work(int block, int tid, int nthreads, float *x, float *out,
                                    pt_dev_buf buf)
{
    PT_DEV_BEGIN_AT(buf, block);
    float *v = x + (size_t)block * N, s = 0;
    for (int i = tid; i < N; i += nthreads)
        v[i] = 0.5f * v[i] + 1.0f;
    PT_DEV_MARK(PH_SCALE);                 /* cycles since BEGIN -> "scale" */
    for (int i = tid; i < N; i += nthreads)
        s += v[i] * v[i];
    out[(size_t)block * nthreads + tid] = s;
    PT_DEV_MARK(PH_NORM);                  /* cycles since the last mark -> "norm" */
    PT_DEV_END(buf);
}

__global__ void scale_norm(float *x, float *out, pt_dev_buf buf)
{
    block_work(blockIdx.x, threadIdx.x, blockDim.x, x, out, buf);
}

int main(void)
{
    pt_timing *t = pt_create("quickstart", PT_GPU_EVENTS);
    size_t bytes = sizeof(float) * BLOCKS * N;
    float *x, *out;
    int gpus = 0;

    if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) {
        pt_dev_records *recs = pt_dev_records_create(t, 0, PH_COUNT, phase_names, 0, 0);
        cudaMalloc(&x, bytes);
        cudaMalloc(&out, sizeof(float) * BLOCKS * THREADS);
        cudaMemset(x, 0, bytes);
        for (int step = 0; step < 5; step++)   /* grow, reset, time, launch, fold */
            PT_LAUNCH(t, "scale_norm", recs, scale_norm, BLOCKS, THREADS, 0, 0, x, out);
        pt_sync(t);
        pt_dev_records_free(recs);
        cudaFree(x);
        cudaFree(out);
    } else {                                   /* no GPU: the same body on the CPU */
        pt_dev_records *recs = pt_dev_records_create(t, 0, PH_COUNT, phase_names, PT_DEV_HOST, 0);
        x = (float *)calloc(BLOCKS * N, sizeof(float));
        out = (float *)calloc(BLOCKS, sizeof(float));
        for (int step = 0; step < 5; step++)
            PT_HOST_LAUNCH(t, "scale_norm", recs, BLOCKS, block_work, 0, 1, x, out);
        pt_dev_records_free(recs);
        free(x);
        free(out);
    }
    pt_log(t, stdout);
    pt_destroy(t);
    return 0;
}
