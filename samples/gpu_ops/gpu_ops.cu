/* gpu_ops: two everyday kernels, a tiled matrix multiply and an elementwise
 * transform (a GELU on a scaled, shifted input), each timed per call with
 * the FLOPS and bytes it does declared, so the report gives GFLOP/s, GB/s,
 * the roofline (compute- or memory-bound, % of peak) and the bottlenecks.
 *
 * On a GPU the calls are timed by CUDA events and the peaks come from the
 * device. On the CPU the same loops run tiled on the host, timed by the
 * CPU clock, against nominal peaks set with pt_peaks_set (not measured:
 * they only place the points on the roofline).
 *
 * usage: gpu_ops [repeats] [output-directory] ("-" keeps the default) */
#include <pt/pt.h>

#include "../sample_reports.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
#endif

enum { TILE = 16 };

/* Nominal CPU peaks for the roofline: one core's order of magnitude. */
#define CPU_PEAK_BYTES_PER_S 20e9
#define CPU_PEAK_FLOPS_PER_S 50e9

/* gelu(a x + c), tanh form: about 12 operations per element. */
#define GELU_OPS 12.0
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline float gelu_affine(float v, float a, float c)
{
    float u = a * v + c;
    return 0.5f * u * (1.0f + tanhf(0.7978845608f * (u + 0.044715f * u * u * u)));
}

#if defined(__CUDACC__)
/* C (m x n) = A (m x k) B (k x n), row-major, TILE x TILE blocks of C
 * through shared-memory tiles of A and B. Sizes are multiples of TILE. */
__global__ void matmul_tiled(const float *A, const float *B, float *C, int m, int n, int k)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float s = 0;
    for (int t0 = 0; t0 < k; t0 += TILE) {
        As[threadIdx.y][threadIdx.x] = A[row * k + t0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            s += As[threadIdx.y][j] * Bs[j][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = s;
}

__global__ void gelu_kernel(const float *x, float *y, int n, float a, float c)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = gelu_affine(x[i], a, c);
}
#endif

/* The CPU's tiled multiply: the same blocking, so each tile of B is
 * reused from cache across a tile of rows. */
static void matmul_cpu(const float *A, const float *B, float *C, int m, int n, int k)
{
    memset(C, 0, sizeof(float) * m * n);
    for (int i0 = 0; i0 < m; i0 += TILE)
        for (int p0 = 0; p0 < k; p0 += TILE)
            for (int i = i0; i < i0 + TILE; i++)
                for (int p = p0; p < p0 + TILE; p++) {
                    float a = A[i * k + p];
                    for (int j = 0; j < n; j++)
                        C[i * n + j] += a * B[p * n + j];
                }
}

static void fill(float *v, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
    }
}

int main(int argc, char **argv)
{
    int reps = argc > 1 && strcmp(argv[1], "-") != 0 ? atoi(argv[1]) : 5;
    const char *dir = argc > 2 ? argv[2] : ".";
    int on_gpu = 0, dim = 256, ne = 1 << 20;

    if (reps < 1) {
        fprintf(stderr, "usage: gpu_ops [repeats >= 1] [output-directory]\n");
        return 2;
    }
    pt_timing *t = pt_create("gpu_ops (matmul and elementwise)", PT_GPU_EVENTS | PT_TRACE);
#if defined(__CUDACC__)
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err == cudaSuccess && ndev > 0) {
        struct cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        dim = 2048;
        ne = 1 << 26;
        printf("GPU: %s: %d x %d matmul and a %d-element GELU, %d times each, timed by CUDA events\n",
               p.name, dim, dim, ne, reps);
        on_gpu = 1;
    } else {
        printf("no CUDA device (%s): the same operations run on the CPU, against nominal peaks\n",
               cudaGetErrorString(err == cudaSuccess ? cudaErrorNoDevice : err));
    }
#else
    printf("built without CUDA: the operations run on the CPU, against nominal peaks\n");
#endif
    size_t mat = (size_t)dim * dim;
    float *A = (float *)malloc(sizeof(float) * mat), *B = (float *)malloc(sizeof(float) * mat);
    float *C = (float *)malloc(sizeof(float) * mat);
    float *x = (float *)malloc(sizeof(float) * ne), *y = (float *)malloc(sizeof(float) * ne);
    if (!A || !B || !C || !x || !y) {
        fprintf(stderr, "gpu_ops: out of memory\n");
        return 1;
    }
    fill(A, mat, 1);
    fill(B, mat, 2);
    fill(x, ne, 3);

    const double mm_flops = pt_flops_matmul(dim, dim, dim);
    const double mm_read = 2.0 * sizeof(float) * mat, mm_written = sizeof(float) * mat;
    const double ew_flops = pt_flops_elementwise(ne, GELU_OPS);
    const double ew_bytes = sizeof(float) * (double)ne;
