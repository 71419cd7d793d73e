/* transport_step: one step of a 2D proton transport on a phase-space grid,
 * psi[cell][angle][energy], as one kernel with three in-kernel phases:
 *
 *   angular_scattering  a 5-tap convolution over angles, narrower at high energy
 *   energy_loss         a share of each energy bin slows into the bin below,
 *                       the energy lost is deposited as dose in the cell
 *   spatial_streaming   each angle moves part of its fluence to the next cell
 *                       along its direction (upwind)
 *
 * ptkit times the launches with CUDA events and the phases inside them with
 * PT_DEV_MARK, folds the phases under each launch and prints the tree. On a
 * machine without a CUDA device the same phase code, compiled for the host,
 * runs block by block on the CPU through pt_dev.h's host mode.
 *
 * usage: transport_step [steps] [output-directory]
 * (steps: 20 on a GPU, 4 on the CPU unless given; "-" keeps the default) */
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include "../sample_reports.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
#  define HD __host__ __device__
#else /* built by a C++ compiler alone (CUDA=0): the CPU path only */
#  define HD
#endif

enum { NX = 48, NZ = 48, NA = 32, NE = 48, NCELL = NX * NZ, SLAB = NA * NE };
enum { THREADS = 128 };

enum { PH_ANGULAR, PH_ENERGY, PH_STREAM, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {
    "angular_scattering", "energy_loss", "spatial_streaming"
};

/* One block's view: which thread it is, how many there are, and the
 * block's working slabs (shared memory on the GPU, a stack array on the CPU). */
struct lane {
    int tid, nthreads;
};

static HD void block_sync(void)
{
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
}

static HD void add_to(float *p, float v)
{
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

static HD void angular_scattering(struct lane l, const float *in, float *out)
{
    for (int i = l.tid; i < SLAB; i += l.nthreads) {
        int a = i / NE, e = i % NE;
        /* Scattering widens as the proton slows: low e, wide kernel. */
        float s = 0.15f + 0.6f * (float)(NE - e) / NE;
        float w[5], sum = 0, v = 0;
        for (int k = 0; k < 5; k++) {
            float d = (float)(k - 2);
            w[k] = expf(-d * d / (2 * s * s + 1e-3f));
            sum += w[k];
        }
        for (int k = 0; k < 5; k++)
            v += w[k] * in[((a + k - 2 + NA) % NA) * NE + e];
        out[i] = v / sum;
    }
}

static HD void energy_loss(struct lane l, const float *in, float *out, float *dose)
{
    float deposited = 0;
    for (int i = l.tid; i < SLAB; i += l.nthreads) {
        int e = i % NE;
        /* Bragg-like: slower protons lose a larger share per step. */
        float f = 0.02f + 0.3f / (1.0f + (float)e);
        float stay = in[i] * (1 - f);
        float above = e + 1 < NE ? in[i + 1] * (0.02f + 0.3f / (2.0f + (float)e)) : 0;
        out[i] = stay + above;
        deposited += in[i] * f * (float)(e + 1);
    }
    add_to(dose, deposited);
}

static HD void spatial_streaming(struct lane l, int cell, const float *in, float *next)
{
    int x = cell % NX, z = cell / NX;
    for (int i = l.tid; i < SLAB; i += l.nthreads) {
        int a = i / NE;
        float th = 6.2831853f * (float)a / NA;
        int dx = (int)lrintf(cosf(th)), dz = (int)lrintf(sinf(th));
        int nx = x + dx, nz = z + dz;
        float c = 0.4f; /* Courant number */
        add_to(&next[(size_t)cell * SLAB + i], (1 - c) * in[i]);
        if (nx >= 0 && nx < NX && nz >= 0 && nz < NZ)
            add_to(&next[((size_t)nz * NX + nx) * SLAB + i], c * in[i]);
    }
}

/* One block of the step: the same code on the GPU and on the CPU. The
 * block index comes first, as PT_HOST_LAUNCH passes it. */
static HD void step_block(int cell, struct lane l, const float *psi, float *next, float *dose,
                          float *s0, float *s1, pt_dev_buf buf)
{
    PT_DEV_BEGIN_AT(buf, cell);
    for (int i = l.tid; i < SLAB; i += l.nthreads)
        s0[i] = psi[(size_t)cell * SLAB + i];
    block_sync();
    angular_scattering(l, s0, s1);
    block_sync();
    PT_DEV_MARK(PH_ANGULAR);
    energy_loss(l, s1, s0, &dose[cell]);
    block_sync();
    PT_DEV_MARK(PH_ENERGY);
    spatial_streaming(l, cell, s0, next);
    PT_DEV_MARK(PH_STREAM);
    PT_DEV_END(buf);
}

#if defined(__CUDACC__)
__global__ void transport_step(const float *psi, float *next, float *dose, pt_dev_buf buf)
{
    __shared__ float s0[SLAB], s1[SLAB];
    struct lane l = { (int)threadIdx.x, (int)blockDim.x };
    step_block((int)blockIdx.x, l, psi, next, dose, s0, s1, buf);
}
#endif

/* Flops and bytes of one step, declared on the launch. */
static const double step_flops = (double)NCELL * SLAB * (5 * 4 + 10 + 8 + 4);
static const double step_read = (double)NCELL * SLAB * sizeof(float) * 2;
static const double step_written = (double)NCELL * SLAB * sizeof(float) * 2;

static void initial_beam(float *psi)
{
    memset(psi, 0, sizeof(float) * NCELL * SLAB);
    /* A pencil beam entering at the left edge, forward angles, high energy. */
    for (int z = NZ / 2 - 3; z <= NZ / 2 + 3; z++)
        for (int a = 0; a < 3; a++)
            for (int e = NE - 8; e < NE; e++)
                psi[((size_t)z * NX) * SLAB + a * NE + e] = 1.0f;
}

static double total_dose(const float *dose)
{
    double d = 0;
    for (int i = 0; i < NCELL; i++)
        d += dose[i];
    return d;
}

static void run_cpu(pt_timing *t, int steps, float *psi, float *next, float *dose)
{
    /* Sized by the first launch. */
    pt_dev_records *buf = pt_dev_records_create(t, 0, PH_COUNT, phase_names, PT_DEV_HOST, 0);
    static float s0[SLAB], s1[SLAB];
    struct lane l = { 0, 1 };

    for (int s = 0; s < steps; s++) {
        memset(next, 0, sizeof(float) * NCELL * SLAB);
        /* step_block(cell, l, psi, ..., buf) for every cell, timed and folded. */
        PT_HOST_LAUNCH_WITH(t, "transport_step",
                            pt::read(step_read).written(step_written).flops(step_flops), buf,
                            NCELL, step_block, l, psi, next, dose, s0, s1);
        float *tmp = psi;
        psi = next;
        next = tmp;
    }
    pt_dev_records_free(buf);
}

#if defined(__CUDACC__)
static int run_gpu(pt_timing *t, int steps, float *psi_h, float *dose_h)
{
    size_t bytes = sizeof(float) * NCELL * SLAB;
    float *psi, *next, *dose;
    cudaStream_t st;

    if (cudaStreamCreate(&st) != cudaSuccess || cudaMalloc(&psi, bytes) != cudaSuccess ||
        cudaMalloc(&next, bytes) != cudaSuccess ||
        cudaMalloc(&dose, sizeof(float) * NCELL) != cudaSuccess)
        return -1;
    pt_dev_records *buf = pt_dev_records_create(t, 0, PH_COUNT, phase_names, PT_DEV_AGGREGATE, 0);

    PT_SECTION(t, "upload") {
        pt_start_gpu(t, "copy", st);
        cudaMemcpyAsync(psi, psi_h, bytes, cudaMemcpyHostToDevice, st);
        cudaMemsetAsync(dose, 0, sizeof(float) * NCELL, st);
        pt_stop_gpu(t, "copy", st);
        pt_transfer(t, (double)bytes, PT_H2D);
    }
    for (int s = 0; s < steps; s++) {
        cudaMemsetAsync(next, 0, bytes, st);
        /* Reset, event-timed, launched, folded when its events resolve. */
        PT_LAUNCH_WITH(t, "transport_step",
                       pt::read(step_read).written(step_written).flops(step_flops), buf,
                       transport_step, NCELL, THREADS, 0, st, psi, next, dose);
        float *tmp = psi;
        psi = next;
        next = tmp;
    }
    PT_SECTION(t, "download") {
        pt_start_gpu(t, "copy", st);
        cudaMemcpyAsync(dose_h, dose, sizeof(float) * NCELL, cudaMemcpyDeviceToHost, st);
        pt_stop_gpu(t, "copy", st);
        pt_transfer(t, sizeof(float) * NCELL, PT_D2H);
        cudaStreamSynchronize(st);
    }
    pt_sync(t);
    pt_dev_records_free(buf);
    cudaFree(psi);
    cudaFree(next);
    cudaFree(dose);
    cudaStreamDestroy(st);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    int steps = argc > 1 && strcmp(argv[1], "-") != 0 ? atoi(argv[1]) : 0;
    const char *dir = argc > 2 ? argv[2] : ".";
    int on_gpu = 0;
    float *psi = (float *)malloc(sizeof(float) * NCELL * SLAB);
    float *next = (float *)malloc(sizeof(float) * NCELL * SLAB);
    float *dose = (float *)calloc(NCELL, sizeof(float));

    if (!psi || !next || !dose || steps < 0) {
        fprintf(stderr, "usage: transport_step [steps >= 1] [output-directory]\n");
        return 2;
    }
    initial_beam(psi);

    pt_timing *t = pt_create("transport_step (2D proton transport)", PT_GPU_EVENTS | PT_TRACE);
#if defined(__CUDACC__)
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err == cudaSuccess && ndev > 0) {
        struct cudaDeviceProp p;
        steps = steps ? steps : 20;
        cudaGetDeviceProperties(&p, 0);
        printf("GPU: %s: %d steps of %d blocks x %d threads, phases timed in the kernel\n",
               p.name, steps, NCELL, THREADS);
        on_gpu = run_gpu(t, steps, psi, dose) == 0;
        if (!on_gpu)
            printf("the GPU run failed; running on the CPU instead\n");
    } else {
        printf("no CUDA device (%s): the same phases run on the CPU through pt_dev.h's host mode\n",
               cudaGetErrorString(err == cudaSuccess ? cudaErrorNoDevice : err));
    }
#else
    printf("built without CUDA: the phases run on the CPU through pt_dev.h's host mode\n");
#endif
    if (!on_gpu) {
        steps = steps ? steps : 4;
        /* No upload: host memory is where the CPU works. */
        run_cpu(t, steps, psi, next, dose);
    }
    printf("dose deposited: %.4g (arbitrary units)\n\n", total_dose(dose));

    pt_log(t, stdout, pt::log_opts().percentages(1));
    sample_write_reports(t, dir, "transport_step");
    pt_destroy(t);
    free(psi);
    free(next);
    free(dose);
    return 0;
}