#if defined(__CUDACC__)
    if (on_gpu) {
        float *dA, *dB, *dC, *dx, *dy;
        cudaStream_t st;
        cudaStreamCreate(&st);
        cudaMalloc(&dA, sizeof(float) * mat);
        cudaMalloc(&dB, sizeof(float) * mat);
        cudaMalloc(&dC, sizeof(float) * mat);
        cudaMalloc(&dx, sizeof(float) * ne);
        cudaMalloc(&dy, sizeof(float) * ne);
        PT_SECTION(t, "upload") {
            pt_start_gpu(t, "copy", st);
            cudaMemcpyAsync(dA, A, sizeof(float) * mat, cudaMemcpyHostToDevice, st);
            cudaMemcpyAsync(dB, B, sizeof(float) * mat, cudaMemcpyHostToDevice, st);
            cudaMemcpyAsync(dx, x, sizeof(float) * ne, cudaMemcpyHostToDevice, st);
            pt_stop_gpu(t, "copy", st);
            pt_transfer(t, sizeof(float) * (2.0 * mat + ne), PT_H2D);
        }
        for (int r = 0; r < reps; r++) {
            pt_start_gpu(t, "matmul_tiled", st, pt::read(mm_read).written(mm_written).flops(mm_flops));
            matmul_tiled<<<dim3(dim / TILE, dim / TILE), dim3(TILE, TILE), 0, st>>>(dA, dB, dC, dim,
                                                                                 dim, dim);
            pt_stop_gpu(t, "matmul_tiled", st);
            pt_start_gpu(t, "gelu", st, pt::read(ew_bytes).written(ew_bytes).flops(ew_flops));
            gelu_kernel<<<1024, 256, 0, st>>>(dx, dy, ne, 1.5f, 0.1f);
            pt_stop_gpu(t, "gelu", st);
        }
        cudaMemcpyAsync(C, dC, sizeof(float) * mat, cudaMemcpyDeviceToHost, st);
        cudaMemcpyAsync(y, dy, sizeof(float) * ne, cudaMemcpyDeviceToHost, st);
        cudaStreamSynchronize(st);
        if (cudaGetLastError() != cudaSuccess)
            printf("a CUDA call failed: the figures may be incomplete\n");
        pt_sync(t);
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dx); cudaFree(dy);
        cudaStreamDestroy(st);
    }
#endif
    if (!on_gpu) {
        pt_peaks_set(t, CPU_PEAK_BYTES_PER_S, CPU_PEAK_FLOPS_PER_S);
        printf("CPU: %d x %d matmul and a %d-element GELU, %d times each; nominal peaks "
               "%.0f GB/s, %.0f GFLOP/s\n", dim, dim, ne, reps, CPU_PEAK_BYTES_PER_S / 1e9,
               CPU_PEAK_FLOPS_PER_S / 1e9);
        for (int r = 0; r < reps; r++) {
            PT_SECTION(t, "matmul_tiled", pt::read(mm_read).written(mm_written).flops(mm_flops))
                matmul_cpu(A, B, C, dim, dim, dim);
            PT_SECTION(t, "gelu", pt::read(ew_bytes).written(ew_bytes).flops(ew_flops))
                for (int i = 0; i < ne; i++)
                    y[i] = gelu_affine(x[i], 1.5f, 0.1f);
        }
    }
    /* A spot check that the work was done: one element of C by hand. */
    double c00 = 0;
    for (int p = 0; p < dim; p++)
        c00 += (double)A[p] * B[(size_t)p * dim];
    printf("C[0][0] = %.5f (expected %.5f), y[0] = %.5f\n\n", C[0], c00, y[0]);

    pt_log(t, stdout, pt::log_opts().percentages(1));
    putchar('\n');
    pt_log(t, stdout, pt::log_opts().view(PT_VIEW_BOTTLENECKS).top(5));
    sample_write_reports(t, dir, "gpu_ops");
    pt_destroy(t);
    free(A); free(B); free(C); free(x); free(y);
    return 0;
}
